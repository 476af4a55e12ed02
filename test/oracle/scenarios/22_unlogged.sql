-- An UNLOGGED table with a serial column: since 15 its sequence is unlogged
-- too, and writing an unlogged sequence's init fork ends with a
-- FlushRelationBuffers (1 scan).  TRUNCATE ... RESTART IDENTITY resets the
-- sequence the same way (1 scan) and drops the old files at commit (1 drop
-- scan); DROP TABLE: 1 drop scan.  Unlogged relations are never synced.
-- @expect minimal: flush_rel=2 drop_pending=2
-- @expect replica: flush_rel=2 drop_pending=2
CREATE UNLOGGED TABLE ul (id serial PRIMARY KEY, doc text);
INSERT INTO ul (doc) SELECT 'u' FROM generate_series(1, 10000);
TRUNCATE ul RESTART IDENTITY;
INSERT INTO ul (doc) VALUES ('again');
DROP TABLE ul;

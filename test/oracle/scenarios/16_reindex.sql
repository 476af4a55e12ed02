-- REINDEX TABLE: both indexes and the toast index get new relfilenodes in
-- the caller's transaction (small: no sync scan); the old files go at
-- commit: 1 drop scan.
-- @expect minimal: drop_pending=1
-- @expect replica: drop_pending=1
-- @setup
CREATE TABLE ri (id int PRIMARY KEY, v text);
INSERT INTO ri SELECT g, 'r' || g FROM generate_series(1, 10000) g;
CREATE INDEX ri_v ON ri (v);
-- @run
REINDEX TABLE ri;

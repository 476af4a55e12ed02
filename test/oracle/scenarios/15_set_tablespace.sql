-- ALTER TABLE ... SET TABLESPACE copies the heap, the toast heap and the
-- toast index, each after a FlushRelationBuffers (3 scans; the table's own
-- index stays where it is); the old files go at commit (1 drop scan).
-- ALTER INDEX ... SET TABLESPACE: 1 FlushRelationBuffers + 1 drop scan.
-- The copies are small: no sync scan under minimal.
-- @expect minimal: flush_rel=4 drop_pending=2
-- @expect replica: flush_rel=4 drop_pending=2
-- @setup
CREATE TABLE ts_t (id int, doc text);
INSERT INTO ts_t SELECT g, repeat('t', 100) FROM generate_series(1, 1000) g;
CREATE INDEX ts_i ON ts_t (id);
-- @run
ALTER TABLE ts_t SET TABLESPACE oracle_ts;
ALTER INDEX ts_i SET TABLESPACE oracle_ts;

-- REPACK (19) without a table: every table of the database the user owns,
-- system catalogs included (mapped ones through the relation mapper), each
-- in a transaction of its own, as VACUUM FULL without a table does.  One
-- drop scan per table at each commit; under minimal, a sync scan for the
-- table above wal_skip_threshold.  70 tables in a fresh database of 19rc1:
-- the 2 here and 68 catalogs.
-- @min-version: 19
-- @expect minimal: flush_pending=1 drop_pending=70
-- @expect replica: drop_pending=70
-- @setup
CREATE TABLE rb (id int PRIMARY KEY, pad text);
INSERT INTO rb SELECT g, repeat('b', 50) FROM generate_series(1, 60000) g;
CREATE TABLE rs (id int, pad text);
INSERT INTO rs SELECT g, 's' FROM generate_series(1, 1000) g;
-- @run
REPACK;

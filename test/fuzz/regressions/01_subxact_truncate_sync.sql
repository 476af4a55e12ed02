-- Shrunk from seeds 52, 66, 87, 97 and 192 (the unattributed-scan check,
-- see test/fuzz/README.md): a table created and truncated in place inside
-- a subtransaction that is rolled back.  The subtransaction's abort deletes
-- its files, but core keeps their pending syncs (is_truncated), so under
-- minimal the commit walks the pool for them (FlushRelationsAllBuffers):
-- one flush_pending scan at COMMIT for files that no longer exist.  The
-- subtransaction's abort deletes its files: one drop_pending scan; the
-- TRUNCATE in place walks once for the old contents (drop_rel).  The
-- counts must agree with the uprobes; the commit scan is not attributed to
-- any statement (test/t/013_ghost_sync_attribution.pl, a known bug).
-- @expect minimal: flush_pending=1 drop_rel=1 drop_pending=1
-- @expect replica: drop_rel=1 drop_pending=1
-- @run
SET walload.track = 'all';
SET pg_stat_statements.track = 'all';
BEGIN;
SAVEPOINT s;
CREATE TABLE ghost (id int);
TRUNCATE ghost;
ROLLBACK TO SAVEPOINT s;
COMMIT;

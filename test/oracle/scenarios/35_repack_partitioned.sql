-- REPACK (19) of a partitioned table: each partition is rewritten in a
-- transaction of its own (so it refuses to run inside a transaction block:
-- one ERROR, no scan), its old files dropped at that commit (1 drop scan per
-- partition).  Under minimal the partition above wal_skip_threshold is
-- synced at its commit (1 sync scan); the small one is WAL-logged.  The
-- same with USING INDEX on the partitioned index.
-- @min-version: 19
-- @errors: 1
-- @expect minimal: flush_pending=2 drop_pending=4
-- @expect replica: drop_pending=4
-- @setup
CREATE TABLE rpt (id int, pad text) PARTITION BY RANGE (id);
CREATE TABLE rpt_big PARTITION OF rpt FOR VALUES FROM (1) TO (60001);
CREATE TABLE rpt_small PARTITION OF rpt FOR VALUES FROM (60001) TO (MAXVALUE);
INSERT INTO rpt SELECT g, repeat('p', 50) FROM generate_series(1, 61000) g;
CREATE INDEX rpt_id ON rpt (id);
-- @run
BEGIN;
REPACK rpt;
ROLLBACK;
REPACK rpt;
REPACK rpt USING INDEX rpt_id;
DO $$ BEGIN ASSERT pg_relation_size('rpt_big') > 2 * 1024 * 1024 AND pg_relation_size('rpt_small') < 2 * 1024 * 1024,
  'premise: rpt_big is above wal_skip_threshold, rpt_small below'; END $$;

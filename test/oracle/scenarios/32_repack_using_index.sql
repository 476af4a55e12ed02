-- REPACK ... USING INDEX (19) of a small table, twice in one transaction:
-- first on a named index (which it marks clustered), then USING INDEX
-- without a name (the clustered one).  The second rewrite drops the files
-- the first created in this transaction; every old file goes at commit,
-- in one drop scan.  Below wal_skip_threshold: under minimal the new files
-- are WAL-logged at commit, not synced (no flush scan).
-- @min-version: 19
-- @expect minimal: drop_pending=1
-- @expect replica: drop_pending=1
-- @setup
CREATE TABLE ri (id int, pad text);
INSERT INTO ri SELECT g, 'i' FROM generate_series(1, 5000) g ORDER BY random();
CREATE INDEX ri_id ON ri (id);
-- @run
BEGIN;
REPACK ri USING INDEX ri_id;
DO $$ BEGIN ASSERT (SELECT indisclustered FROM pg_index WHERE indexrelid = 'ri_id'::regclass), 'premise: ri_id is marked clustered'; END $$;
REPACK ri USING INDEX;
COMMIT;
DO $$ BEGIN ASSERT pg_relation_size('ri') < 2 * 1024 * 1024, 'premise: ri is below wal_skip_threshold'; END $$;

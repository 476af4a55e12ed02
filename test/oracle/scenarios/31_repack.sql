-- REPACK (19) of a table of about 4.5 MB with a primary key and a toast
-- table, in the caller's transaction (as CLUSTER of one table): new
-- relfilenodes for the heap, its toast table and the indexes; the old files
-- go at commit (1 drop scan); under minimal the new heap, above
-- wal_skip_threshold, is synced at commit (1 FlushRelationsAllBuffers).
-- @min-version: 19
-- @expect minimal: flush_pending=1 drop_pending=1
-- @expect replica: drop_pending=1
-- @setup
CREATE TABLE rp (id int PRIMARY KEY, pad text);
INSERT INTO rp SELECT g, repeat('r', 50) FROM generate_series(1, 60000) g;
DELETE FROM rp WHERE id % 10 = 0;
-- @run
REPACK rp;
DO $$ BEGIN ASSERT pg_relation_size('rp') > 2 * 1024 * 1024, 'premise: rp is above wal_skip_threshold'; END $$;

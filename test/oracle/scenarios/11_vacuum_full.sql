-- VACUUM FULL of a table of about 4.5 MB with a primary key and a toast
-- table: rewritten into new relfilenodes in its own transaction inside the
-- command; the old files go at that commit (1 drop scan); under minimal the
-- new heap, above wal_skip_threshold, is synced (1 FlushRelationsAllBuffers).
-- @expect minimal: flush_pending=1 drop_pending=1
-- @expect replica: drop_pending=1
-- @setup
CREATE TABLE vf (id int PRIMARY KEY, pad text);
INSERT INTO vf SELECT g, repeat('f', 50) FROM generate_series(1, 60000) g;
DELETE FROM vf WHERE id % 10 = 0;
-- @run
VACUUM FULL vf;
DO $$ BEGIN ASSERT pg_relation_size('vf') > 2 * 1024 * 1024, 'premise: vf is above wal_skip_threshold'; END $$;

-- REPACK (CONCURRENTLY) (19) of a table of about 4.5 MB with a primary key,
-- while the table stays writable: it copies the table into new files, applies
-- the changes made meanwhile by decoding the WAL (a background worker), then
-- swaps the files; the old files go at the commit of the command's last
-- transaction (1 drop scan).  Twice: in physical order, then on the primary
-- key.  It cannot run inside a transaction block.
-- Under minimal it refuses to run ("This operation requires "wal_level" to
-- be set to "replica" or higher", 19rc1): WAL without the information
-- logical decoding needs cannot be decoded.
-- @min-version: 19
-- @skip minimal: REPACK (CONCURRENTLY) needs wal_level replica or higher
-- @expect replica: drop_pending=2
-- @setup
CREATE TABLE rc (id int PRIMARY KEY, pad text);
INSERT INTO rc SELECT g, repeat('c', 50) FROM generate_series(1, 60000) g;
DELETE FROM rc WHERE id % 10 = 0;
-- @run
REPACK (CONCURRENTLY) rc;
REPACK (CONCURRENTLY) rc USING INDEX rc_pkey;
DO $$ BEGIN ASSERT pg_relation_size('rc') > 2 * 1024 * 1024, 'premise: rc is above wal_skip_threshold'; END $$;

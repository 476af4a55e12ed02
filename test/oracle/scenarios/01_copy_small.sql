-- CREATE TABLE + COPY of 1000 small rows in one transaction: below
-- wal_skip_threshold (2MB), so under minimal the commit WAL-logs the new
-- relation (log_newpage_range) instead of syncing it: no scan at any level.
-- @expect minimal: none
-- @expect replica: none
BEGIN;
CREATE TABLE small (id int, pad text);
COPY small FROM PROGRAM 'seq 1 1000 | sed "s/$/,small row/"' WITH (FORMAT csv);
COMMIT;
DO $$ BEGIN ASSERT pg_relation_size('small') < 2 * 1024 * 1024, 'premise: small is below wal_skip_threshold'; END $$;

-- CREATE TABLE + COPY of 100000 rows (about 5 MB, above wal_skip_threshold)
-- in one transaction: under minimal the commit syncs the new relation, one
-- FlushRelationsAllBuffers; under replica it was WAL-logged: no scan.
-- @expect minimal: flush_pending=1
-- @expect replica: none
BEGIN;
CREATE TABLE large (id int, pad text);
COPY large FROM PROGRAM 'seq 1 100000 | sed "s/$/,large row padding/"' WITH (FORMAT csv);
COMMIT;
DO $$ BEGIN ASSERT pg_relation_size('large') > 2 * 1024 * 1024, 'premise: large is above wal_skip_threshold'; END $$;

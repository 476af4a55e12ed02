-- CREATE INDEX on a large existing table: the new index (200000 int keys,
-- about 4.5 MB) is a pending sync above the threshold: under minimal one
-- FlushRelationsAllBuffers at commit; under replica it is WAL-logged.
-- @expect minimal: flush_pending=1
-- @expect replica: none
-- @setup
CREATE TABLE cil (id int, v int);
INSERT INTO cil SELECT g, g % 100 FROM generate_series(1, 200000) g;
-- @run
CREATE INDEX cil_id ON cil (id);
DO $$ BEGIN ASSERT pg_relation_size('cil_id') > 2 * 1024 * 1024, 'premise: cil_id is above wal_skip_threshold'; END $$;

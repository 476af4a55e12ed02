-- A partitioned table created and loaded (150000 rows into two of its three
-- partitions, about 3.5 MB each) in one transaction: under minimal one sync
-- scan at commit.  TRUNCATE of the partitioned table: new relfilenodes for
-- every partition, the old files dropped at commit (1 drop scan); DROP
-- TABLE: 1 drop scan.  The parent has no storage.
-- @expect minimal: flush_pending=1 drop_pending=2
-- @expect replica: drop_pending=2
BEGIN;
CREATE TABLE pt (id int, doc text) PARTITION BY RANGE (id);
CREATE TABLE pt_1 PARTITION OF pt FOR VALUES FROM (1) TO (75001);
CREATE TABLE pt_2 PARTITION OF pt FOR VALUES FROM (75001) TO (150001);
CREATE TABLE pt_3 PARTITION OF pt FOR VALUES FROM (150001) TO (MAXVALUE);
COPY pt FROM PROGRAM 'seq 1 150000 | sed "s/$/,partition row/"' WITH (FORMAT csv);
COMMIT;
DO $$ BEGIN ASSERT pg_relation_size('pt_1') > 2 * 1024 * 1024, 'premise: pt_1 is above wal_skip_threshold'; END $$;
TRUNCATE pt;
DROP TABLE pt;

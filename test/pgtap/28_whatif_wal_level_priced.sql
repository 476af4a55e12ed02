-- clusters: replica minimal
-- walload_findings(), wal_level = minimal priced (whatif.c,
-- wl_whatif_minimal): under replica, the WAL of the statements that load a
-- table created in their transaction is what minimal would not write,
-- priced per block; less the commit-time sync (or WAL-logging) of the new
-- file that minimal adds.  Positive: on the replica cluster, CREATE TABLE
-- and a 100,000-row INSERT in one transaction: the WAL finding carries
-- wal_level = minimal with a saving.  Negative: the same rows into a table
-- created before (nothing minimal would skip: offered, unpriced); with a
-- replication slot (not offered); on the cluster already at minimal (not
-- offered).  Unit costs fixed (a WAL or data block 0.1 ms to write and to
-- sync, others 100 ns): rules, never a timed figure.
\ir 00_helpers.inc
SELECT plan(5);
SET walload.unit_costs = 'others=100, write_ns_per_block=1e5, fsync_ns_per_block=1e5, fsync_ns_per_file=1e6';
SELECT current_setting('wal_level') = 'replica' AS replica \gset
CREATE TABLE wp0 (a int, b text);

SELECT walload_reset();
BEGIN; CREATE TABLE wp1 (a int, b text);
INSERT INTO wp1 SELECT g, repeat('w', 40) FROM generate_series(1, 100000) g; COMMIT;
CREATE TEMP TABLE d1 AS SELECT * FROM walload_findings();
SELECT is((SELECT count(*) FROM d1 WHERE setting = 'wal_level' AND value = 'minimal' AND saving_ms > 0
           AND hint LIKE 'wal_level = minimal: %MB of WAL fewer' AND detail LIKE '%would not be written%'),
          CASE WHEN :'replica' THEN 1 ELSE 0 END::bigint,
          CASE WHEN :'replica' THEN 'replica: the load into its new table prices wal_level = minimal'
               ELSE 'minimal already: not offered' END);

SELECT walload_reset();
INSERT INTO wp0 SELECT g, repeat('w', 40) FROM generate_series(1, 100000) g;
CREATE TEMP TABLE d2 AS SELECT * FROM walload_findings();
SELECT is((SELECT count(*) FROM d2 WHERE setting = 'wal_level' AND saving_ms IS NOT NULL), 0::bigint,
          'rows into a table created before: nothing minimal would skip, no saving');

\if :replica
SELECT 1 FROM pg_create_physical_replication_slot('whatif_priced') \g /dev/null
SELECT walload_reset();
BEGIN; CREATE TABLE wp2 (a int, b text);
INSERT INTO wp2 SELECT g, repeat('w', 40) FROM generate_series(1, 100000) g; COMMIT;
CREATE TEMP TABLE d3 AS SELECT * FROM walload_findings();
SELECT is((SELECT count(*) FROM d3 WHERE setting = 'wal_level'), 0::bigint,
          'with a replication slot (a standby configured): not offered');
SELECT is((SELECT count(*) FROM d3 WHERE detail LIKE '%would not be written%'), 0::bigint,
          'nor priced in the words');
SELECT pg_drop_replication_slot('whatif_priced') \g /dev/null
DROP TABLE wp2;
\else
SELECT pass('wal_level=minimal already: no replication slot can be made');
SELECT pass('nor priced in the words');
\endif
SELECT is((SELECT count(*) FROM d1 WHERE finding LIKE 'verdict:%'), 1::bigint, 'one verdict row');

RESET walload.unit_costs;
DROP TABLE wp0, wp1;
SELECT * FROM finish();

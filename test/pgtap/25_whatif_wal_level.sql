-- clusters: replica minimal
-- walload_findings(), wal_level=minimal only where the server could run it
-- (whatif.c): not where WAL is streamed or archived.  On the replica
-- cluster, nothing streams: the WAL finding offers wal_level = minimal as
-- data.  With a replication slot (a standby configured) it must not; nor
-- on the cluster that already runs wal_level=minimal.  Rules only.
\ir 00_helpers.inc
SELECT plan(3);
CREATE TABLE wl (a int);
SELECT current_setting('wal_level') = 'replica' AS replica \gset

SELECT walload_reset();
INSERT INTO wl SELECT generate_series(1, 1000);
SELECT is((SELECT count(*) FROM walload_findings() WHERE setting = 'wal_level' AND value = 'minimal'
           AND shape IS NULL),
          CASE WHEN :'replica' THEN 1 ELSE 0 END::bigint,
          CASE WHEN :'replica' THEN 'wal_level = minimal offered where nothing streams or archives WAL'
               ELSE 'not offered where wal_level is minimal already' END);

\if :replica
SELECT 1 FROM pg_create_physical_replication_slot('whatif_standby') \g /dev/null
SELECT walload_reset();
INSERT INTO wl SELECT generate_series(1, 1000);
SELECT is((SELECT count(*) FROM walload_findings() WHERE setting = 'wal_level'), 0::bigint,
          'with a replication slot (a standby configured): not offered');
SELECT is((SELECT count(*) FROM walload_findings() WHERE hint LIKE '%minimal would%' OR detail LIKE '%wal_level=minimal (with%'),
          0::bigint, 'nor in the words');
SELECT pg_drop_replication_slot('whatif_standby') \g /dev/null

\else
SELECT pass('wal_level=minimal already: no replication slot can be made');
SELECT pass('nor offered in the words');
\endif

DROP TABLE wl;
SELECT * FROM finish();

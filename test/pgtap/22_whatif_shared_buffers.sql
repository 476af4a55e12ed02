-- clusters: bigbuf minimal
-- walload_diagnose(), shared_buffers for the load (whatif.c): a walk of the
-- pool visits every buffer header, so its price is per header times
-- shared_buffers (cost.c).  The walks no other finding's change removes are
-- priced at 128MB.  On the cluster with 320MB (bigbuf) the finding names
-- shared_buffers = 128MB; on one with 128MB (minimal) it must not appear.
-- Three DROP TABLEs, each a walk at commit; unit costs fixed (100 ns
-- each): counts, never a timed figure.
\ir 00_helpers.inc
SELECT plan(4);
CREATE TABLE sb1 (a int); CREATE TABLE sb2 (a int); CREATE TABLE sb3 (a int);
SET walload.unit_costs = 'others=100';
SELECT walload_reset();
DROP TABLE sb1;
DROP TABLE sb2;
DROP TABLE sb3;
CREATE TEMP TABLE d1 AS SELECT * FROM walload_diagnose();
SELECT current_setting('shared_buffers') <> '128MB' AS big \gset

SELECT is((SELECT sum(full_scans)::int FROM walload_xacts WHERE outcome = 'commit' AND dropped_rels > 0), 3,
          'three DROPs, a walk each');
SELECT is((SELECT count(*) FROM d1 WHERE setting = 'shared_buffers' AND value = '128MB'
           AND shape IS NULL AND saving_ms > 0),
          CASE WHEN :'big' THEN 1 ELSE 0 END::bigint,
          CASE WHEN :'big' THEN 'shared_buffers = 128MB offered at ' ELSE 'not offered at ' END
          || current_setting('shared_buffers'));
-- the walks the DROPs in one transaction remove are not priced again
SELECT ok(NOT :'big' OR
          (SELECT saving_ms FROM d1 WHERE setting = 'shared_buffers') <
          (SELECT sum(est_scan_ms) FROM walload_xacts)::numeric
          * (1 - 16384.0 / (SELECT setting::int FROM pg_settings WHERE name = 'shared_buffers')),
          'less than all three walks at the smaller pool: those one transaction of DROPs removes are not counted again');
SELECT ok(NOT :'big' OR (SELECT shape FROM d1 WHERE finding LIKE 'file deletion%') = 'drop_in_one_transaction',
          'the DROPs themselves: drop_in_one_transaction');

RESET walload.unit_costs;
SELECT * FROM finish();

-- clusters: bigbuf minimal
-- walload_findings(), shared_buffers for the load (whatif.c): what the
-- change alone saves, as core would run the load at 128MB.  Every walk of
-- the pool, of every kind (here the DROPs' deletion walks and an in-place
-- truncation's), visits each buffer header; at 128MB it visits 16384.  With
-- every unit cost 100 ns a header and no page fault priced, the rule:
-- saving_ms = walks x (NBuffers - 16384) x 100 ns.  On the cluster with
-- 320MB (bigbuf) the finding names shared_buffers = 128MB; on one with
-- 128MB (minimal) it must not appear.  Counts, never a timed figure.
\ir 00_helpers.inc
SELECT plan(6);
CREATE TABLE sb1 (a int); CREATE TABLE sb2 (a int); CREATE TABLE sb3 (a int);
SET walload.unit_costs = 'others=100,fault_ns_per_page=0';
SELECT walload_reset();
DROP TABLE sb1;
DROP TABLE sb2;
DROP TABLE sb3;
BEGIN;
CREATE TABLE sb4 (a int);
TRUNCATE sb4;
COMMIT;
CREATE TEMP TABLE d1 AS SELECT * FROM walload_findings();
SELECT current_setting('shared_buffers') <> '128MB' AS big \gset
SELECT sum(full_scans) AS walks, sum(scans_drop_rel) AS truncation_walks FROM walload_xacts \gset
SELECT setting::int AS nbuffers FROM pg_settings WHERE name = 'shared_buffers' \gset

SELECT is((SELECT sum(full_scans)::int FROM walload_xacts WHERE outcome = 'commit' AND dropped_rels > 0), 3,
          'three DROPs, a walk each');
SELECT cmp_ok(:truncation_walks::int, '>=', 1, 'and an in-place truncation walk');
SELECT is((SELECT count(*) FROM d1 WHERE setting = 'shared_buffers' AND value = '128MB'
           AND change = 'shared_buffers = ''128MB''' AND shape IS NULL AND saving_ms > 0),
          CASE WHEN :'big' THEN 1 ELSE 0 END::bigint,
          CASE WHEN :'big' THEN 'shared_buffers = 128MB offered at ' ELSE 'not offered at ' END
          || current_setting('shared_buffers'));
-- every walk, those the other changes remove too, at the smaller pool
SELECT is((SELECT saving_ms FROM d1 WHERE setting = 'shared_buffers'),
          CASE WHEN :'big' THEN round(:walks * (:nbuffers - 16384) * 100 / 1e6, 1) END,
          'saving_ms = ' || :walks || ' walks x ' || (:nbuffers - 16384) || ' headers fewer x 100 ns');
SELECT ok(NOT :'big' OR (SELECT shape FROM d1 WHERE finding LIKE 'file deletion%') = 'drop_in_one_transaction',
          'the DROPs themselves: drop_in_one_transaction');
-- the walks one transaction of DROPs removes are in both savings: the
-- verdict's "all together" counts them once
SELECT ok(NOT :'big' OR
          (SELECT (regexp_match(evidence, 'all [0-9]+: ([0-9.]+) ms'))[1]::numeric FROM d1 WHERE finding LIKE 'verdict:%')
          < (SELECT sum(saving_ms) FROM d1),
          'the verdict''s sum of all changes leaves out what shared_buffers saves on walks other changes remove');

RESET walload.unit_costs;
SELECT * FROM finish();

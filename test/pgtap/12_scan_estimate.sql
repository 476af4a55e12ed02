-- clusters: replica
-- est_scan_ms of walks of the pool, one per DROP TABLE at commit, in one
-- session: every walk is priced cold, as the calibration timed it, and the
-- session's first walk also pays the page faults of mapping the buffer
-- header pages (cost.c wl_scans_est_ns).  Nothing a walk before it
-- left in the CPU cache and nothing the server's commits taught changes an
-- estimate (both were tried and dropped: docs/benchmarks.md, "Ablation of
-- est_scan_ms's pricing"), so four walks of four equal tables, the reads of
-- a large table between two of them or not, are estimated alike.  Estimates,
-- not measurements: the estimate's accuracy against the real walks is the
-- uprobe oracle's.  Each table holds 100 blocks, written to disk by a
-- CHECKPOINT; the 100 buffers each walk invalidates are priced alike for
-- every table.  The walks run in a new session (\c).
\ir 00_helpers.inc

CREATE TABLE e0 AS SELECT g AS a FROM generate_series(1, 22600) g;
CREATE TABLE e1 AS SELECT g AS a FROM generate_series(1, 22600) g;
CREATE TABLE e2 AS SELECT g AS a FROM generate_series(1, 22600) g;
CREATE TABLE e3 AS SELECT g AS a FROM generate_series(1, 22600) g;
CREATE TABLE e4 AS SELECT g AS a FROM generate_series(1, 22600) g;
CREATE TABLE big AS SELECT g FROM generate_series(1, 200000) g;
CHECKPOINT;
\c
SELECT plan(4);
SELECT walload_reset();
SET max_parallel_workers_per_gather = 0;

-- one walk each, at commit (DropRelFileNodesAllBuffers for one file)
DROP TABLE e0;
DROP TABLE e1;
DROP TABLE e2;
SELECT count(*) FROM big \g /dev/null
DROP TABLE e3;
SELECT pg_sleep(0.2);
DROP TABLE e4;

SELECT is((SELECT sum(x.full_scans) FROM walload_xacts x JOIN walload_statements s USING (xact_id)
           WHERE s.pid = pg_backend_pid() AND s.query LIKE 'DROP TABLE e%'),
          5::numeric, 'each DROP TABLE walked the pool once');
SELECT cmp_ok((xact_of('DROP TABLE e1')).est_scan_ms, '>', 0::float8,
              'a walk has an estimate');
SELECT ok(max(x.est_scan_ms) - min(x.est_scan_ms) < 1e-6,
          'the walks after the first are estimated alike, whatever came between them: '
          || string_agg(round(x.est_scan_ms::numeric, 4)::text, ', ' ORDER BY s.query))
  FROM walload_xacts x JOIN walload_statements s USING (xact_id)
 WHERE s.pid = pg_backend_pid() AND s.query IN ('DROP TABLE e1', 'DROP TABLE e2', 'DROP TABLE e3', 'DROP TABLE e4');
SELECT cmp_ok((xact_of('DROP TABLE e0')).est_scan_ms, '>=', (xact_of('DROP TABLE e1')).est_scan_ms,
              'the first walk costs at least as much: it maps the header pages');

SELECT * FROM finish();

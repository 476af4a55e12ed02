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
-- every table (on 16 and later, the blocks the table was extended by).  The walks run in a new session (\c), priced with fixed
-- unit costs (walload.unit_costs: 2 ns a buffer header in the deletion's
-- walk of one file, 1 ns in the one-file walks, which it must not use,
-- 10 ns an invalidation, 1 us a header page mapped, nothing else), so that
-- each estimate is its counts at those prices, whatever the calibration
-- timed.
\ir 00_helpers.inc

CREATE TABLE e0 AS SELECT g AS a FROM generate_series(1, 22600) g;
CREATE TABLE e1 AS SELECT g AS a FROM generate_series(1, 22600) g;
CREATE TABLE e2 AS SELECT g AS a FROM generate_series(1, 22600) g;
CREATE TABLE e3 AS SELECT g AS a FROM generate_series(1, 22600) g;
CREATE TABLE e4 AS SELECT g AS a FROM generate_series(1, 22600) g;
CREATE TABLE big AS SELECT g FROM generate_series(1, 200000) g;
CHECKPOINT;
SELECT pg_relation_size('e1') / current_setting('block_size')::int AS e1_main,
       (pg_relation_size('e1') + pg_relation_size('e1', 'fsm') + pg_relation_size('e1', 'vm')
        + pg_relation_size('e1', 'init')) / current_setting('block_size')::int AS e1_all \gset
\c
SELECT plan(5);
SELECT walload_reset();
SET max_parallel_workers_per_gather = 0;
SET walload.unit_costs = 'others=0, walk_ns_per_buffer=1, drop_walk_ns_per_buffer_1=2, invalidate_ns_per_buffer=10, fault_ns_per_page=1000';

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
-- the buffers it invalidates: the table's blocks, which 16 and later may
-- have extended past the 100 its rows fill (relation extension by many
-- blocks at once); a whole number of them, at least its main fork's
SELECT ok(k = round(k) AND k >= :e1_main AND k <= :e1_all,
          'a walk after the first: its buffer headers at 2 ns, its table''s buffers invalidated at 10 ns ('
          || k || ' buffers; the table has ' || :e1_main || ' blocks, ' || :e1_all || ' with its other forks)')
  FROM (SELECT round((((xact_of('DROP TABLE e1')).est_scan_ms * 1e6
                       - (SELECT setting::int FROM pg_settings WHERE name = 'shared_buffers') * 2) / 10)::numeric, 6) AS k) s;
SELECT ok(max(x.est_scan_ms) - min(x.est_scan_ms) < 1e-6,
          'the walks after the first are estimated alike, whatever came between them: '
          || string_agg(round(x.est_scan_ms::numeric, 4)::text, ', ' ORDER BY s.query))
  FROM walload_xacts x JOIN walload_statements s USING (xact_id)
 WHERE s.pid = pg_backend_pid() AND s.query IN ('DROP TABLE e1', 'DROP TABLE e2', 'DROP TABLE e3', 'DROP TABLE e4');
SELECT cmp_ok((xact_of('DROP TABLE e0')).est_scan_ms, '>', (xact_of('DROP TABLE e1')).est_scan_ms,
              'the first walk costs more: it maps the header pages');
-- what it adds is a whole number of header pages at 1 us, at most all of them
-- (64-byte headers, pages of 4 kB or more)
SELECT ok(d = round(d) AND d >= 1
          AND d <= ceil((SELECT setting::bigint FROM pg_settings WHERE name = 'shared_buffers') * 64 / 4096.0) + 1,
          'the first walk''s surplus is its header pages at 1 us each (' || d || ')')
  FROM (SELECT round((((xact_of('DROP TABLE e0')).est_scan_ms - (xact_of('DROP TABLE e1')).est_scan_ms) * 1000)::numeric, 6) AS d) s;

SELECT * FROM finish();

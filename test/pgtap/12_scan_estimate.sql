-- clusters: replica
-- est_scan_ms of a walk that follows the backend's previous one: the buffer
-- headers (1 MB at shared_buffers=128MB) are partly still in the CPU cache,
-- and the estimate takes the share the pages touched since left there
-- (scan_cost.c, wl_headers_cached).  After reading more blocks than the
-- CPU's last-level cache holds (twice it, as walload reads its size) the
-- share is 0: the walk is estimated cold, by the same formula each time.
-- How much a walk is priced as cached depends on the time between walks
-- (on CPU and in all): bench/ (cacheshare) shows it, beside the measured
-- walks; this checks that each walk is counted and estimated.  The
-- estimate's accuracy against the real walks is the uprobe oracle's.
--
-- Estimates, not measurements: est_scan_ms is the estimate made when the
-- walk is counted, never restated from the time its commit took.  Each
-- table holds 100 blocks, written to disk by a CHECKPOINT; the 100 buffers
-- each walk invalidates are priced alike for every table.
--
-- The session's first walk maps the header pages, and the walk right after
-- that one is estimated cold (scan_cost.c with_mapped): e0 maps them, e1
-- follows, e2 follows e1.  The walks run in a new session (\c), since a
-- backend can map the header pages without walking (looking for a free
-- buffer in a full pool reads headers): after the earlier pgTAP files, the
-- set-up's session had mapped them all (e0 then mapped none, and e1 was
-- priced as a walk after another).  The reads are the backend's own (no
-- parallel workers).
\ir 00_helpers.inc

CREATE TABLE e0 AS SELECT g AS a FROM generate_series(1, 22600) g;
CREATE TABLE e1 AS SELECT g AS a FROM generate_series(1, 22600) g;
CREATE TABLE e2 AS SELECT g AS a FROM generate_series(1, 22600) g;
CREATE TABLE e3 AS SELECT g AS a FROM generate_series(1, 22600) g;
CREATE TABLE e4 AS SELECT g AS a FROM generate_series(1, 22600) g;
CREATE TABLE big AS SELECT g FROM generate_series(1, 2000000) g;
CHECKPOINT;
-- the last-level cache as walload reads it (scan_cost.c
-- last_level_cache_bytes: the largest cache of cpu0, 256 MB where the kernel
-- does not say), and how many reads of big make twice it
WITH c AS (SELECT substring(pg_read_file('/sys/devices/system/cpu/cpu0/cache/index' || i || '/size', 0, 64, true)
                            FROM '^([0-9]+)K')::bigint * 1024 AS bytes
           FROM generate_series(0, 7) i)
SELECT 2 * coalesce(max(bytes), 256 * 1024 * 1024) / pg_relation_size('big') + 1 AS big_reads FROM c \gset
\c
SELECT plan(3);
SELECT walload_reset();
SET max_parallel_workers_per_gather = 0;

-- one walk each, at commit (DropRelFileNodesAllBuffers for one file)
DROP TABLE e0;
DROP TABLE e1;
DROP TABLE e2;
SELECT format('DO $d$ BEGIN FOR i IN 1 .. %s LOOP PERFORM count(*) FROM big; END LOOP; END $d$', :big_reads) \gexec
DROP TABLE e3;
SELECT format('DO $d$ BEGIN FOR i IN 1 .. %s LOOP PERFORM count(*) FROM big; END LOOP; END $d$', :big_reads) \gexec
DROP TABLE e4;

SELECT is((SELECT sum(x.full_scans) FROM walload_xacts x JOIN walload_statements s USING (xact_id)
           WHERE s.pid = pg_backend_pid() AND s.query LIKE 'DROP TABLE e%'),
          5::numeric, 'each DROP TABLE walked the pool once');
SELECT cmp_ok((xact_of('DROP TABLE e2')).est_scan_ms, '>', 0::float8,
              'the walk right after another has an estimate');
-- Which of these walks is priced as finding part of the headers cached,
-- and so which is dearer, is not asserted here: the estimate takes what the
-- server's commits taught of the walks (a timed ratio), so comparing two
-- walks' estimates depends on the machine's speed and load (one run on 17
-- found the two walks after reading twice the cache 22% apart).
-- bench/run.py --only cacheshare prints each case's share and estimate.
SELECT is((SELECT count(*) FROM walload_xacts x JOIN walload_statements s USING (xact_id)
           WHERE s.pid = pg_backend_pid() AND s.query LIKE 'DROP TABLE e%' AND x.est_scan_ms > 0),
          5::bigint, 'each of the five walks has an estimate');

SELECT * FROM finish();

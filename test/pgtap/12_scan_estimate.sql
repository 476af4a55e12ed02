-- clusters: replica
-- est_scan_ms of a walk that follows the backend's previous one: the buffer
-- headers (1 MB at shared_buffers=128MB) are partly still in the CPU cache,
-- and the estimate takes the share the pages touched since left there
-- (scan_cost.c, wl_headers_cached).  After a read of about 70 MB of pages
-- the share is 0: the walk is estimated cold, by the same formula each time.
-- The estimate's accuracy against the real walks is the uprobe oracle's
-- (test/oracle); this checks which formula each walk gets.
--
-- Estimates, not measurements: a commit's deletion walk estimated at 0.2 ms
-- or more, and at 80% of the deletion or more, is recorded as measured
-- (scan_cost.c wl_commit_walk_measured_ns).  An empty table's walk at 128MB
-- is most of its deletion, and on a host whose walk calibrates above about
-- 12 ns a header it is 0.2 ms: one run on PostgreSQL 16 recorded 0.39 and
-- 0.29 ms for the two cold walks, and 0.25 for the first (estimated).  So
-- each table holds 100 blocks, written to disk by a CHECKPOINT: their
-- deletion (about 0.4 ms here) keeps each walk below 80% of it.  The 100
-- buffers each walk invalidates are priced alike for every table.
--
-- The session's first walk maps the header pages, and the walk right after
-- that one is estimated cold (scan_cost.c with_mapped): e0 maps them, e1
-- follows, e2 follows e1.  The walks run in a new session (\c), since a
-- backend can map the header pages without walking (looking for a free
-- buffer in a full pool reads headers): after the earlier pgTAP files, the
-- set-up's session had mapped them all (e0 then mapped none, and e1 was
-- priced as a walk after another).  The reads are the backend's own (no parallel workers): 70 MB
-- of blocks and their time on CPU leave no share of the cache.
\ir 00_helpers.inc

CREATE TABLE e0 AS SELECT g AS a FROM generate_series(1, 22600) g;
CREATE TABLE e1 AS SELECT g AS a FROM generate_series(1, 22600) g;
CREATE TABLE e2 AS SELECT g AS a FROM generate_series(1, 22600) g;
CREATE TABLE e3 AS SELECT g AS a FROM generate_series(1, 22600) g;
CREATE TABLE e4 AS SELECT g AS a FROM generate_series(1, 22600) g;
CREATE TABLE big AS SELECT g FROM generate_series(1, 2000000) g;
CHECKPOINT;
\c
SELECT plan(6);
SELECT walload_reset();
SET max_parallel_workers_per_gather = 0;

-- one walk each, at commit (DropRelFileNodesAllBuffers for one file)
DROP TABLE e0;
DROP TABLE e1;
DROP TABLE e2;
SELECT count(*) > 0 AS read_big FROM big \gset
DROP TABLE e3;
SELECT count(*) > 0 AS read_big FROM big \gset
DROP TABLE e4;

SELECT is((SELECT sum(x.full_scans) FROM walload_xacts x JOIN walload_statements s USING (xact_id)
           WHERE s.pid = pg_backend_pid() AND s.query LIKE 'DROP TABLE e%'),
          5::numeric, 'each DROP TABLE walked the pool once');
SELECT cmp_ok((xact_of('DROP TABLE e2')).est_scan_ms, '>', 0::float8,
              'the walk right after another has an estimate');
SELECT cmp_ok((xact_of('DROP TABLE e2')).est_scan_ms, '<', (xact_of('DROP TABLE e3')).est_scan_ms,
              'the walk right after another is estimated below one after a 70 MB read (headers partly cached)');
-- alike, not equal to the last digit: a share left cached is what differs,
-- and where the read alone leaves one (a cache larger than 70 MB, the read
-- run by parallel workers: PostgreSQL 18 on a 300 MB-cache host, 0.150 and
-- 0.137 ms) the time it took leaves none where the machine evicts the
-- headers in that time (scan_cost.c kept_after)
SELECT cmp_ok(abs((xact_of('DROP TABLE e3')).est_scan_ms - (xact_of('DROP TABLE e4')).est_scan_ms) /
              (xact_of('DROP TABLE e4')).est_scan_ms, '<', 0.02::float8,
              'two walks after a 70 MB read each are estimated alike: cold, no share cached');
-- no cheaper, not equal: from PostgreSQL 19 on, the 70 MB read evicts the
-- tables' buffers (e3 and e4 invalidate none, e1 128)
SELECT cmp_ok((xact_of('DROP TABLE e1')).est_scan_ms, '>=', 0.98 * (xact_of('DROP TABLE e3')).est_scan_ms,
              'the walk right after the one that mapped the header pages is estimated cold: no cheaper than one after a 70 MB read');
SELECT cmp_ok((xact_of('DROP TABLE e0')).est_scan_ms, '>=', (xact_of('DROP TABLE e3')).est_scan_ms,
              'the session''s first walk is estimated no cheaper than a cold one (it also maps the header pages)');

SELECT * FROM finish();

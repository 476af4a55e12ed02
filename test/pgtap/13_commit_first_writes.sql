-- clusters: minimal
-- The commit's first writes (cost.c, wl_commit_est): a commit that
-- WAL-logs new files whole copies their pages into WAL buffer pages that
-- this backend may never have written (a process maps a page of shared
-- memory at its first touch), and a backend's first such commit also has
-- core allocate its WAL record space for 32 blocks.  Each transaction below
-- creates one table of one block and switches to a new WAL segment just
-- before COMMIT (the switch flushes the WAL: nothing is left unflushed, so
-- the predictions differ only where the first writes do).  The prediction's
-- accuracy against the commits is bench/ (predict); this checks which
-- terms each commit gets, with the unit costs fixed (walload.unit_costs):
-- 1 ms for the record space, 1 us a WAL buffer page mapped, 1 ns a page
-- image, nothing else, whatever the calibration timed.
\ir 00_helpers.inc
SELECT plan(7);
SET walload.unit_costs = 'others=0, record_space_ns=1e6, wal_fault_ns_per_page=1000, fpi_ns_per_block=1';

BEGIN;
CREATE TABLE f1 (a int);
INSERT INTO f1 VALUES (1);
SELECT pg_switch_wal() IS NOT NULL AS switched \gset
COMMIT;

BEGIN;
CREATE TABLE f2 (a int);
INSERT INTO f2 VALUES (1);
SELECT pg_switch_wal() IS NOT NULL AS switched \gset
COMMIT;

BEGIN;
CREATE TABLE f3 (a int);
INSERT INTO f3 VALUES (1);
SELECT pg_switch_wal() IS NOT NULL AS switched \gset
COMMIT;

-- more WAL than the WAL buffers hold (4 MB at shared_buffers=128MB): every
-- page of them is mapped in this backend afterwards (a table created in a
-- transaction of its own: its rows are WAL-logged as they are inserted)
CREATE TABLE logged (a int, b text);
INSERT INTO logged SELECT g, repeat('w', 100) FROM generate_series(1, 60000) g;

BEGIN;
CREATE TABLE f4 (a int);
INSERT INTO f4 VALUES (1);
SELECT pg_switch_wal() IS NOT NULL AS switched \gset
COMMIT;

SELECT is(ARRAY[(xact_of('CREATE TABLE f1')).wal_logged_rels, (xact_of('CREATE TABLE f2')).wal_logged_rels,
                (xact_of('CREATE TABLE f3')).wal_logged_rels, (xact_of('CREATE TABLE f4')).wal_logged_rels],
          ARRAY[1, 1, 1, 1], 'each commit WAL-logged its new file whole');
SELECT cmp_ok((xact_of('CREATE TABLE f1')).pred_commit_ms, '>', (xact_of('CREATE TABLE f2')).pred_commit_ms,
              'the backend''s first commit that WAL-logs a file is predicted dearer (core allocates its record space)');
SELECT ok(abs((xact_of('CREATE TABLE f1')).pred_commit_ms - (xact_of('CREATE TABLE f2')).pred_commit_ms - 1) < 1e-9,
          'by the record space''s price exactly (1 ms)');
SELECT is((xact_of('CREATE TABLE f2')).pred_commit_ms, (xact_of('CREATE TABLE f3')).pred_commit_ms,
          'the second and third such commits are predicted alike');
SELECT ok(pg_size_bytes(current_setting('wal_buffers')) < (SELECT sum(wal_bytes) FROM walload_statements
                                                         WHERE pid = pg_backend_pid() AND query LIKE 'INSERT INTO logged%'),
          'the INSERT wrote more WAL than the WAL buffers hold');
SELECT cmp_ok((xact_of('CREATE TABLE f4')).pred_commit_ms, '<', (xact_of('CREATE TABLE f3')).pred_commit_ms,
              'after it, the images go to WAL buffer pages the backend has mapped: predicted cheaper');
SELECT cmp_ok((xact_of('CREATE TABLE f4')).pred_commit_ms, '>', 0::float8, 'the last still has its page image priced');

SELECT * FROM finish();

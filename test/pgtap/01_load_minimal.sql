-- Cluster: wal_level=minimal.  Scan counts that core's code makes certain.
\ir 00_helpers.inc
SELECT plan(16);

-- a load above wal_skip_threshold (2MB) into a table created in the same transaction
SELECT walload_reset();
BEGIN;
CREATE TABLE big (id int, pad text);
INSERT INTO big SELECT g, repeat('x', 100) FROM generate_series(1, 50000) g;
COMMIT;
SELECT is((xact_of('CREATE TABLE big')).scans_flush_pending, 1::bigint,
          'minimal: commit after loading a new table above wal_skip_threshold syncs it after one scan');
SELECT cmp_ok((xact_of('CREATE TABLE big')).synced_rels, '>=', 1,
              'the synced relation is reported');
SELECT is((SELECT scans_flush_pending FROM walload_statements WHERE pid = pg_backend_pid() AND command = 'CREATE TABLE'), 1::bigint,
          'the commit-time sync is attributed to the CREATE TABLE that scheduled it');
SELECT ok((SELECT wal_skipped FROM walload_statements WHERE pid = pg_backend_pid() AND command = 'INSERT'),
          'the INSERT wrote into a relation that skips WAL');

-- a small load: WAL-logged at commit, no scan
SELECT walload_reset();
BEGIN;
CREATE TABLE small (id int);
INSERT INTO small SELECT generate_series(1, 100);
COMMIT;
SELECT is((xact_of('CREATE TABLE small')).full_scans, 0::bigint,
          'a new table below wal_skip_threshold is WAL-logged at commit, no scan');
SELECT cmp_ok((xact_of('CREATE TABLE small')).wal_logged_rels, '>=', 1,
              'the WAL-logged relation is reported');

-- a standalone DROP TABLE: one scan at commit, and the commit phase is timed
SELECT walload_reset();
DROP TABLE small;
SELECT is((xact_of('DROP TABLE small')).scans_drop_pending, 1::bigint,
          'DROP TABLE of a permanent table: one file-deletion scan');
SELECT cmp_ok((xact_of('DROP TABLE small')).commit_ms, '>', 0::float8,
              'commit_ms > 0 for a standalone DROP (pg_stat_statements never sees this phase)');

-- temporary tables never scan the shared pool
SELECT walload_reset();
CREATE TEMP TABLE tmp (id int);
INSERT INTO tmp SELECT generate_series(1, 1000);
TRUNCATE tmp;
DROP TABLE tmp;
SELECT is((SELECT coalesce(sum(full_scans), 0) FROM walload_xacts WHERE pid = pg_backend_pid()), 0::numeric,
          'temporary table create/load/truncate/drop: no scans');

-- ROLLBACK of a transaction that created a table
SELECT walload_reset();
BEGIN;
CREATE TABLE gone (id int);
ROLLBACK;
SELECT is((SELECT outcome || ':' || scans_drop_pending FROM xact_of('CREATE TABLE gone ')), 'abort:1',
          'ROLLBACK after CREATE TABLE: outcome abort, one file-deletion scan');

-- an error aborts too
SELECT walload_reset();
\set ON_ERROR_STOP 0
BEGIN;
CREATE TABLE gone2 (id int);
SELECT 1/0;
ROLLBACK;
SELECT is((SELECT outcome || ':' || scans_drop_pending FROM xact_of('CREATE TABLE gone2')), 'abort:1',
          'error after CREATE TABLE: outcome abort, one file-deletion scan');

-- TRUNCATE of a table created in the same transaction: heap, index, toast heap, toast index in place
SELECT walload_reset();
BEGIN;
CREATE TABLE tr (id int PRIMARY KEY, doc text);
INSERT INTO tr SELECT g, 'x' FROM generate_series(1, 10) g;
TRUNCATE tr;
COMMIT;
SELECT is((SELECT scans_drop_rel FROM walload_statements WHERE pid = pg_backend_pid() AND command = 'TRUNCATE TABLE'), 4::bigint,
          'TRUNCATE of a same-transaction table with an index and TOAST: 4 in-place truncations');
SELECT is((xact_of('CREATE TABLE tr')).scans_flush_pending, 1::bigint,
          'a truncated pending sync is synced at commit whatever its size');

-- TRUNCATE of an older table: new files, old ones deleted at commit
SELECT walload_reset();
TRUNCATE tr;
SELECT is((SELECT scans_drop_rel || ':' || scans_drop_pending FROM xact_of('TRUNCATE tr')), '0:1',
          'TRUNCATE of an existing table: no in-place truncation, one deletion scan at commit');

-- one DROP of several tables: one scan
SELECT walload_reset();
CREATE TABLE d1 (a int); CREATE TABLE d2 (a int); CREATE TABLE d3 (a int);
SELECT walload_reset();
DROP TABLE d1, d2, d3, tr, big;
SELECT is((xact_of('DROP TABLE d1')).scans_drop_pending, 1::bigint,
          'DROP of five tables in one statement: one scan');
SELECT is((SELECT full_scans FROM walload_info), 1::bigint,
          'walload_info totals agree');
SELECT * FROM finish();

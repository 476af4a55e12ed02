-- clusters: minimal replica
-- Full shared-buffer scans whose number core's code makes certain, under
-- wal_level=minimal and replica (the expectation differs only where the
-- commit-time sync of a new relation is concerned).
\ir 00_helpers.inc
SELECT current_setting('wal_level') = 'minimal' AS minimal \gset
SELECT plan(26);

-- CREATE TABLE + COPY of > 2MB (wal_skip_threshold) in one transaction:
-- minimal skips WAL and syncs the new file at commit, after one scan;
-- replica WAL-logs the rows and syncs nothing
SELECT walload_reset();
BEGIN;
CREATE TABLE big (id int, pad text DEFAULT repeat('x', 100));
COPY big (id) FROM PROGRAM 'seq 1 50000';
COMMIT;
SELECT cmp_ok(pg_table_size('big'), '>', 2 * 1024 * 1024::bigint, 'the COPY loaded more than wal_skip_threshold (2MB)');
SELECT is((xact_of('CREATE TABLE big')).scans_flush_pending, CASE WHEN :'minimal'::bool THEN 1 ELSE 0 END::bigint,
          CASE WHEN :'minimal'::bool THEN 'minimal: CREATE TABLE + COPY > 2MB: scans_flush_pending = 1 (sync at commit)'
               ELSE 'replica: CREATE TABLE + COPY > 2MB: scans_flush_pending = 0' END);
SELECT ok(CASE WHEN :'minimal'::bool THEN (xact_of('CREATE TABLE big')).synced_rels >= 1
               ELSE (xact_of('CREATE TABLE big')).synced_rels = 0 END,
          CASE WHEN :'minimal'::bool THEN 'minimal: synced_rels >= 1' ELSE 'replica: synced_rels = 0' END);
SELECT is((SELECT string_agg(command || ':' || rows || ':' || wal_skipped, ',' ORDER BY stmt_no)
           FROM walload_statements WHERE xact_id = (xact_of('CREATE TABLE big')).xact_id),
          CASE WHEN :'minimal'::bool THEN 'CREATE TABLE:0:true,COPY:50000:true' ELSE 'CREATE TABLE:0:false,COPY:50000:false' END,
          'the COPY reports its 50000 rows; WAL is skipped only under minimal');
SELECT is((xact_of('CREATE TABLE big')).full_scans, CASE WHEN :'minimal'::bool THEN 1 ELSE 0 END::bigint,
          'and no other scan');

-- a new table with a primary key: its index is created by a sub-command of
-- CREATE TABLE; the statement's files skip WAL under minimal all the same
SELECT walload_reset();
BEGIN;
CREATE TABLE keyed (id int PRIMARY KEY, u int UNIQUE);
COPY keyed FROM PROGRAM 'seq 1 1000 | sed "s/.*/&\t&/"';
COMMIT;
SELECT is((SELECT string_agg(command || ':' || wal_skipped, ',' ORDER BY stmt_no)
           FROM walload_statements WHERE xact_id = (xact_of('CREATE TABLE keyed')).xact_id),
          CASE WHEN :'minimal'::bool THEN 'CREATE TABLE:true,COPY:true' ELSE 'CREATE TABLE:false,COPY:false' END,
          'CREATE TABLE with PRIMARY KEY and UNIQUE: wal_skipped only under minimal');
SELECT is((SELECT wal_skipped_calls FROM walload_stats WHERE command = 'CREATE TABLE' AND query LIKE 'CREATE TABLE keyed%'),
          CASE WHEN :'minimal'::bool THEN 1 ELSE 0 END::bigint,
          'and walload_stats.wal_skipped_calls counts it');

-- a partitioned table: COPY and INSERT write into the partitions their rows
-- route to, which skip WAL under minimal when created in the transaction;
-- rows routed only to an old partition do not, though the table has a new
-- one (until a row goes there)
SELECT walload_reset();
CREATE TABLE parted_old (id int) PARTITION BY RANGE (id);
CREATE TABLE parted_old_1 PARTITION OF parted_old FOR VALUES FROM (1) TO (100001);
BEGIN;
CREATE TABLE parted (id int) PARTITION BY RANGE (id);
CREATE TABLE parted_1 PARTITION OF parted FOR VALUES FROM (1) TO (501);
CREATE TABLE parted_2 PARTITION OF parted FOR VALUES FROM (501) TO (1001);
COPY parted FROM PROGRAM 'seq 1 1000';
INSERT INTO parted SELECT generate_series(1, 1000);
CREATE TABLE parted_old_2 PARTITION OF parted_old FOR VALUES FROM (100001) TO (200001);
COPY parted_old FROM PROGRAM 'seq 1 1000';
INSERT INTO parted_old SELECT generate_series(1, 1000);
INSERT INTO parted_old VALUES (150000);
COMMIT;
SELECT is((SELECT string_agg(command || ':' || wal_skipped, ',' ORDER BY stmt_no)
           FROM walload_statements WHERE xact_id = (xact_of('CREATE TABLE parted ')).xact_id
           AND query NOT LIKE '%parted_old%'),
          CASE WHEN :'minimal'::bool THEN 'CREATE TABLE:false,CREATE TABLE:true,CREATE TABLE:true,COPY:true,INSERT:true'
               ELSE 'CREATE TABLE:false,CREATE TABLE:false,CREATE TABLE:false,COPY:false,INSERT:false' END,
          'COPY and INSERT into a new partitioned table: wal_skipped only under minimal');
SELECT is((SELECT string_agg(command || ':' || wal_skipped, ',' ORDER BY stmt_no)
           FROM walload_statements WHERE xact_id = (xact_of('CREATE TABLE parted ')).xact_id
           AND query LIKE '%parted_old %' AND command <> 'CREATE TABLE'),
          CASE WHEN :'minimal'::bool THEN 'COPY:false,INSERT:false,INSERT:true' ELSE 'COPY:false,INSERT:false,INSERT:false' END,
          'rows routed only to an old partition skip no WAL; one routed to the new partition does (minimal)');

-- CREATE DATABASE copies the template through shared buffers (WAL_LOG),
-- into files that skip WAL under minimal; FILE_COPY copies the directory
SELECT walload_reset();
CREATE DATABASE walload_t_walog STRATEGY = WAL_LOG;
CREATE DATABASE walload_t_filecopy STRATEGY = FILE_COPY;
SELECT is((SELECT string_agg(query || ':' || wal_skipped, ',' ORDER BY xact_id)
           FROM walload_statements WHERE command = 'CREATE DATABASE' AND query LIKE '%walload_t_%'),
          'CREATE DATABASE walload_t_walog STRATEGY = WAL_LOG:' || :'minimal'::bool ||
          ',CREATE DATABASE walload_t_filecopy STRATEGY = FILE_COPY:false',
          'CREATE DATABASE: wal_skipped for WAL_LOG under minimal only, never for FILE_COPY');
DROP DATABASE walload_t_walog;
DROP DATABASE walload_t_filecopy;

-- a small new table: WAL-logged at commit (minimal) or as loaded (replica), no scan
SELECT walload_reset();
BEGIN;
CREATE TABLE small (id int);
INSERT INTO small SELECT generate_series(1, 100);
COMMIT;
SELECT is((xact_of('CREATE TABLE small')).full_scans, 0::bigint,
          'a new table below wal_skip_threshold: no scan');

-- a standalone DROP TABLE of a permanent table: one scan at commit, and the
-- commit phase (which pg_stat_statements never sees) is timed
SELECT walload_reset();
DROP TABLE small;
SELECT is((xact_of('DROP TABLE small')).scans_drop_pending, 1::bigint,
          'standalone DROP TABLE of a permanent table: scans_drop_pending = 1');
SELECT is((xact_of('DROP TABLE small')).full_scans, 1::bigint, 'and no other scan');
SELECT cmp_ok((xact_of('DROP TABLE small')).commit_ms, '>', 0::float8,
              'commit_ms > 0 for a standalone DROP TABLE');
SELECT is((SELECT scans_drop_pending FROM walload_statements
           WHERE xact_id = (xact_of('DROP TABLE small')).xact_id AND command = 'DROP TABLE'), 1::bigint,
          'the commit-time scan is attributed to the DROP TABLE');

-- temporary tables live in local buffers: no scan of the shared pool
CREATE TEMP TABLE tmp (id int);
INSERT INTO tmp SELECT generate_series(1, 1000);
SELECT walload_reset();
DROP TABLE tmp;
SELECT is((SELECT count(*) FROM walload_xacts WHERE pid = pg_backend_pid() AND xact_id = (xact_of('DROP TABLE tmp')).xact_id), 1::bigint,
          'the DROP of the temporary table is recorded');
SELECT is((xact_of('DROP TABLE tmp')).full_scans, 0::bigint,
          'DROP of a temporary table: 0 scans');

-- ROLLBACK of a transaction that created a table: its file is deleted (one scan)
SELECT walload_reset();
BEGIN;
CREATE TABLE gone (id int);
ROLLBACK;
SELECT is((SELECT outcome || ':' || scans_drop_pending FROM xact_of('CREATE TABLE gone ')), 'abort:1',
          'ROLLBACK after CREATE TABLE: outcome abort, scans_drop_pending = 1');

-- the same, aborted by an error
SELECT walload_reset();
\set ON_ERROR_STOP 0
BEGIN;
CREATE TABLE gone2 (id int);
SELECT 1/0;
ROLLBACK;
\set ON_ERROR_STOP 1
SELECT is((SELECT outcome || ':' || scans_drop_pending FROM xact_of('CREATE TABLE gone2')), 'abort:1',
          'an error after CREATE TABLE: outcome abort, scans_drop_pending = 1');

-- TRUNCATE of a table created in the same transaction, with one index and a
-- TOAST table: truncated in place, one scan per relation (heap, index, toast
-- heap, toast index)
SELECT walload_reset();
BEGIN;
CREATE TABLE tr (id int PRIMARY KEY, doc text);
INSERT INTO tr SELECT g, 'x' FROM generate_series(1, 10) g;
TRUNCATE tr;
COMMIT;
SELECT is((SELECT count(*) FROM pg_index WHERE indrelid = 'tr'::regclass), 1::bigint, 'tr has one index');
SELECT ok((SELECT reltoastrelid <> 0 FROM pg_class WHERE oid = 'tr'::regclass), 'and a TOAST table');
SELECT is((SELECT scans_drop_rel FROM walload_statements
           WHERE xact_id = (xact_of('CREATE TABLE tr')).xact_id AND command = 'TRUNCATE TABLE'), 4::bigint,
          'TRUNCATE of a same-transaction table with one index and TOAST: scans_drop_rel = 4');
SELECT is((xact_of('CREATE TABLE tr')).scans_drop_rel, 4::bigint, 'and its transaction has scans_drop_rel = 4');
SELECT is((xact_of('CREATE TABLE tr')).scans_flush_pending, CASE WHEN :'minimal'::bool THEN 1 ELSE 0 END::bigint,
          CASE WHEN :'minimal'::bool THEN 'minimal: the truncated new table is synced at commit whatever its size'
               ELSE 'replica: nothing to sync at commit' END);

-- TRUNCATE of an older table: new files; the old ones are deleted at commit
SELECT walload_reset();
TRUNCATE tr;
SELECT is((SELECT scans_drop_rel || ':' || scans_drop_pending FROM xact_of('TRUNCATE tr')), '0:1',
          'TRUNCATE of an existing table: no in-place truncation, one deletion scan at commit');

-- one DROP of several tables: one scan for all their files
CREATE TABLE d1 (a int); CREATE TABLE d2 (a int); CREATE TABLE d3 (a int);
SELECT walload_reset();
DROP TABLE d1, d2, d3, tr, big;
SELECT is((SELECT full_scans || ':' || scans_drop_pending FROM walload_info), '1:1',
          'DROP of five tables in one statement: one scan; walload_info totals agree');
SELECT * FROM finish();

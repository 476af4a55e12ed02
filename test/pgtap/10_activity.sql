-- clusters: minimal replica
-- walload_activity: another backend's open load, seen while it runs, with
-- what its COMMIT and ROLLBACK would do; after the COMMIT (or ROLLBACK) the
-- recorded counts must equal the predicted ones exactly, and the sizes as
-- far as the backend knows them without asking the file system, which the
-- live prediction does not do.  The load runs in a second session (dblink)
-- that this one watches.
\ir 00_helpers.inc
CREATE EXTENSION IF NOT EXISTS dblink;
SELECT current_setting('wal_level') = 'minimal' AS minimal \gset
SELECT plan(36);

SELECT format('host=%s port=%s dbname=%s user=%s',
              split_part(current_setting('unix_socket_directories'), ',', 1),
              current_setting('port'), current_database(), current_user) AS conn \gset
SELECT dblink_connect('load', :'conn');
SELECT dblink_connect('idle', :'conn');
SELECT pid AS load_pid FROM dblink('load', 'SELECT pg_backend_pid()') AS t(pid int) \gset
SELECT pid AS idle_pid FROM dblink('idle', 'SELECT pg_backend_pid()') AS t(pid int) \gset
-- the load's predictions priced at 1 ns for every unit cost
-- (walload.unit_costs): whatever the calibration timed, a commit that does
-- anything is predicted above 0, its scans a part of it
SELECT dblink_exec('load', $$SET walload.unit_costs = 'others=1'$$);

CREATE TABLE old_t (id int);
INSERT INTO old_t SELECT generate_series(1, 1000);
CREATE TABLE trunc_t (id int PRIMARY KEY);
INSERT INTO trunc_t SELECT generate_series(1, 1000);
SELECT walload_reset();

-- an open transaction that did no recorded work: never shown
SELECT dblink_exec('idle', 'BEGIN');
SELECT * FROM dblink('idle', 'SELECT 1') AS t(x int);
SELECT is((SELECT count(*) FROM walload_activity WHERE pid = :idle_pid), 0::bigint,
          'an open transaction that only read is not in walload_activity');

-- the load: a table past wal_skip_threshold, a small one, a DROP, a
-- TRUNCATE and a temporary table, in one open transaction
SELECT dblink_exec('load', 'BEGIN');
SELECT dblink_exec('load', 'CREATE TABLE big (id int, pad text)');
SELECT dblink_exec('load', $$INSERT INTO big SELECT g, repeat('x', 100) FROM generate_series(1, 50000) g$$);
SELECT dblink_exec('load', 'CREATE TABLE small (id int)');
SELECT dblink_exec('load', 'INSERT INTO small VALUES (1)');
SELECT dblink_exec('load', 'DROP TABLE old_t');
SELECT dblink_exec('load', 'TRUNCATE trunc_t');
SELECT dblink_exec('load', 'CREATE TEMP TABLE tmp (id int)');
SELECT dblink_exec('load', 'INSERT INTO tmp SELECT generate_series(1, 1000)');

CREATE TEMP TABLE seen AS SELECT * FROM walload_activity WHERE pid = :load_pid;
SELECT is((SELECT count(*) FROM seen), 1::bigint, 'the open load is in walload_activity');
SELECT is((SELECT statements FROM seen), 8, 'with its 8 recorded statements so far');
SELECT ok((SELECT current_command IS NULL AND current_stmt_start IS NULL FROM seen),
          'between statements it runs no command');
SELECT is((SELECT rows FROM seen), 51001::bigint, 'rows so far: 50000 + 1 + 1000');
SELECT ok((SELECT total_ms >= create_ms + dml_ms AND dml_ms > 0 AND create_ms > 0 FROM seen),
          'its time so far, by kind, within its total');
SELECT ok((SELECT predicted_at IS NOT NULL AND predicted_at >= xact_start FROM seen),
          'the commit is predicted');
SELECT ok((SELECT wal_bytes > 0 FROM seen), 'its WAL so far');
SELECT is((SELECT userid FROM seen), (SELECT oid FROM pg_roles WHERE rolname = current_user),
          'its user');
SELECT is((SELECT shared_buffers FROM seen), (SELECT setting::int FROM pg_settings WHERE name = 'shared_buffers'),
          'shared_buffers (in buffers) as the prediction used it');
SELECT ok(CASE WHEN :'minimal'::bool
               THEN (SELECT pred_synced_rels >= 1 AND pred_commit_scans = 2 AND pred_wal_logged_rels >= 1 FROM seen)
               ELSE (SELECT pred_synced_rels = 0 AND pred_commit_scans = 1 AND pred_wal_logged_rels = 0 FROM seen) END,
          CASE WHEN :'minimal'::bool
               THEN 'minimal: a sync with its scan, and a deletion scan, predicted; small files WAL-logged'
               ELSE 'replica: only the deletion scan predicted, nothing synced or WAL-logged' END);
SELECT ok((SELECT pred_dropped_rels >= 3 FROM seen),
          'the DROP and the TRUNCATE doom the old files of old_t, trunc_t and its index');
SELECT ok((SELECT pred_abort_scans = 1 AND pred_abort_rels >= 3 FROM seen),
          'ROLLBACK would delete the files created (big, small, trunc_t''s new files) after one scan');
SELECT ok((SELECT pred_commit_ms > 0 AND pred_scan_ms >= 0 AND pred_scan_ms <= pred_commit_ms FROM seen),
          'a predicted commit time, of which scans');

-- the diagnosis of the running load
SELECT ok(EXISTS (SELECT 1 FROM walload_diagnose_backend(:load_pid) WHERE finding = 'what COMMIT will cost'),
          'walload_diagnose_backend() prices the commit');
SELECT is(EXISTS (SELECT 1 FROM walload_diagnose_backend(:load_pid)
                  WHERE finding = 'wal_skip_threshold for this transaction'), :'minimal'::bool,
          CASE WHEN :'minimal'::bool THEN 'minimal: it offers wal_skip_threshold for the synced file'
               ELSE 'replica: nothing is synced, no wal_skip_threshold choice' END);
SELECT is((SELECT finding FROM walload_diagnose_backend(:idle_pid)), 'no running load',
          'a backend without a recorded load has none');

-- COMMIT: the recorded figures are the predicted ones
SELECT dblink_exec('load', 'COMMIT');
SELECT is((SELECT count(*) FROM walload_activity WHERE pid = :load_pid), 0::bigint,
          'after COMMIT the load is gone from walload_activity');
CREATE TEMP TABLE done AS
  SELECT x.* FROM walload_xacts x WHERE x.pid = :load_pid AND x.outcome = 'commit'
  ORDER BY xact_id DESC LIMIT 1;
SELECT is((SELECT synced_rels FROM done), (SELECT pred_synced_rels FROM seen), 'synced_rels as predicted');
SELECT is((SELECT synced_blocks FROM done), (SELECT pred_synced_blocks FROM seen), 'synced_blocks as predicted');
SELECT is((SELECT wal_logged_rels FROM done), (SELECT pred_wal_logged_rels FROM seen), 'wal_logged_rels as predicted');
-- TRUNCATE gives trunc_t's index a new file and builds it empty: the
-- storage manager's count of its metapage is lost when the index's relcache
-- entry is rebuilt for the new file, at the command boundary after the
-- build, and an empty index's pg_class.relpages stays 0.  The live
-- prediction cannot know that block without asking the file system.
SELECT ok((SELECT pred_wal_logged_blocks BETWEEN wal_logged_blocks - 1 AND wal_logged_blocks FROM done, seen),
          'wal_logged_blocks as predicted, but for the metapage of the index TRUNCATE rebuilt');
SELECT is((SELECT dropped_rels FROM done), (SELECT pred_dropped_rels FROM seen), 'dropped_rels as predicted');
SELECT is((SELECT wal_skipped_rels FROM done), (SELECT wal_skipped_rels FROM seen), 'wal_skipped_rels as predicted');
SELECT is((SELECT (scans_flush_pending + scans_drop_pending)::int FROM done), (SELECT pred_commit_scans FROM seen),
          'the commit''s scans as predicted');
SELECT ok((SELECT pred_commit_ms > 0 AND commit_ms > 0 FROM done),
          'walload_xacts keeps the commit time predicted at PRE_COMMIT beside the measured one');

-- ROLLBACK: its scan as predicted
SELECT dblink_exec('load', 'BEGIN');
SELECT dblink_exec('load', 'CREATE TABLE gone (id int)');
SELECT dblink_exec('load', 'INSERT INTO gone SELECT generate_series(1, 100)');
CREATE TEMP TABLE seen2 AS SELECT * FROM walload_activity WHERE pid = :load_pid;
SELECT dblink_exec('load', 'ROLLBACK');
SELECT is((SELECT scans_drop_pending::int FROM walload_xacts WHERE pid = :load_pid AND outcome = 'abort'
           ORDER BY xact_id DESC LIMIT 1), (SELECT pred_abort_scans FROM seen2),
          'ROLLBACK''s deletion scan as predicted');
SELECT is((SELECT dropped_rels FROM walload_xacts WHERE pid = :load_pid AND outcome = 'abort'
           ORDER BY xact_id DESC LIMIT 1), (SELECT pred_abort_rels FROM seen2),
          'and the files it deleted');

-- a table dropped in a savepoint that is rolled back, loaded, and dropped
-- again: the prediction of each statement reuses what an earlier one found
-- of a file to delete, but not across the savepoint's rollback, after which
-- the file was written again (5 blocks in shared buffers, then 8850).
-- The walk's own price moves with what the cache kept of the pool, and an
-- invalidation's with the calibration: the load prices neither the walk
-- nor anything but an invalidation (1 us, walload.unit_costs), so the
-- prices are the counts, 8850 buffers to invalidate against 5.
CREATE TABLE regrown (id int);
INSERT INTO regrown SELECT generate_series(1, 1000);
SELECT dblink_exec('load', $$SET walload.unit_costs = 'others=0, invalidate_ns_per_buffer=1000'$$);
SELECT dblink_exec('load', 'BEGIN');
SELECT dblink_exec('load', 'SAVEPOINT s');
SELECT dblink_exec('load', 'DROP TABLE regrown');
CREATE TEMP TABLE small_drop AS SELECT pred_scan_ms FROM walload_activity WHERE pid = :load_pid;
SELECT dblink_exec('load', 'ROLLBACK TO SAVEPOINT s');
SELECT dblink_exec('load', 'INSERT INTO regrown SELECT generate_series(1, 2000000)');
SELECT dblink_exec('load', 'DROP TABLE regrown');
CREATE TEMP TABLE big_drop AS SELECT pred_scan_ms FROM walload_activity WHERE pid = :load_pid;
SELECT dblink_exec('load', 'ROLLBACK');
SELECT cmp_ok((SELECT pred_scan_ms FROM big_drop), '>', 5 * (SELECT pred_scan_ms FROM small_drop),
              'a table dropped again after its savepoint rolled back: its 8850 buffers priced, not the 5 of the first DROP');

-- the running statement's progress, as core counts it.  The COPY's program
-- writes 100,000 rows, then waits (at most 60 s) for a file this session
-- makes once it has seen them counted, and removes it: core reads its input in 64 kB
-- pieces, so all but the last piece's rows are counted while it waits.
SELECT current_setting('data_directory') || '/walload_copy_go' AS go_file \gset
CREATE TABLE copied (id int);
SELECT dblink_exec('load', 'BEGIN');
SELECT dblink_exec('load', 'CREATE TABLE copied_new (id int)');
SELECT is((SELECT progress FROM walload_activity WHERE pid = :load_pid), NULL,
          'between statements walload_activity shows no progress');
SELECT dblink_send_query('load', format(
  $$COPY copied FROM PROGRAM 'seq 1 100000; i=0; while [ ! -e %1$s ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done; rm -f %1$s; seq 1 10'$$,
  :'go_file'));
CREATE FUNCTION wait_progress(p int) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  r bigint;
  deadline timestamptz := clock_timestamp() + interval '60 s';
BEGIN
  LOOP
    -- core's progress views read a copy of the backends' status kept for
    -- the transaction: drop it to see the COPY move
    PERFORM pg_stat_clear_snapshot();
    SELECT progress_rows INTO r FROM walload_activity WHERE pid = p AND current_command = 'COPY';
    EXIT WHEN r >= 50000 OR clock_timestamp() > deadline;
    PERFORM pg_sleep(0.05);
  END LOOP;
  RETURN r;
END $$;
SELECT cmp_ok(wait_progress(:load_pid), '>=', 50000::bigint,
              'a running COPY shows the rows core has counted so far');
SELECT matches((SELECT progress FROM walload_activity WHERE pid = :load_pid), '^COPY FROM: [0-9]+ rows',
               'and says so in progress');
-- the file, written by the server (a program that exits before reading its
-- input would make the COPY fail on a broken pipe)
COPY (SELECT 1) TO :'go_file';
SELECT * FROM dblink_get_result('load') AS t(r text);
SELECT * FROM dblink_get_result('load') AS t(r text);
SELECT is((SELECT progress FROM walload_activity WHERE pid = :load_pid), NULL,
          'once the COPY has ended, no progress again');
SELECT dblink_exec('load', 'ROLLBACK');

-- how old the prediction is: each statement's end predicts again, until a
-- transaction that pends thousands of files (to sync, WAL-log or delete
-- at commit, or to delete on abort) has used its budget of predictions
-- (4096 files, 16 more a statement): 4200 new tables, each a file a
-- ROLLBACK would delete
SELECT dblink_exec('load', 'BEGIN');
SELECT dblink_exec('load', 'CREATE TABLE few_1 (id int)');
SELECT dblink_exec('load', 'CREATE TABLE few_2 (id int)');
SELECT is((SELECT prediction_behind FROM walload_activity WHERE pid = :load_pid), 0,
          'a transaction of a few files: every statement predicts again');
SELECT dblink_exec('load', $$DO 'BEGIN FOR i IN 1..4200 LOOP EXECUTE format(''CREATE TABLE many_%s (id int)'', i); END LOOP; END'$$);
SELECT is((SELECT prediction_behind FROM walload_activity WHERE pid = :load_pid), 0,
          'the statement that pended the files is predicted');
SELECT dblink_exec('load', 'CREATE TABLE one_more (id int)');
SELECT is((SELECT prediction_behind FROM walload_activity WHERE pid = :load_pid), 1,
          'past the budget the prediction is one statement old, and says so');
SELECT dblink_exec('load', 'ROLLBACK');

SELECT dblink_exec('idle', 'ROLLBACK');
SELECT dblink_disconnect('load');
SELECT dblink_disconnect('idle');
SELECT * FROM finish();

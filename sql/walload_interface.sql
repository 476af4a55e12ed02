-- The SQL interface: objects, columns, privileges, and one deterministic load.
CREATE EXTENSION walload;

-- every view's columns and types (a contract other tools depend on)
SELECT c.relname, a.attnum, a.attname, format_type(a.atttypid, a.atttypmod)
FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid
WHERE c.relname IN ('walload_xacts', 'walload_statements', 'walload_stats', 'walload_info',
                    'walload_activity', 'walload_minutes', 'walload_command_totals',
                    'walload_histograms', 'walload_build_info')
  AND a.attnum > 0
ORDER BY c.relname, a.attnum;

-- functions and who may run them
CREATE ROLE walload_reader;
SELECT p.proname, pg_get_function_identity_arguments(p.oid) AS args,
       has_function_privilege('walload_reader', p.oid, 'EXECUTE') AS public_can_run,
       p.prosecdef AS security_definer
FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass
WHERE d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'walload')
ORDER BY 1;
SELECT v, has_table_privilege('walload_reader', v, 'SELECT') AS readable
FROM unnest(ARRAY['walload_xacts', 'walload_statements', 'walload_stats', 'walload_info',
                   'walload_activity', 'walload_minutes', 'walload_command_totals',
                   'walload_histograms', 'walload_build_info']) v;

-- a load: CREATE TABLE + COPY of 1000 rows in one transaction.  Only what is
-- deterministic is shown: counts, and booleans about times and volumes.
SELECT walload_reset();
BEGIN;
CREATE TABLE wl_load (id int);
\i test/data/wl_load_1000.sql
COMMIT;
SELECT count(*) AS xacts FROM walload_xacts;
SELECT outcome, statements, inner_xacts, rows, copy_ms > 0 AS copy_timed, create_ms > 0 AS create_timed,
       total_ms > 0 AS total_timed, commit_ms > 0 AS commit_timed, total_ms >= commit_ms AS total_covers_commit,
       wal_bytes > 0 AS wrote_wal, wal_records > 0 AS wal_records,
       xact_end >= xact_start AS ordered, pid = pg_backend_pid() AS mine,
       userid = 'postgres'::regrole AS user_ok, dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AS db_ok,
       wal_level = current_setting('wal_level') AS wal_level_ok, full_scans
FROM walload_xacts;
SELECT stmt_no, command, toplevel, nest_level, status, rows, queryid <> 0 AS has_queryid,
       elapsed_ms > 0 AS timed, xact_id = (SELECT xact_id FROM walload_xacts) AS in_the_xact, query
FROM walload_statements ORDER BY stmt_no;
SELECT command, toplevel, calls, rows, errors, wal_bytes > 0 AS wrote_wal FROM walload_stats ORDER BY command;
SELECT xacts_recorded, statements_recorded, stats_entries, xacts_overwritten, statements_overwritten,
       stats_evicted, full_scans FROM walload_info;
-- the exporters' counters (1.10): per command kind, and one recorded
-- transaction in each histogram (+Infinity's count is every one)
SELECT datname = current_database() AS db_ok, rolname, command, calls, rows,
       total_seconds > 0 AS timed, wal_bytes > 0 AS wrote_wal, walks
FROM walload_command_totals ORDER BY command;
SELECT metric, count(*) AS buckets, max(count) FILTER (WHERE le = 'Infinity') AS xacts,
       bool_and(sum_seconds >= 0 AND max_seconds <= sum_seconds) AS sum_covers_max
FROM walload_histograms GROUP BY metric ORDER BY metric;
SELECT version = library_version AS one_version, sql_version
FROM walload_build_info, walload_info;

-- the same statement again (other data) aggregates into the same entry
COPY wl_load FROM STDIN;
1001
1002
1003
\.
SELECT command, calls, rows FROM walload_stats WHERE command = 'COPY';
SELECT count(DISTINCT queryid) AS copy_queryids FROM walload_statements WHERE command = 'COPY';
SELECT count(*) AS loaded FROM wl_load;
DROP TABLE wl_load;

-- other users' rows hide their query text and id, unless pg_read_all_stats
CREATE ROLE walload_alice;
CREATE ROLE walload_bob;
GRANT CREATE ON SCHEMA public TO walload_alice;
SET ROLE walload_alice;
CREATE TABLE alice_secret (id int);
RESET ROLE;
SET ROLE walload_bob;
SELECT query, queryid IS NULL AS queryid_hidden FROM walload_statements
WHERE userid = 'walload_alice'::regrole;
SELECT query, queryid IS NULL AS queryid_hidden FROM walload_stats
WHERE userid = 'walload_alice'::regrole;
RESET ROLE;
GRANT pg_read_all_stats TO walload_bob;
SET ROLE walload_bob;
SELECT query, queryid IS NULL AS queryid_hidden FROM walload_statements
WHERE userid = 'walload_alice'::regrole;
RESET ROLE;
DROP TABLE alice_secret;
REVOKE CREATE ON SCHEMA public FROM walload_alice;
DROP ROLE walload_alice;
DROP ROLE walload_bob;

-- reset empties everything
SELECT walload_reset();
SELECT (SELECT count(*) FROM walload_xacts) AS xacts,
       (SELECT count(*) FROM walload_statements) AS statements,
       (SELECT count(*) FROM walload_stats) AS stats,
       full_scans, xacts_recorded FROM walload_info;
DROP ROLE walload_reader;

-- a backend sees its own open load in walload_activity, with what COMMIT and
-- ROLLBACK would do (replica: nothing to sync or delete at commit; an abort
-- would delete the new file after one scan); gone once it commits
BEGIN;
CREATE TABLE act_t (id int);
INSERT INTO act_t SELECT generate_series(1, 10);
SELECT statements, current_command, rows, predicted_at IS NOT NULL AS predicted,
       pred_commit_scans, pred_synced_rels, pred_wal_logged_rels, pred_dropped_rels,
       pred_abort_scans, pred_abort_rels
FROM walload_activity WHERE pid = pg_backend_pid();
COMMIT;
SELECT count(*) AS after_commit FROM walload_activity WHERE pid = pg_backend_pid();
DROP TABLE act_t;

-- another role's load shows only its pid, userid and dbid, as in
-- pg_stat_activity, and cannot be diagnosed (here this backend's own load,
-- begun before SET ROLE: test/t/023_visibility.pl has two backends)
CREATE ROLE walload_carol;
BEGIN;
CREATE TABLE act_t (id int);
SET LOCAL ROLE walload_carol;
SELECT userid = session_user::regrole AS userid_shown, dbid IS NOT NULL AS dbid_shown,
       (SELECT count(*) FROM jsonb_object_keys(jsonb_strip_nulls(to_jsonb(a)))) AS columns_shown
FROM walload_activity a WHERE pid = pg_backend_pid();
\set VERBOSITY sqlstate
SELECT * FROM walload_diagnose_backend(pg_backend_pid());
\set VERBOSITY default
ROLLBACK;
DROP ROLE walload_carol;

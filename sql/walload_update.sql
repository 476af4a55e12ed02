-- The update path.  Version 1.0 installed, then ALTER EXTENSION walload
-- UPDATE, must give the same objects, definitions and privileges as a fresh
-- CREATE EXTENSION of the default version; the 1.0 objects keep working with
-- the new library until the update is run.
CREATE TEMP TABLE ext_objects (how text, object text, definition text, acl text);
CREATE FUNCTION pg_temp.snapshot(how text) RETURNS void LANGUAGE sql AS $$
  INSERT INTO ext_objects
  SELECT how, pg_describe_object(d.classid, d.objid, 0),
         CASE WHEN d.classid = 'pg_proc'::regclass
              THEN (SELECT pg_get_function_arguments(p.oid) || ' -> ' ||
                           pg_get_function_result(p.oid) || ' = ' || p.prosrc ||
                           ' ' || p.provolatile::text || p.proparallel::text || p.proisstrict::text
                    FROM pg_proc p WHERE p.oid = d.objid)
              WHEN d.classid = 'pg_class'::regclass
              THEN pg_get_viewdef(d.objid)
         END,
         CASE WHEN d.classid = 'pg_proc'::regclass
              THEN (SELECT proacl::text FROM pg_proc WHERE oid = d.objid)
              WHEN d.classid = 'pg_class'::regclass
              THEN (SELECT relacl::text FROM pg_class WHERE oid = d.objid)
         END
  FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid
  WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
    AND e.extname = 'walload'
$$;

DROP EXTENSION walload;
CREATE EXTENSION walload;
SELECT extversion AS default_version FROM pg_extension WHERE extname = 'walload';
SELECT pg_temp.snapshot('fresh');

DROP EXTENSION walload;
CREATE EXTENSION walload VERSION '1.0';
SELECT extversion FROM pg_extension WHERE extname = 'walload';
-- 1.0's walload_info has 17 columns and works with this library
SELECT count(*) AS info_columns FROM pg_attribute
WHERE attrelid = 'walload_info'::regclass AND attnum > 0;
SELECT xacts_recorded >= 0 AND shmem_bytes > 0 AS info_1_0_reads FROM walload_info;
SELECT lock_waits FROM walload_info;
-- 1.0's (and 1.1's) walload_xacts, walload_statements and walload_stats
-- have no wal_fpi_bytes and work with this library
SELECT (SELECT count(*) >= 0 FROM walload_xacts) AND (SELECT count(*) >= 0 FROM walload_statements)
       AND (SELECT count(*) >= 0 FROM walload_stats) AS views_1_0_read;
SELECT wal_fpi_bytes FROM walload_xacts;

-- an update to a version that does not exist fails and changes nothing
ALTER EXTENSION walload UPDATE TO '9.9';
SELECT extversion FROM pg_extension WHERE extname = 'walload';

ALTER EXTENSION walload UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'walload';
SELECT count(*) AS info_columns FROM pg_attribute
WHERE attrelid = 'walload_info'::regclass AND attnum > 0;
SELECT lock_waits >= 0 AND lock_wait_ms >= 0 AS info_1_1_reads FROM walload_info;
SELECT count(*) AS xacts_columns FROM pg_attribute
WHERE attrelid = 'walload_xacts'::regclass AND attnum > 0;
SELECT count(*) >= 0 AS fpi_bytes_reads FROM walload_xacts WHERE wal_fpi_bytes IS NULL OR wal_fpi_bytes >= 0;
SELECT pg_temp.snapshot('updated');

-- the same objects either way: both differences are empty
SELECT 'only in fresh' AS diff, object, definition, acl FROM (
  SELECT object, definition, acl FROM ext_objects WHERE how = 'fresh'
  EXCEPT SELECT object, definition, acl FROM ext_objects WHERE how = 'updated') f
UNION ALL
SELECT 'only after update', object, definition, acl FROM (
  SELECT object, definition, acl FROM ext_objects WHERE how = 'updated'
  EXCEPT SELECT object, definition, acl FROM ext_objects WHERE how = 'fresh') u
ORDER BY 1, 2;
SELECT count(*) > 10 AS compared_objects FROM ext_objects WHERE how = 'fresh';

-- already at the newest version: nothing to do
ALTER EXTENSION walload UPDATE;

-- 1.2's walload_xacts has no pred_commit_ms and reads with this library;
-- walload_activity and walload_diagnose_backend() come with 1.3
DROP EXTENSION walload;
CREATE EXTENSION walload VERSION '1.2';
SELECT count(*) AS xacts_columns_1_2 FROM pg_attribute
WHERE attrelid = 'walload_xacts'::regclass AND attnum > 0;
SELECT count(*) >= 0 AS xacts_1_2_read FROM walload_xacts;
SELECT to_regclass('walload_activity') IS NULL AS no_activity_in_1_2;
ALTER EXTENSION walload UPDATE TO '1.3';
SELECT count(*) AS xacts_columns_1_3 FROM pg_attribute
WHERE attrelid = 'walload_xacts'::regclass AND attnum > 0;
SELECT count(*) >= 0 AS activity_reads FROM walload_activity;
SELECT has_table_privilege('public', 'walload_activity', 'SELECT') AS activity_for_everyone;

-- 1.3's walload_info has 19 columns and reads with this library; 1.4 adds
-- what the commits taught of the storage
SELECT count(*) AS info_columns_1_3 FROM pg_attribute
WHERE attrelid = 'walload_info'::regclass AND attnum > 0;
SELECT xacts_recorded >= 0 AS info_1_3_reads FROM walload_info;
ALTER EXTENSION walload UPDATE TO '1.4';
SELECT count(*) AS info_columns_1_4 FROM pg_attribute
WHERE attrelid = 'walload_info'::regclass AND attnum > 0;
SELECT fsync_time_ratio BETWEEN 0.25 AND 4 AND fsync_time_commits >= 0 AND file_commit_us >= 0
       AND file_commit_commits >= 0 AND scan_time_ratio BETWEEN 0.25 AND 4
       AND scan_time_commits >= 0 AS learned_reads FROM walload_info;
SELECT has_table_privilege('public', 'walload_info', 'SELECT') AS info_for_everyone;

-- 1.4's walload_xacts (57 columns) and walload_info (25) read with this
-- library; 1.5 adds what the strategy did at each commit and the
-- calibration's state
SELECT count(*) AS xacts_columns_1_4 FROM pg_attribute
WHERE attrelid = 'walload_xacts'::regclass AND attnum > 0;
SELECT count(*) >= 0 AS xacts_1_4_read FROM walload_xacts;
ALTER EXTENSION walload UPDATE TO '1.5';
SELECT count(*) AS xacts_columns_1_5 FROM pg_attribute
WHERE attrelid = 'walload_xacts'::regclass AND attnum > 0;
SELECT count(*) AS info_columns_1_5 FROM pg_attribute
WHERE attrelid = 'walload_info'::regclass AND attnum > 0;
SELECT calibration IN ('running', 'done', 'failed', 'off') AS calibration_reads
FROM walload_info;
SELECT count(*) = count(*) FILTER (WHERE strategy_changed_commits >= 0) AS changed_reads
FROM walload_xacts;
SELECT has_table_privilege('public', 'walload_xacts', 'SELECT') AS xacts_for_everyone,
       has_table_privilege('public', 'walload_info', 'SELECT') AS info_for_everyone;

-- 1.6 adds walload_xacts' session columns, walload_report(), and
-- walload_diagnose()'s filters and saving_ms; 1.5's walload_diagnose(xact_id)
-- reads with this library
SELECT to_regproc('walload_report') IS NULL AS no_report_in_1_5;
SELECT count(*) > 0 AS diagnose_1_5_reads FROM walload_diagnose();
SELECT count(*) > 0 AS diagnose_1_5_reads_one FROM walload_diagnose(1);
ALTER EXTENSION walload UPDATE TO '1.6';
SELECT count(*) AS xacts_columns_1_6 FROM pg_attribute
WHERE attrelid = 'walload_xacts'::regclass AND attnum > 0;
SELECT count(*) = count(application_name) AS application_name_reads FROM walload_xacts;
SELECT count(*) >= 0 AS report_reads FROM walload_report();
SELECT count(*) > 0 AS diagnose_1_6_reads FROM walload_diagnose(since => now() - interval '1 day');
SELECT has_function_privilege('public', 'walload_report(timestamptz, timestamptz, integer, text, oid, oid)',
                              'EXECUTE') AS report_for_everyone,
       has_table_privilege('public', 'walload_xacts', 'SELECT') AS xacts_for_everyone;

-- 1.7 adds walload_activity's prediction_behind and the running
-- statement's progress; 1.6's walload_activity (36 columns) reads with
-- this library
SELECT count(*) AS activity_columns_1_6 FROM pg_attribute
WHERE attrelid = 'walload_activity'::regclass AND attnum > 0;
BEGIN;
CREATE TABLE upd_act (id int);
SELECT count(*) AS activity_1_6_reads FROM walload_activity WHERE pid = pg_backend_pid();
ROLLBACK;
ALTER EXTENSION walload UPDATE TO '1.7';
SELECT count(*) AS activity_columns_1_7 FROM pg_attribute
WHERE attrelid = 'walload_activity'::regclass AND attnum > 0;
BEGIN;
CREATE TABLE upd_act (id int);
INSERT INTO upd_act VALUES (1);
-- the prediction follows the last statement; nothing of core's runs now
SELECT prediction_behind, progress, progress_rows FROM walload_activity
WHERE pid = pg_backend_pid();
ROLLBACK;
-- walload_info's running totals of the commit phases: those of the
-- transactions in walload_xacts since a reset, 0 right after one
SELECT count(*) AS info_columns_1_7 FROM pg_attribute
WHERE attrelid = 'walload_info'::regclass AND attnum > 0;
SELECT walload_reset();
SELECT commit_sync_ms = 0 AND commit_cleanup_ms = 0 AS totals_zero_after_reset FROM walload_info;
CREATE TABLE upd_tot (id int);
INSERT INTO upd_tot VALUES (1);
DROP TABLE upd_tot;
SELECT count(*) AS xacts, abs(i.commit_sync_ms - sum(x.commit_sync_ms)) < 0.01 AS sync_total,
       abs(i.commit_cleanup_ms - sum(x.commit_cleanup_ms)) < 0.01 AS cleanup_total,
       i.commit_sync_ms > 0 AND i.commit_cleanup_ms > 0 AS both_counted
FROM walload_info i, walload_xacts x GROUP BY i.commit_sync_ms, i.commit_cleanup_ms;
-- and walload_diagnose() with short evidence and hint, the full texts in detail
SELECT count(*) > 0 AS diagnose_1_7_reads,
       bool_and(length(evidence) < length(detail) AND length(hint) < length(detail)) AS detail_is_longer
FROM walload_diagnose();
SELECT has_table_privilege('public', 'walload_activity', 'SELECT') AS activity_for_everyone;

-- 1.8 adds walload_minutes, the per-session, per-minute sums behind
-- walload_report(), and walload_info's minutes_recorded and
-- minutes_overwritten; the library keeps the sums before the update too,
-- and 1.7's walload_info (30 columns) reads with it
SELECT count(*) AS info_1_7_reads FROM walload_info;
SELECT count(*) AS stats_columns_1_7 FROM pg_attribute
WHERE attrelid = 'walload_stats'::regclass AND attnum > 0;
SELECT count(*) >= 0 AS stats_1_7_reads FROM walload_stats;
SELECT to_regclass('walload_minutes') IS NULL AS no_minutes_before_1_8;
ALTER EXTENSION walload UPDATE TO '1.8';
SELECT count(*) AS info_columns_1_8 FROM pg_attribute
WHERE attrelid = 'walload_info'::regclass AND attnum > 0;
SELECT minutes_recorded > 0 AS minutes_recorded, minutes_overwritten FROM walload_info;
SELECT sum(xacts) = (SELECT count(*) FROM walload_xacts) AS minutes_sum_the_xacts FROM walload_minutes;
SELECT has_table_privilege('public', 'walload_minutes', 'SELECT') AS minutes_for_everyone;
-- and walload_stats' commit_ms (1.7's walload_stats had 34 columns)
SELECT count(*) AS stats_columns_1_8 FROM pg_attribute
WHERE attrelid = 'walload_stats'::regclass AND attnum > 0;
SELECT count(*) = count(*) FILTER (WHERE commit_ms >= 0) AS commit_ms_reads FROM walload_stats;
SELECT has_table_privilege('public', 'walload_stats', 'SELECT') AS stats_for_everyone;

-- 1.9 replaces walload_activity (the same 39 columns) with every function
-- and operator named with its schema.  1.7 and 1.8's named format() and
-- pg_size_pretty() bare: installed by a superuser, they bound a format()
-- of the extension's schema with a call's exact argument types, a closer
-- match than pg_catalog's format(text, VARIADIC "any"), which then ran as
-- whoever read walload_activity during a COPY (test/t/033_shadowed_names.pl
-- plants every name and signature the views call)
DROP EXTENSION walload;
CREATE FUNCTION public.format(text, text, bigint) RETURNS text LANGUAGE sql
  AS $$ SELECT 'planted' $$;
CREATE EXTENSION walload VERSION '1.8';
CREATE TEMP VIEW activity_binds AS
SELECT p.oid::regprocedure AS bound FROM pg_depend d JOIN pg_rewrite r ON r.oid = d.objid
JOIN pg_proc p ON p.oid = d.refobjid
WHERE d.classid = 'pg_rewrite'::regclass AND d.refclassid = 'pg_proc'::regclass
  AND r.ev_class = 'walload_activity'::regclass AND p.proname <> 'walload_activity';
SELECT * FROM activity_binds;
SELECT count(*) AS activity_columns_1_8 FROM pg_attribute
WHERE attrelid = 'walload_activity'::regclass AND attnum > 0;
ALTER EXTENSION walload UPDATE TO '1.9';
SELECT * FROM activity_binds;
SELECT count(*) AS activity_columns_1_9 FROM pg_attribute
WHERE attrelid = 'walload_activity'::regclass AND attnum > 0;
-- nothing depends on it any more
DROP FUNCTION public.format(text, text, bigint);
BEGIN;
CREATE TABLE upd_act (id int);
INSERT INTO upd_act VALUES (1);
SELECT prediction_behind, progress, progress_rows FROM walload_activity
WHERE pid = pg_backend_pid();
ROLLBACK;
SELECT has_table_privilege('public', 'walload_activity', 'SELECT') AS activity_for_everyone;
SELECT count(*) >= 0 AS report_reads FROM walload_report();

-- 1.10's walload_diagnose() (nine columns) reads with this library; 1.11
-- gives programs walload_findings() (ten) and people walload_diagnose()
-- (four, over it), and walload_diagnose_backend() likewise
ALTER EXTENSION walload UPDATE TO '1.10';
SELECT count(*) > 0 AS diagnose_1_10_reads, bool_and(detail IS NOT NULL) AS with_detail
FROM walload_diagnose();
SELECT count(*) > 0 AS diagnose_backend_1_10_reads FROM walload_diagnose_backend(pg_backend_pid());
ALTER EXTENSION walload UPDATE TO '1.11';
SELECT count(*) > 0 AS findings_1_11_reads, bool_and(detail IS NOT NULL) AS with_detail
FROM walload_findings();
SELECT (SELECT count(*) FROM walload_diagnose()) = (SELECT count(*) FROM walload_findings()) AS diagnose_1_11_reads;
SELECT p.proname, array_length(p.proargnames, 1) - p.pronargs AS columns
FROM pg_proc p WHERE p.proname IN ('walload_diagnose', 'walload_findings', 'walload_diagnose_backend',
                                   'walload_findings_backend') ORDER BY 1;
SELECT finding FROM walload_diagnose_backend(pg_backend_pid());

-- Bad input gets a clear error and changes nothing.
-- First, the calibration of the server's start has ended (calibrated_at is
-- NULL until then; a pg_buildext cluster runs this at once), waited for at
-- most 300 s, before the reset: the DO block is recorded.
DO $$
DECLARE
    until timestamptz := clock_timestamp() + interval '300 s';
BEGIN
    WHILE (SELECT calibration FROM walload_info) = 'running' AND clock_timestamp() < until LOOP
        PERFORM pg_sleep(0.1);
    END LOOP;
END
$$;
SELECT walload_reset();
CREATE TABLE wl_err (id int);
INSERT INTO wl_err VALUES (1);
-- the state before the bad calls
SELECT coalesce(calibrated_at::text, 'never') AS cal_at, scan_ns_per_buffer AS cal_ns, xacts_recorded AS n_xacts,
       statements_recorded AS n_stmts, stats_entries AS n_stats, full_scans AS n_scans
FROM walload_info \gset
SELECT :n_xacts AS xacts, :n_stmts AS statements, :n_stats AS stats;
SELECT * FROM walload_calibrate(0);
SELECT * FROM walload_calibrate(-1);
SELECT * FROM walload_calibrate(1001);
SELECT * FROM walload_calibrate(NULL);
SELECT * FROM walload_findings(0);
SELECT * FROM walload_findings(-5);
SELECT severity, finding FROM walload_diagnose(123456789);
-- the failed calls changed nothing: same calibration, nothing recorded
SELECT coalesce(calibrated_at::text, 'never') = :'cal_at' AS calibration_time_unchanged,
       scan_ns_per_buffer IS NOT DISTINCT FROM :'cal_ns'::float8 AS calibration_unchanged,
       xacts_recorded = :n_xacts AS no_new_xacts, statements_recorded = :n_stmts AS no_new_statements,
       stats_entries = :n_stats AS no_new_stats, full_scans = :n_scans AS no_new_scans
FROM walload_info;
SET walload.track = 'bogus';
SET walload.track = '';
SET walload.track = 2;
SET walload.warn_scan_ms = -2;
SET walload.max_stats = 200;
SET walload.max_xacts = 20;
SET walload.max_statements = 200;
SET walload.compute_query_id = off;
ALTER SYSTEM SET walload.compute_query_id = 'maybe';
SHOW walload.compute_query_id;
RESET walload.compute_query_id;
ALTER SYSTEM SET walload.track = 'bogus';
SHOW walload.track;
SHOW walload.max_stats;
-- walload.unit_costs: a malformed list is refused whole, naming the item at
-- fault, and the setting stays as it was
SET walload.unit_costs = 'wal_flush_ns=1';
SET walload.unit_costs = 'fsync_ns_per_file';
SET walload.unit_costs = 'no_such_cost=1';
SET walload.unit_costs = 'fsync_ns_per_file=fast';
SET walload.unit_costs = 'fsync_ns_per_file=-1';
SET walload.unit_costs = 'fsync_ns_per_file=nan';
SET walload.unit_costs = 'fsync_ns_per_file=1e15';
SET walload.unit_costs = 'fsync_time_ratio=5';
SET walload.unit_costs = 'file_commit_ns=1e6';
SET walload.unit_costs = 'wal_flush_ns=1, wal_flush_ns=2';
SET walload.unit_costs = 'others=1, others=2';
SET walload.unit_costs = 'others=1, open_ns=2,';
SHOW walload.unit_costs;
SET walload.unit_costs = ' others = 0 , fsync_time_ratio = 0.5 ';
SHOW walload.unit_costs;
RESET walload.unit_costs;
SHOW walload.unit_costs;
DROP TABLE wl_err;
-- an unprivileged role may not reset, calibrate, or change what is tracked
CREATE ROLE walload_nobody;
SET ROLE walload_nobody;
SELECT walload_reset();
SELECT * FROM walload_calibrate();
SET walload.track = 'none';
SET walload.compute_query_id = off;
SET walload.unit_costs = 'others=0';
RESET ROLE;
DROP ROLE walload_nobody;
-- recorded: the DDL and DML, and ALTER SYSTEM as a failed utility statement;
-- not the failed function calls, nor SET (not tracked)
SELECT command, status FROM walload_statements ORDER BY xact_id, stmt_no;
-- a calibration that works returns sane numbers
SELECT passes_run, buffers = (SELECT setting::int FROM pg_settings WHERE name = 'shared_buffers') AS buffers_ok,
       ms_per_scan >= 0 AS not_negative FROM walload_calibrate(2);

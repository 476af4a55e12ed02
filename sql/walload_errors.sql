-- Bad input gets a clear error and changes nothing.
SELECT walload_reset();
SELECT * FROM walload_calibrate(0);
SELECT * FROM walload_calibrate(-1);
SELECT * FROM walload_calibrate(1001);
SELECT * FROM walload_calibrate(NULL);
SELECT * FROM walload_diagnose(0);
SELECT * FROM walload_diagnose(-5);
SELECT severity, finding FROM walload_diagnose(123456789);
SET walload.track = 'bogus';
SET walload.warn_scan_ms = -2;
SET walload.max_stats = 200;
SET walload.max_xacts = 20;
SHOW walload.track;
-- an unprivileged role may not reset, calibrate, or change what is tracked
CREATE ROLE walload_nobody;
SET ROLE walload_nobody;
SELECT walload_reset();
SELECT * FROM walload_calibrate();
SET walload.track = 'none';
RESET ROLE;
DROP ROLE walload_nobody;
-- of the above, only the role DDL was recorded; the failed calls were not
SELECT command, status FROM walload_statements ORDER BY xact_id, stmt_no;
-- a calibration that works returns sane numbers
SELECT passes_run, buffers = (SELECT setting::int FROM pg_settings WHERE name = 'shared_buffers') AS buffers_ok,
       ms_per_scan > 0 AS positive FROM walload_calibrate(2);

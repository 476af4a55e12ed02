-- clusters: minimal replica
-- Nested statements (walload.track = 'all'): toplevel = false, never double
-- counted; aborted transactions; walload_reset().
\ir 00_helpers.inc
SELECT plan(25);
CREATE TABLE nested_t (id int);
CREATE FUNCTION load_rows(n int) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  CREATE TABLE IF NOT EXISTS nested_f (id int);
  INSERT INTO nested_f SELECT generate_series(1, n);
  INSERT INTO nested_t SELECT generate_series(1, n);
END $$;

-- a plpgsql function
SET walload.track = 'all';
SELECT walload_reset();
SELECT load_rows(500);
SELECT xact_id AS fx, statements AS fx_statements, rows AS fx_rows, wal_records AS fx_wal
FROM xact_of('SELECT load_rows(500)') \gset
SELECT is((SELECT string_agg(command || '/' || toplevel || '/' || nest_level, ',' ORDER BY stmt_no)
           FROM walload_statements WHERE xact_id = :fx),
          'SELECT/true/0,CREATE TABLE/false/1,INSERT/false/1,INSERT/false/1',
          'function: the calling SELECT at top level, its CREATE TABLE and INSERTs nested (toplevel = false)');
SELECT is(:fx_statements, 1, 'function: the transaction''s statements counts only the top-level one');
SELECT is((SELECT count(*) FROM walload_statements WHERE xact_id = :fx AND query = 'SELECT load_rows(500)'), 1::bigint,
          'function: the outer statement is recorded once');
SELECT is((SELECT rows FROM walload_statements WHERE xact_id = :fx AND query LIKE 'INSERT INTO nested_t%'), 500::bigint,
          'function: a nested INSERT reports its rows');
SELECT is(:fx_rows::bigint, (SELECT sum(rows) FROM walload_statements WHERE xact_id = :fx AND toplevel)::bigint,
          'function: the transaction''s rows are its top-level statement''s, nested rows are not added again');
SELECT cmp_ok(:fx_wal::bigint - (SELECT wal_records FROM walload_statements WHERE xact_id = :fx AND toplevel), '<',
              (SELECT wal_records FROM walload_statements WHERE xact_id = :fx AND query LIKE 'INSERT INTO nested_t%'),
              'function: the nested INSERT''s WAL is in the transaction once (inside its top-level statement), not added again');
SELECT is((SELECT calls::text || '/' || toplevel FROM walload_stats WHERE query = 'SELECT load_rows(500)'), '1/true',
          'function: walload_stats has the outer statement once, at top level');
SELECT is((SELECT string_agg(command || ':' || calls, ',' ORDER BY command) FROM walload_stats WHERE NOT toplevel
           AND query IN ('CREATE TABLE IF NOT EXISTS nested_f (id int)', 'INSERT INTO nested_f SELECT generate_series(1, n)')),
          'CREATE TABLE:1,INSERT:1', 'function: nested statements aggregate under toplevel = false');

-- a DO block
SELECT walload_reset();
DO $$ BEGIN INSERT INTO nested_t SELECT generate_series(1, 10); END $$;
SELECT xact_id AS dx, statements AS dx_statements, rows AS dx_rows, wal_records AS dx_wal
FROM xact_of('DO $$ BEGIN INSERT') \gset
SELECT is((SELECT string_agg(command || '/' || toplevel, ',' ORDER BY stmt_no) FROM walload_statements WHERE xact_id = :dx),
          'DO/true,INSERT/false', 'DO block: the DO at top level, its INSERT nested');
SELECT is(:dx_statements, 1, 'DO block: the transaction''s statements counts only the DO');
SELECT is((SELECT rows FROM walload_statements WHERE xact_id = :dx AND command = 'INSERT'), 10::bigint,
          'DO block: the nested INSERT reports its 10 rows');
SELECT is(:dx_rows::bigint, (SELECT rows FROM walload_statements WHERE xact_id = :dx AND toplevel),
          'DO block: the transaction''s rows are the DO''s');
SELECT cmp_ok(:dx_wal::bigint - (SELECT wal_records FROM walload_statements WHERE xact_id = :dx AND toplevel), '<',
              (SELECT wal_records FROM walload_statements WHERE xact_id = :dx AND command = 'INSERT'),
              'DO block: the nested INSERT''s WAL is not added to the transaction twice');

-- walload.track = 'top': nested statements are not recorded at all
SET walload.track = 'top';
SELECT walload_reset();
SELECT load_rows(10);
DO $$ BEGIN INSERT INTO nested_t SELECT generate_series(1, 10); END $$;
SELECT is((SELECT count(*) FROM walload_statements WHERE pid = pg_backend_pid() AND NOT toplevel), 0::bigint,
          'track=top: nested statements are not recorded');
SELECT is((SELECT count(*) FROM walload_statements WHERE pid = pg_backend_pid() AND toplevel
           AND (query = 'SELECT load_rows(10)' OR query LIKE 'DO $$%')), 2::bigint,
          'track=top: the two top-level statements are');

-- an error caught by an EXCEPTION block around DDL: the subtransaction's new
-- table is deleted at its rollback (one scan); the transaction commits
SELECT walload_reset();
DO $$ BEGIN
  BEGIN
    CREATE TABLE caught (id int);
    PERFORM 1/0;
  EXCEPTION WHEN division_by_zero THEN NULL;
  END;
END $$;
SELECT is((SELECT outcome || ':' || scans_drop_pending || ':' || statements FROM xact_of('DO $$ BEGIN
  BEGIN')), 'commit:1:1',
          'a subtransaction rolled back by EXCEPTION: one scan, the transaction commits');

-- aborted transactions are recorded with outcome 'abort'
SELECT walload_reset();
BEGIN;
INSERT INTO nested_t VALUES (-1);
INSERT INTO nested_t VALUES (-2);
ROLLBACK;
SELECT is((SELECT outcome || ':' || statements FROM xact_of('INSERT INTO nested_t VALUES (-1)')), 'abort:2',
          'explicit ROLLBACK: recorded with outcome abort and its 2 statements');
\set ON_ERROR_STOP 0
BEGIN;
INSERT INTO nested_t VALUES (-3);
INSERT INTO nested_t SELECT 1 / (g - 2) FROM generate_series(1, 3) g;   -- fails while executing
COMMIT;
\set ON_ERROR_STOP 1
SELECT is((SELECT outcome FROM xact_of('INSERT INTO nested_t VALUES (-3)')), 'abort',
          'an error in a transaction block: recorded with outcome abort (COMMIT of a failed transaction rolls back)');
SELECT is((SELECT string_agg(status, ',' ORDER BY stmt_no) FROM walload_statements
           WHERE xact_id = (xact_of('INSERT INTO nested_t VALUES (-3)')).xact_id AND command = 'INSERT'), 'ok,error',
          'the failing statement has status error');
\set ON_ERROR_STOP 0
COPY nested_t FROM PROGRAM 'printf "1\nx\n"';
\set ON_ERROR_STOP 1
SELECT is((SELECT s.command || ':' || s.status || ':' || x.outcome FROM walload_statements s JOIN walload_xacts x USING (xact_id)
           WHERE s.pid = pg_backend_pid() AND s.query LIKE 'COPY nested_t%'),
          'COPY:error:abort', 'a COPY failing on bad data (autocommit): statement error, transaction abort');
SELECT is((SELECT count(*) FROM nested_t WHERE id < 0), 0::bigint, 'none of the aborted rows are there');

-- walload_reset() empties the views and zeroes the counters
DROP TABLE nested_f;     -- a scan, so that there is something to zero
SELECT ok((SELECT xacts_recorded > 0 AND statements_recorded > 0 AND stats_entries > 0 AND full_scans > 0 FROM walload_info)
          AND (SELECT count(*) > 0 FROM walload_xacts) AND (SELECT count(*) > 0 FROM walload_statements)
          AND (SELECT count(*) > 0 FROM walload_stats),
          'before the reset there is something to reset');
SELECT clock_timestamp() AS before_reset \gset
SELECT walload_reset();
SELECT (SELECT count(*) FROM walload_xacts) AS n_x, (SELECT count(*) FROM walload_statements) AS n_s,
       (SELECT count(*) FROM walload_stats) AS n_st,
       concat_ws(',', xacts_recorded, xacts_overwritten, statements_recorded, statements_overwritten, stats_entries,
                 stats_evicted, scans_flush_rel, scans_flush_pending, scans_drop_rel, scans_drop_pending, scans_db,
                 full_scans, scanned_buffers) AS counters,
       stats_reset >= :'before_reset'::timestamptz AND stats_reset <= clock_timestamp() AS reset_time
FROM walload_info \gset
SELECT is((:n_x + :n_s + :n_st)::bigint, 0::bigint, 'walload_reset() empties walload_xacts, walload_statements and walload_stats');
SELECT is(:'counters'::text, '0,0,0,0,0,0,0,0,0,0,0,0,0', 'walload_reset() zeroes every counter of walload_info');
SELECT ok(:'reset_time'::bool, 'walload_info.stats_reset is the time of the reset');
DROP TABLE nested_t;
DROP FUNCTION load_rows(int);
SELECT * FROM finish();

-- Nested statements: toplevel = false, never double counted; errors; reset.
\ir 00_helpers.inc
SELECT plan(10);
CREATE OR REPLACE FUNCTION load_rows(n int) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  CREATE TABLE IF NOT EXISTS nested_t (id int);
  INSERT INTO nested_t SELECT generate_series(1, n);
END $$;

SET walload.track = 'all';
SELECT walload_reset();
SELECT load_rows(500);
SELECT is((SELECT count(*) FROM walload_statements WHERE pid = pg_backend_pid() AND NOT toplevel AND command IN ('CREATE TABLE', 'INSERT')), 2::bigint,
          'track=all: the function''s CREATE TABLE and INSERT are recorded with toplevel = false');
SELECT is((SELECT count(*) FROM walload_statements WHERE pid = pg_backend_pid() AND toplevel), 1::bigint,
          'the calling SELECT is recorded once, at top level');
SELECT is((xact_of('SELECT load_rows(500)')).statements, 1,
          'the transaction counts only its top-level statement');
SELECT is((SELECT rows FROM walload_statements WHERE pid = pg_backend_pid() AND query LIKE 'INSERT INTO nested_t%'), 500::bigint,
          'the nested INSERT reports its rows');

SELECT walload_reset();
DO $$ BEGIN INSERT INTO nested_t SELECT generate_series(1, 10); END $$;
SELECT is((SELECT string_agg(command || '/' || toplevel, ',' ORDER BY stmt_no) FROM walload_statements WHERE pid = pg_backend_pid() AND xact_id = (xact_of('DO $$ BEGIN INSERT')).xact_id),
          'DO/true,INSERT/false', 'DO block: the DO at top level, its INSERT nested');

SET walload.track = 'top';
SELECT walload_reset();
SELECT load_rows(10);
DO $$ BEGIN INSERT INTO nested_t SELECT generate_series(1, 10); END $$;
SELECT is((SELECT count(*) FROM walload_statements WHERE pid = pg_backend_pid() AND NOT toplevel), 0::bigint,
          'track=top: nested statements are not recorded');

-- an error caught by an EXCEPTION block around DDL
SELECT walload_reset();
DO $$ BEGIN
  BEGIN
    CREATE TABLE caught (id int);
    PERFORM 1/0;
  EXCEPTION WHEN division_by_zero THEN NULL;
  END;
END $$;
SELECT is((SELECT outcome || ':' || scans_drop_pending FROM xact_of('DO $$ BEGIN
  BEGIN')), 'commit:1',
          'a subtransaction rolled back by EXCEPTION deletes its new table: one scan, transaction commits');

-- a failing COPY is recorded as an error, in an aborted transaction
SELECT walload_reset();
\set ON_ERROR_STOP 0
COPY nested_t FROM PROGRAM 'printf "1\nx\n"';
SELECT is((SELECT string_agg(s.command || ':' || s.status || ':' || x.outcome, ',') FROM walload_statements s JOIN walload_xacts x USING (xact_id) WHERE s.pid = pg_backend_pid()),
          'COPY:error:abort', 'a COPY with bad data: statement error, transaction abort');

-- reset empties everything
SELECT walload_reset();
SELECT is((SELECT count(*) FROM walload_xacts) + (SELECT count(*) FROM walload_statements) + (SELECT count(*) FROM walload_stats), 0::bigint,
          'walload_reset() empties the views');
SELECT is((SELECT full_scans + xacts_recorded + statements_recorded FROM walload_info), 0::bigint,
          'walload_reset() zeroes the totals');
DROP TABLE nested_t;
DROP FUNCTION load_rows(int);
SELECT * FROM finish();

-- A hostile search_path at CREATE EXTENSION time and at query time captures
-- nothing; a statement cancelled by statement_timeout leaves no state behind.
CREATE SCHEMA evil;
CREATE FUNCTION evil.walload_xacts() RETURNS SETOF record LANGUAGE sql AS $$ SELECT 1/0 $$;
CREATE FUNCTION evil.walload_stats() RETURNS SETOF record LANGUAGE sql AS $$ SELECT 1/0 $$;
SET search_path = evil, public;
DROP EXTENSION walload;
CREATE EXTENSION walload SCHEMA public;
SELECT count(*) >= 0 AS views_use_their_own_functions FROM public.walload_xacts, public.walload_stats;
SELECT DISTINCT p.pronamespace::regnamespace AS function_schema
FROM pg_depend d JOIN pg_rewrite r ON r.oid = d.objid JOIN pg_proc p ON p.oid = d.refobjid
WHERE d.classid = 'pg_rewrite'::regclass AND d.refclassid = 'pg_proc'::regclass
  AND r.ev_class IN ('public.walload_xacts'::regclass, 'public.walload_stats'::regclass);
RESET search_path;
DROP SCHEMA evil CASCADE;

-- statement_timeout cancels a COPY: recorded as an error in an aborted
-- transaction, and the next transaction is recorded normally
CREATE TABLE slow (id int);
SELECT walload_reset();
SET statement_timeout = '100ms';
COPY (SELECT pg_sleep(2)) TO STDOUT;
RESET statement_timeout;
INSERT INTO slow VALUES (1);
SELECT s.command, s.status, x.outcome, x.statements
FROM walload_statements s JOIN walload_xacts x USING (xact_id) ORDER BY s.xact_id, s.stmt_no;
DROP TABLE slow;

-- a function of another shape over the library's set-returning functions:
-- an error before any row, never a row built for other columns
CREATE FUNCTION short_xacts(OUT xact_id bigint, OUT pid int) RETURNS SETOF record
  AS '$libdir/walload', 'walload_xacts' LANGUAGE C;
CREATE FUNCTION short_statements(OUT xact_id bigint, OUT stmt_no int) RETURNS SETOF record
  AS '$libdir/walload', 'walload_statements' LANGUAGE C;
CREATE FUNCTION long_stats(OUT a int, OUT b int, OUT c int, OUT d int, OUT e int, OUT f int,
  OUT g int, OUT h int, OUT i int, OUT j int, OUT k int, OUT l int, OUT m int, OUT n int,
  OUT o int, OUT p int, OUT q int, OUT r int, OUT s int, OUT t int, OUT u int, OUT v int,
  OUT w int, OUT x int, OUT y int, OUT z int, OUT aa int, OUT ab int, OUT ac int, OUT ad int,
  OUT ae int, OUT af int, OUT ag int, OUT ah int, OUT ai int, OUT aj int) RETURNS SETOF record
  AS '$libdir/walload', 'walload_stats' LANGUAGE C;
CREATE FUNCTION short_diagnose(xact_id bigint DEFAULT NULL, OUT severity text, OUT finding text)
  RETURNS SETOF record AS '$libdir/walload', 'walload_diagnose' LANGUAGE C;
SELECT * FROM short_xacts();
SELECT * FROM short_statements();
SELECT * FROM long_stats();
SELECT * FROM short_diagnose();
-- the extension's own definitions still work
SELECT count(*) >= 0 AS xacts, (SELECT count(*) >= 0 FROM walload_statements) AS statements,
       (SELECT count(*) >= 0 FROM walload_stats) AS stats,
       (SELECT count(*) > 0 FROM walload_diagnose()) AS diagnose
FROM walload_xacts;
DROP FUNCTION short_xacts(), short_statements(), long_stats(), short_diagnose(bigint);

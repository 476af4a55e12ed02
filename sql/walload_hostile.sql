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

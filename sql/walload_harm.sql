-- Do no harm, record right (issue 11): each block reproduces a defect of
-- walload 1.1 and checks what must hold instead.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS walload;
CREATE EXTENSION IF NOT EXISTS pg_stat_statements;
RESET client_min_messages;
SET walload.track = 'all';
CREATE TABLE plk (a int);
INSERT INTO plk SELECT generate_series(1, 100);

-- 1. An error while a cursor's SQL function is open: core frees the
-- function's query text before walload's abort callback runs.  A body over
-- 32 MB is given back to the OS when freed, so reading it faults.
SELECT format('CREATE FUNCTION pf() RETURNS SETOF int LANGUAGE sql AS %L',
              'SELECT a FROM plk FOR UPDATE /*' || repeat('x', 34 * 1024 * 1024) || '*/') \gexec
SELECT walload_reset();
BEGIN;
DECLARE c CURSOR FOR SELECT pf();
FETCH 1 FROM c;
SELECT 1/0;
ROLLBACK;
-- the same through a PL/pgSQL loop caught by an EXCEPTION block
DO $$
DECLARE r int;
BEGIN
  BEGIN
    FOR r IN SELECT pf() LOOP
      PERFORM 1/0;
    END LOOP;
  EXCEPTION WHEN division_by_zero THEN NULL;
  END;
END $$;
SELECT 'server still up' AS alive;
-- the interrupted queries are recorded as failed (their texts were kept
-- while core still had them: they wrote WAL, locking rows)
SELECT status, command, toplevel, nest_level, left(query, 28) AS query
FROM walload_statements WHERE query NOT LIKE 'SELECT 1/0%' ORDER BY xact_id, stmt_no;
DROP FUNCTION pf();

-- 3. A statement that fails while walload looks at it before it runs
-- (a cross-database name) leaves no memory behind.
CREATE SEQUENCE hs;
DO $$
BEGIN
  FOR i IN 1..50 LOOP
    BEGIN
      EXECUTE 'ALTER SEQUENCE otherdb.public.hs RESTART';
    EXCEPTION WHEN feature_not_supported THEN NULL;
    END;
  END LOOP;
END $$;
VACUUM otherdb.public.plk;
ALTER TABLE otherdb.public.plk SET LOGGED;
-- (one context is kept for the backend's life, reset to its first block)
SELECT count(*) AS observation_contexts, max(used_bytes) < 1024 AS holding_nothing
FROM pg_backend_memory_contexts WHERE name = 'walload observation';
-- and no context outlives a statement that succeeds
ALTER SEQUENCE hs RESTART;
VACUUM plk;
-- (one context is kept for the backend's life, reset to its first block)
SELECT count(*) AS observation_contexts, max(used_bytes) < 1024 AS holding_nothing
FROM pg_backend_memory_contexts WHERE name = 'walload observation';
DROP SEQUENCE hs;

-- 4. SQL EXECUTE is not a nesting level: its statement is top-level, under
-- track = top too, and joins pg_stat_statements.
SET walload.track = 'top';
SELECT walload_reset();
SELECT pg_stat_statements_reset() IS NOT NULL AS pgss_reset;
PREPARE ins(int) AS INSERT INTO plk VALUES ($1);
EXECUTE ins(1);
EXECUTE ins(2);
SELECT command, toplevel, nest_level, query FROM walload_statements ORDER BY xact_id;
SELECT w.calls AS walload_calls, p.calls AS pgss_calls, w.rows = p.rows AS same_rows,
       w.wal_records = p.wal_records AS same_wal_records,
       (w.shared_blks_hit, w.shared_blks_read, w.shared_blks_dirtied, w.shared_blks_written) =
       (p.shared_blks_hit, p.shared_blks_read, p.shared_blks_dirtied, p.shared_blks_written) AS same_buffers
FROM walload_stats w JOIN pg_stat_statements p USING (userid, dbid, queryid, toplevel)
WHERE w.command = 'INSERT';
DEALLOCATE ins;

-- 5. ROLLBACK inside a procedure: the CALL goes on and succeeds; its
-- transaction record holds all of it.
CREATE PROCEDURE p_rollback() LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO plk VALUES (-1);
  ROLLBACK;
  INSERT INTO plk VALUES (-2);
END $$;
SELECT walload_reset();
CALL p_rollback();
SELECT command, status FROM walload_statements ORDER BY stmt_no;
SELECT outcome, statements, inner_xacts FROM walload_xacts;
SELECT count(*) FILTER (WHERE a = -1) AS rolled_back, count(*) FILTER (WHERE a = -2) AS kept FROM plk;

-- 6. A procedure that commits: the record starts with its first
-- transaction, so it is at least as long as the CALL itself.
CREATE TABLE pc (a int);
CREATE PROCEDURE p_commits() LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO pc SELECT generate_series(1, 100000);
  COMMIT;
  INSERT INTO pc VALUES (0);
  COMMIT;
  INSERT INTO pc VALUES (0);
END $$;
SELECT walload_reset();
CALL p_commits();
SELECT statements, inner_xacts, total_ms >= other_ms AS record_covers_the_call,
       xact_start <= (SELECT stmt_start FROM walload_statements WHERE command = 'CALL') AS starts_before_the_call
FROM walload_xacts;
DROP TABLE pc;

-- 7. A query is charged only what it did itself: not the statements a
-- PL/pgSQL loop runs between its fetches, nor those run between a cursor's
-- FETCHes.  pg_stat_statements measures it the same way.
SET walload.track = 'all';
SET pg_stat_statements.track = 'all';
CREATE TABLE fl (a int);
SELECT walload_reset();
SELECT pg_stat_statements_reset() IS NOT NULL AS pgss_reset;
DO $$
DECLARE r int;
BEGIN
  FOR r IN SELECT g FROM generate_series(1, 500) g LOOP
    INSERT INTO fl VALUES (r);
  END LOOP;
END $$;
BEGIN;
DECLARE cur CURSOR FOR SELECT a FROM plk;
FETCH 1 FROM cur;
INSERT INTO fl SELECT generate_series(1, 1000);
FETCH 1 FROM cur;
CLOSE cur;
COMMIT;
-- the loop's query and the cursor's wrote nothing: not recorded
SELECT command, nest_level, wal_records > 0 AS wrote_wal, query
FROM walload_statements WHERE command = 'SELECT';
-- WAL is counted once per statement level: the INSERTs' WAL is not also
-- charged to a SELECT
SELECT w.command, w.toplevel, w.calls = p.calls AS same_calls, w.rows = p.rows AS same_rows,
       w.wal_records = p.wal_records AS same_wal,
       (w.shared_blks_hit, w.shared_blks_read, w.shared_blks_dirtied, w.shared_blks_written) =
       (p.shared_blks_hit, p.shared_blks_read, p.shared_blks_dirtied, p.shared_blks_written) AS same_buffers
FROM walload_stats w JOIN pg_stat_statements p USING (userid, dbid, queryid, toplevel)
WHERE w.command = 'INSERT' ORDER BY w.toplevel;
RESET pg_stat_statements.track;
DROP TABLE fl;

-- 11. walload.track = none: nothing is counted, nothing left open
SELECT walload_reset();
SET walload.track = 'none';
BEGIN;
CREATE TABLE tn (a int);
TRUNCATE tn;
COMMIT;
DROP TABLE tn;
SET walload.track = 'top';
CREATE TABLE tn2 (a int);
SELECT count(*) AS xacts, max(statements) AS statements, sum(full_scans) AS scans
FROM walload_xacts;
SELECT full_scans FROM walload_info;
DROP TABLE tn2;
-- SET LOCAL walload.track = none in an observed transaction still closes it
SELECT walload_reset();
BEGIN;
CREATE TABLE tl (a int);
SET LOCAL walload.track = 'none';
COMMIT;
INSERT INTO tl VALUES (1);
SELECT statements FROM walload_xacts ORDER BY xact_id;
SELECT count(DISTINCT xact_id) AS separate_records FROM walload_statements;
DROP TABLE tl;

-- 8. A PREPARE that core rejects leaves nothing behind: not a duplicate GID
-- (whose slot it used to overwrite), not one with temporary objects (which
-- used to fill the slots for good).
CREATE TABLE tp (a int);
SELECT walload_reset();
BEGIN; CREATE TABLE tp_new (a int); PREPARE TRANSACTION 'wl_dup';
BEGIN; DROP TABLE tp; PREPARE TRANSACTION 'wl_dup';
COMMIT PREPARED 'wl_dup';
SELECT command, scans_drop_pending FROM walload_statements WHERE command = 'COMMIT PREPARED';
SELECT dropped_rels FROM walload_xacts ORDER BY xact_id DESC LIMIT 1;
BEGIN; CREATE TEMP TABLE tt1 (a int); PREPARE TRANSACTION 'wl_t1';
BEGIN; CREATE TEMP TABLE tt2 (a int); PREPARE TRANSACTION 'wl_t2';
BEGIN; CREATE TEMP TABLE tt3 (a int); PREPARE TRANSACTION 'wl_t3';
BEGIN; CREATE TEMP TABLE tt4 (a int); PREPARE TRANSACTION 'wl_t4';
BEGIN; CREATE TEMP TABLE tt5 (a int); PREPARE TRANSACTION 'wl_t5';
SELECT walload_reset();
BEGIN; DROP TABLE tp; PREPARE TRANSACTION 'wl_real';
COMMIT PREPARED 'wl_real';
SELECT command, scans_drop_pending FROM walload_statements WHERE command = 'COMMIT PREPARED';
SELECT dropped_rels FROM walload_xacts WHERE statements = 1 ORDER BY xact_id DESC LIMIT 1;
DROP TABLE tp_new;

DROP PROCEDURE p_rollback();
DROP PROCEDURE p_commits();
DROP TABLE plk;
RESET walload.track;

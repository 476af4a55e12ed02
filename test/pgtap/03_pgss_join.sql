-- clusters: minimal replica
-- walload_stats JOIN pg_stat_statements USING (userid, dbid, queryid, toplevel),
-- under either load order of shared_preload_libraries (the minimal cluster
-- loads walload first, the replica cluster pg_stat_statements first); a COPY
-- of 1000 rows reports its rows and WAL.
\ir 00_helpers.inc
CREATE EXTENSION IF NOT EXISTS pg_stat_statements;
SELECT plan(11);
SELECT diag('shared_preload_libraries = ' || current_setting('shared_preload_libraries') ||
            ', wal_level = ' || current_setting('wal_level'));
CREATE TABLE joined (id int);
SELECT walload_reset();
SELECT pg_stat_statements_reset();
CREATE TABLE joined2 (id int);
\ir ../data/joined_1000.sql
SELECT is((SELECT rows FROM walload_statements WHERE pid = pg_backend_pid() AND query = 'COPY joined FROM STDIN'), 1000::bigint,
          'COPY of 1000 rows reports 1000 rows');
SELECT ok((SELECT wal_bytes > 0 FROM walload_statements WHERE pid = pg_backend_pid() AND query = 'COPY joined FROM STDIN'),
          'COPY of 1000 rows into an existing table reports wal_bytes > 0 (wal_level=' || current_setting('wal_level') || ')');
SELECT ok((SELECT wal_bytes > 0 AND rows = 1000 FROM xact_of('COPY joined FROM STDIN')),
          'its transaction too');
-- the same COPY again (other data): calls = 2 on both sides
COPY joined FROM STDIN;
1
2
\.
SELECT is((SELECT count(*) FROM walload_stats w JOIN pg_stat_statements p USING (userid, dbid, queryid, toplevel)
           WHERE w.command = 'COPY' AND p.query = 'COPY joined FROM STDIN'), 1::bigint,
          'the COPY row of walload_stats joins pg_stat_statements on (userid, dbid, queryid, toplevel)');
SELECT is((SELECT w.calls || '/' || p.calls || '/' || w.rows || '/' || p.rows
           FROM walload_stats w JOIN pg_stat_statements p USING (userid, dbid, queryid, toplevel)
           WHERE w.command = 'COPY' AND p.query = 'COPY joined FROM STDIN'), '2/2/1002/1002',
          'same calls and rows on both sides');
SELECT is((SELECT count(*) FROM walload_stats w JOIN pg_stat_statements p USING (userid, dbid, queryid, toplevel)
           WHERE w.command = 'CREATE TABLE' AND p.query = 'CREATE TABLE joined2 (id int)' AND w.calls = 1 AND p.calls = 1), 1::bigint,
          'the CREATE TABLE row joins too, same calls');
SELECT is((SELECT count(*) FROM walload_stats WHERE command IN ('COPY', 'CREATE TABLE') AND (queryid = 0 OR queryid IS NULL)), 0::bigint,
          'no zero query ids');
SELECT is((SELECT count(*) FROM walload_stats w WHERE w.command IN ('COPY', 'CREATE TABLE')
           AND NOT EXISTS (SELECT 1 FROM pg_stat_statements p WHERE (p.userid, p.dbid, p.queryid, p.toplevel) = (w.userid, w.dbid, w.queryid, w.toplevel))),
          0::bigint, 'every COPY and CREATE TABLE row of walload_stats has its pg_stat_statements row');
-- nested statements join on toplevel = false
SET walload.track = 'all';
SET pg_stat_statements.track = 'all';
DO $$ BEGIN INSERT INTO joined SELECT generate_series(1, 7); END $$;
DO $$ BEGIN INSERT INTO joined SELECT generate_series(1, 7); END $$;
SELECT is((SELECT w.calls || '/' || p.calls || '/' || w.rows || '/' || p.rows
           FROM walload_stats w JOIN pg_stat_statements p USING (userid, dbid, queryid, toplevel)
           WHERE NOT w.toplevel AND w.command = 'INSERT' AND p.query = 'INSERT INTO joined SELECT generate_series($1, $2)'),
          '2/2/14/14', 'a nested INSERT joins on toplevel = false, same calls and rows');
SELECT is((SELECT count(*) FROM walload_stats w JOIN pg_stat_statements p USING (userid, dbid, queryid, toplevel)
           WHERE w.toplevel AND w.command = 'DO' AND w.calls = 2 AND p.calls = 2), 1::bigint,
          'the DO joins at top level, same calls');
RESET walload.track;
RESET pg_stat_statements.track;
-- a PL/pgSQL cursor whose query writes (so walload records it), fetched
-- three times: its rows are every FETCH's on 16+ (es_total_processed), the
-- last one's on 15, on both sides
SET walload.track = 'all';
SET pg_stat_statements.track = 'all';
CREATE FUNCTION joined_note(int) RETURNS int LANGUAGE plpgsql
  AS $$BEGIN INSERT INTO joined VALUES ($1); RETURN $1; END$$;
DO $$DECLARE c refcursor; r record;
BEGIN
  OPEN c FOR SELECT joined_note(g) AS x FROM generate_series(1, 10) g;
  FETCH c INTO r; FETCH c INTO r; FETCH c INTO r;
  CLOSE c;
END $$;
SELECT is((SELECT w.calls || '/' || p.calls || '/' || w.rows || '/' || p.rows
           FROM walload_stats w JOIN pg_stat_statements p USING (userid, dbid, queryid, toplevel)
           WHERE w.command = 'SELECT' AND p.query LIKE '%joined_note(g)%'),
          CASE WHEN current_setting('server_version_num')::int >= 160000 THEN '1/1/3/3' ELSE '1/1/1/1' END,
          'a cursor fetched three times: the rows pg_stat_statements counts (every FETCH''s on 16+)');
RESET walload.track;
RESET pg_stat_statements.track;
DROP FUNCTION joined_note(int);
DROP TABLE joined, joined2;
SELECT * FROM finish();

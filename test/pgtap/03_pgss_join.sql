-- walload_stats JOIN pg_stat_statements; COPY rows and WAL.  Run under either
-- load order of shared_preload_libraries, and under either wal_level.
\ir 00_helpers.inc
CREATE EXTENSION IF NOT EXISTS pg_stat_statements;
SELECT plan(6);
SELECT walload_reset();
SELECT pg_stat_statements_reset();
CREATE TABLE joined (id int);
COPY joined FROM PROGRAM 'seq 1 1000';
SELECT is((SELECT rows FROM walload_statements WHERE pid = pg_backend_pid() AND command = 'COPY'), 1000::bigint,
          'COPY of 1000 rows reports 1000 rows');
SELECT ok((SELECT wal_bytes > 0 FROM walload_statements WHERE pid = pg_backend_pid() AND command = 'COPY')
          OR current_setting('wal_level') = 'minimal',
          'COPY into an existing table writes WAL (replica)');
SELECT is((SELECT count(*) FROM walload_stats w JOIN pg_stat_statements p USING (userid, dbid, queryid, toplevel)
           WHERE w.command = 'COPY' AND p.query LIKE 'COPY joined%' AND w.calls = p.calls AND w.rows = p.rows), 1::bigint,
          'the COPY row joins pg_stat_statements on (userid, dbid, queryid, toplevel) with the same calls and rows');
SELECT is((SELECT count(*) FROM walload_stats w JOIN pg_stat_statements p USING (userid, dbid, queryid, toplevel)
           WHERE w.command = 'CREATE TABLE' AND p.query LIKE 'CREATE TABLE joined%' AND w.calls = p.calls), 1::bigint,
          'the CREATE TABLE row joins too');
SELECT is((SELECT count(*) FROM walload_stats WHERE command IN ('COPY', 'CREATE TABLE') AND queryid = 0), 0::bigint,
          'no zero query ids');
-- the same load in a new table under each wal_level: the sync scan only under minimal
SELECT walload_reset();
BEGIN;
CREATE TABLE joined_big (id int, pad text);
INSERT INTO joined_big SELECT g, repeat('y', 100) FROM generate_series(1, 50000) g;
COMMIT;
SELECT is((xact_of('CREATE TABLE joined_big')).scans_flush_pending,
          CASE current_setting('wal_level') WHEN 'minimal' THEN 1::bigint ELSE 0::bigint END,
          'commit-time sync scan under minimal, none under replica');
DROP TABLE joined, joined_big;
SELECT * FROM finish();

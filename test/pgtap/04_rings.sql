-- clusters: rings
-- Cluster: walload.max_xacts = 10, walload.max_statements = 100,
-- walload.max_stats = 100.  The rings wrap; the statistics table evicts.
-- The state is read (\gset) before any assertion runs: pgTAP's own calls
-- may be recorded as transactions too.
\ir 00_helpers.inc
SELECT plan(16);
SELECT is(current_setting('walload.max_xacts') || '/' || current_setting('walload.max_statements') || '/' ||
          current_setting('walload.max_stats'), '10/100/100', 'the cluster has small rings');
CREATE TABLE ring (id int);

-- 30 transactions, the i-th inserting i rows
SELECT walload_reset();
SELECT format('INSERT INTO ring SELECT generate_series(1, %s)', i) FROM generate_series(1, 30) i \gexec
SELECT count(*) AS x_rows, string_agg(rows::text, ',' ORDER BY xact_id) AS x_kept,
       max(xact_id) - min(xact_id) AS x_span,
       (SELECT xacts_recorded || '/' || xacts_overwritten FROM walload_info) AS x_info
FROM walload_xacts \gset
SELECT is(:x_rows::bigint, 10::bigint, 'after 30 transactions walload_xacts has 10 rows (walload.max_xacts)');
SELECT is(:'x_kept'::text, '21,22,23,24,25,26,27,28,29,30', 'the newest ten, in order');
SELECT is(:x_span::bigint, 9::bigint, 'with consecutive xact_ids');
SELECT is(:'x_info'::text, '30/20', 'walload_info: xacts_recorded = 30, xacts_overwritten = 20');

-- 130 statements in one transaction: the statement ring keeps the last 100
SELECT walload_reset();
BEGIN;
SELECT format('INSERT INTO ring VALUES (%s)', i) FROM generate_series(1, 130) i \gexec
COMMIT;
SELECT count(*) AS s_rows, max(stmt_no) - min(stmt_no) AS s_span,
       concat_ws(',', count(*) FILTER (WHERE query = 'INSERT INTO ring VALUES (30)'),
                      count(*) FILTER (WHERE query = 'INSERT INTO ring VALUES (31)'),
                      count(*) FILTER (WHERE query = 'INSERT INTO ring VALUES (130)')) AS s_edges,
       count(DISTINCT xact_id) AS s_xacts,
       (SELECT statements_recorded || '/' || statements_overwritten FROM walload_info) AS s_info,
       (SELECT statements FROM walload_xacts WHERE xact_id = max(s.xact_id)) AS s_in_xact
FROM walload_statements s \gset
SELECT is(:s_rows::bigint, 100::bigint, 'after 130 statements walload_statements has 100 rows (walload.max_statements)');
SELECT is(:'s_edges'::text, '0,1,1', 'the newest hundred: the 31st to the 130th');
SELECT is(:s_span, 99, 'consecutive within the transaction');
SELECT is(:'s_info'::text, '130/30', 'walload_info: statements_recorded = 130, statements_overwritten = 30');
SELECT is(:s_in_xact, 130, 'the transaction still counts all its 130 statements');

-- 150 distinct statements (each a different shape, so a different query id)
-- into a statistics table of 100 entries
SELECT walload_reset();
SELECT format('INSERT INTO ring SELECT %s0', repeat('1 + ', i)) FROM generate_series(1, 150) i \gexec
INSERT INTO ring SELECT 424242 WHERE true;
SELECT count(*) AS st_rows, (SELECT stats_evicted FROM walload_info) AS st_evicted,
       (SELECT stats_entries FROM walload_info) AS st_entries,
       count(*) FILTER (WHERE query = 'INSERT INTO ring SELECT 424242 WHERE true') AS st_last
FROM walload_stats \gset
SELECT cmp_ok(:st_rows::bigint, '<=', 100::bigint, 'walload_stats has at most walload.max_stats = 100 rows (' || :st_rows || ')');
SELECT cmp_ok(:st_evicted::bigint, '>', 0::bigint, 'walload_info.stats_evicted > 0 (' || :st_evicted || ')');
SELECT is(:st_entries::bigint, :st_rows::bigint, 'walload_info.stats_entries = the rows of walload_stats');
SELECT is(:st_last::bigint, 1::bigint, 'the most recent statement survived eviction');
-- each eviction of the full table of 100 removes its least recently used
-- tenth (10), so a full table keeps at least 90
SELECT is(:st_evicted::bigint % 10, 0::bigint, 'each eviction removed a tenth of the table (' || :st_evicted || ' evicted)');
SELECT cmp_ok(:st_rows::bigint, '>=', 90::bigint, 'walload_stats keeps at least 90% of walload.max_stats (' || :st_rows || ')');
DROP TABLE ring;
SELECT * FROM finish();

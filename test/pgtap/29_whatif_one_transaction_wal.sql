-- clusters: minimal replica
-- walload_findings(), one_transaction for a bulk load into a table created
-- in an earlier transaction (whatif.c, later_bytes): under
-- wal_level=minimal the load writes WAL for every row, which one
-- transaction around the CREATE TABLE and the load would skip
-- (RelationNeedsWAL), syncing the file at its commit instead.  Positive:
-- CREATE TABLE, then a 100,000-row INSERT by the same session in its own
-- transaction: "load in many transactions" offers one_transaction, priced,
-- and names the load's WAL as walload_statements counted it.  Negative: at
-- wal_level=replica (the load writes its WAL either way); rows into a table
-- created before the scope (no table made in it); a load below the bulk
-- size (10,000 rows).  Unit costs fixed (a WAL or data block 0.1 ms to
-- write and to sync, a flush 1 ms, others 100 ns): rules, never a timed
-- figure.
\ir 00_helpers.inc
SELECT plan(6);
SET walload.unit_costs = 'others=100, write_ns_per_block=1e5, fsync_ns_per_block=1e5, fsync_ns_per_file=1e6, wal_flush_ns=1e6';
SELECT current_setting('wal_level') = 'minimal' AS minimal \gset
CREATE TABLE lw0 (a int, b text);

SELECT walload_reset();
CREATE TABLE lw1 (a int, b text);
INSERT INTO lw1 SELECT g, repeat('w', 40) FROM generate_series(1, 100000) g;
CREATE TEMP TABLE d1 AS SELECT * FROM walload_findings();
SELECT round(sum(wal_bytes) / 1048576.0, 1) AS load_mb FROM walload_statements
 WHERE pid = pg_backend_pid() AND query LIKE 'INSERT INTO lw1%' \gset

SELECT is((SELECT count(*) FROM d1 WHERE finding = 'load in many transactions' AND shape = 'one_transaction'
           AND setting IS NULL AND saving_ms > 0 AND evidence LIKE '2 commits%'),
          CASE WHEN :'minimal' THEN 1 ELSE 0 END::bigint,
          CASE WHEN :'minimal' THEN 'minimal: the load after its CREATE TABLE prices one_transaction'
               ELSE 'replica: the load writes its WAL in one transaction too: not offered' END);
SELECT is((SELECT count(*) FROM d1 WHERE finding = 'load in many transactions'
           AND detail LIKE '1 commit synced %; 1 more loaded a table created in an earlier transaction, writing '
                           || :'load_mb' || ' MB of WAL%skipping their WAL%'
           AND hint = 'load in one transaction: ' || :'load_mb' || ' MB of WAL fewer'),
          CASE WHEN :'minimal' THEN 1 ELSE 0 END::bigint,
          'the WAL named is the load''s as walload_statements counted it');
SELECT is((SELECT count(*) FROM d1 WHERE shape IN ('batch_commits', 'indexes_after_load')), 0::bigint,
          'the load is priced by no other shape');

SELECT walload_reset();
INSERT INTO lw0 SELECT g, repeat('w', 40) FROM generate_series(1, 100000) g;
CREATE TEMP TABLE d2 AS SELECT * FROM walload_findings();
SELECT is((SELECT count(*) FROM d2 WHERE shape = 'one_transaction'), 0::bigint,
          'rows into a table created before the scope: not offered');

SELECT walload_reset();
CREATE TABLE lw2 (a int, b text);
INSERT INTO lw2 SELECT g, repeat('w', 40) FROM generate_series(1, 5000) g;
CREATE TEMP TABLE d3 AS SELECT * FROM walload_findings();
SELECT is((SELECT count(*) FROM d3 WHERE shape = 'one_transaction'), 0::bigint,
          'a load below the bulk size: not offered');
SELECT is((SELECT count(*) FROM d1 WHERE finding LIKE 'verdict:%'), 1::bigint, 'one verdict row');

RESET walload.unit_costs;
DROP TABLE lw0, lw1, lw2;
SELECT * FROM finish();

-- clusters: minimal replica
-- walload_findings(), one_transaction for a bulk load into a table created
-- in an earlier transaction (whatif.c, later_bytes): under
-- wal_level=minimal the load writes WAL for every row, which one
-- transaction around the CREATE TABLE and the load would skip
-- (RelationNeedsWAL), syncing the file at its commit instead.  Positive:
-- CREATE TABLE, then a 100,000-row INSERT by the same session in its own
-- transaction: "load in many transactions" offers one_transaction, priced,
-- and names the load's WAL as walload_statements counted it; a load whose
-- transaction also builds an index is a syncing commit itself, replayed
-- once; with an index created before the load, indexes_after_load and
-- one_transaction share the index WAL, counted once in the verdict.
-- Negative: at wal_level=replica (the load writes its WAL either
-- way); rows into a table created before the scope (no table made in it);
-- a load below the bulk size (10,000 rows).  Unit costs fixed (a WAL or
-- data block 0.1 ms to write and to sync, a flush 1 ms, others 100 ns):
-- rules, never a timed figure.
\ir 00_helpers.inc
SELECT plan(8);
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
           AND detail LIKE '1 commit synced %; 1 transaction loaded a table created in an earlier transaction, writing '
                           || :'load_mb' || ' MB of WAL%skipping their WAL%'
           AND hint = 'load in one transaction: ' || :'load_mb' || ' MB of WAL fewer'),
          CASE WHEN :'minimal' THEN 1 ELSE 0 END::bigint,
          'the WAL named is the load''s as walload_statements counted it');
SELECT is((SELECT count(*) FROM d1 WHERE shape IN ('batch_commits', 'indexes_after_load')), 0::bigint,
          'the load is priced by no other shape');

-- the load's transaction also builds an index: a syncing commit itself,
-- replayed once, its WAL counted with the loads'
SELECT walload_reset();
CREATE TABLE lw3 (a int, b text);
BEGIN; INSERT INTO lw3 SELECT g, repeat('w', 40) FROM generate_series(1, 100000) g;
CREATE INDEX ON lw3 (a); COMMIT;
CREATE TEMP TABLE d4 AS SELECT * FROM walload_findings();
SELECT is((SELECT count(*) FROM d4 WHERE shape = 'one_transaction'
           AND evidence LIKE '2 commits,%' AND detail LIKE '2 commits synced %; 1 transaction loaded %'),
          CASE WHEN :'minimal' THEN 1 ELSE 0 END::bigint,
          'a load whose transaction also indexes: two commits replayed, the load counted once');

-- an indexed table loaded after its CREATE TABLE: indexes_after_load and
-- one_transaction both spare the index WAL, which the verdict's total of
-- the priced changes counts once
SELECT walload_reset();
CREATE TABLE lw4 (a int, b text);
CREATE INDEX ON lw4 (a);
INSERT INTO lw4 SELECT g, repeat('w', 40) FROM generate_series(1, 100000) g;
CREATE TEMP TABLE d5 AS SELECT * FROM walload_findings();
SELECT substring(evidence FROM 'all [0-9]+: ([0-9.]+) ms')::numeric AS together,
       (SELECT sum(saving_ms) FROM d5 WHERE finding NOT LIKE 'verdict:%') AS rows_sum,
       (SELECT max(saving_ms) FROM d5 WHERE finding NOT LIKE 'verdict:%') AS rows_max,
       (SELECT count(*) FROM d5 WHERE shape IN ('one_transaction', 'indexes_after_load') AND saving_ms > 0) AS both
  FROM d5 WHERE finding LIKE 'verdict:%' \gset
SELECT ok(CASE WHEN :'minimal' THEN :both = 2 AND :together < :rows_sum - 0.5 AND :together >= :rows_max - 0.1
               ELSE :both = 1 AND abs(:together - :rows_sum) <= 0.1 END,
          CASE WHEN :'minimal' THEN 'minimal: both priced, the index WAL counted once in the verdict, never below the larger'
               ELSE 'replica: indexes_after_load alone, the verdict its saving' END);

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
DROP TABLE lw0, lw1, lw2, lw3, lw4;
SELECT * FROM finish();

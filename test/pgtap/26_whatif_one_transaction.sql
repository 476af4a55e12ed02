-- clusters: minimal replica
-- walload_findings(), a load of many transactions that are not small ones
-- (whatif.c): each creates and loads a table, and under wal_level=minimal
-- its commit WAL-logs (or syncs) the new file, with a commit record and
-- flush of its own.  Their commit-time work replayed as one commit: the
-- finding "load in many transactions" offers one_transaction, priced.
-- Must not appear: for one such transaction; at wal_level=replica, where
-- their commits do no work on new files (plain commits, batch_commits'
-- if any); and the same commits are priced by no other shape.  Unit costs
-- fixed (100 ns each, a WAL flush 1 ms): counts and rules, no timed figure.
\ir 00_helpers.inc
SELECT plan(6);
SET walload.unit_costs = 'others=100, fsync_ns_per_file=1e6, wal_flush_ns=1e6';
SELECT current_setting('wal_level') = 'minimal' AS minimal \gset

SELECT walload_reset();
BEGIN; CREATE TABLE ot1 (a int, b text); INSERT INTO ot1 SELECT g, 'x' FROM generate_series(1, 2000) g;
CREATE INDEX ON ot1 (a); COMMIT;
BEGIN; CREATE TABLE ot2 (a int, b text); INSERT INTO ot2 SELECT g, 'x' FROM generate_series(1, 2000) g;
CREATE INDEX ON ot2 (a); COMMIT;
BEGIN; CREATE TABLE ot3 (a int, b text); INSERT INTO ot3 SELECT g, 'x' FROM generate_series(1, 2000) g;
CREATE INDEX ON ot3 (a); COMMIT;
BEGIN; CREATE TABLE ot4 (a int, b text); INSERT INTO ot4 SELECT g, 'x' FROM generate_series(1, 2000) g;
CREATE INDEX ON ot4 (a); COMMIT;
CREATE TEMP TABLE d1 AS SELECT * FROM walload_findings();

SELECT is((SELECT count(*) FROM walload_xacts WHERE outcome = 'commit' AND wal_logged_rels + synced_rels > 0),
          CASE WHEN :'minimal' THEN 4 ELSE 0 END::bigint,
          CASE WHEN :'minimal' THEN 'minimal: four commits WAL-logged or synced their new files'
               ELSE 'replica: no commit works on new files' END);
SELECT is((SELECT count(*) FROM d1 WHERE finding = 'load in many transactions' AND shape = 'one_transaction'
           AND setting IS NULL AND saving_ms > 0 AND evidence LIKE '4 commits%'),
          CASE WHEN :'minimal' THEN 1 ELSE 0 END::bigint,
          CASE WHEN :'minimal' THEN 'the four transactions: one_transaction offered, priced'
               ELSE 'replica: the commits do nothing one transaction would spare: not offered' END);
SELECT is((SELECT count(*) FROM d1 WHERE shape = 'one_transaction'),
          CASE WHEN :'minimal' THEN 1 ELSE 0 END::bigint,
          'one_transaction is offered once, by one finding');
SELECT is((SELECT count(*) FROM d1 WHERE shape IN ('batch_commits', 'drop_in_one_transaction', 'single_transaction_restore')),
          0::bigint, 'the same commits priced by no other shape');

SELECT walload_reset();
BEGIN; CREATE TABLE ot5 (a int, b text); INSERT INTO ot5 SELECT g, 'x' FROM generate_series(1, 2000) g;
CREATE INDEX ON ot5 (a); COMMIT;
CREATE TEMP TABLE d2 AS SELECT * FROM walload_findings();
SELECT is((SELECT count(*) FROM d2 WHERE shape = 'one_transaction' OR finding = 'load in many transactions'), 0::bigint,
          'one transaction: nothing to merge, not offered');
SELECT is((SELECT count(*) FROM d2 WHERE finding LIKE 'verdict:%'), 1::bigint, 'the verdict row is there');

RESET walload.unit_costs;
DROP TABLE ot1, ot2, ot3, ot4, ot5;
SELECT * FROM finish();

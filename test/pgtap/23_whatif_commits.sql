-- clusters: replica
-- walload_findings(), small commits and file deletion do not overlap
-- (whatif.c): a commit that deletes files always waits for its WAL flush
-- (xact.c RecordTransactionCommit), so it is priced with the deletion
-- (drop_in_one_transaction), never as a small commit to batch.  120
-- single-row INSERT commits and three DROP TABLE commits: the small
-- commits' finding, where it is made, counts the 120 only and offers
-- batch_commits; the deletion offers drop_in_one_transaction.  Whether the
-- small commits' finding is made depends on measured durations (their
-- flushes a tenth of their time), so that rule is checked on the recorded
-- figures, as 05_diagnose does; unit costs fixed for the walks.
\ir 00_helpers.inc
SELECT plan(4);
CREATE TABLE sc (id int);
CREATE TABLE sd1 (a int); CREATE TABLE sd2 (a int); CREATE TABLE sd3 (a int);
SET walload.unit_costs = 'others=100';
SELECT walload_reset();
SET synchronous_commit = on;
SELECT format('INSERT INTO sc VALUES (%s)', g) FROM generate_series(1, 120) g \gexec
DROP TABLE sd1;
DROP TABLE sd2;
DROP TABLE sd3;
CREATE TEMP TABLE d1 AS SELECT * FROM walload_findings();

SELECT is((SELECT count(*) FROM d1 WHERE finding = 'many small synchronous commits'
           AND evidence LIKE '120 small commits%' AND shape = 'batch_commits' AND setting IS NULL),
          (SELECT (100 * sum(commit_sync_ms) >= 10 * sum(total_ms))::int::bigint
           FROM walload_xacts WHERE outcome = 'commit' AND statements <= 2 AND dropped_rels = 0
           AND synchronous_commit <> 'off' AND wal_bytes > 0),
          'the small commits: the 120 INSERTs, not the DROPs, batch_commits (where their flushes are a tenth of their time)');
SELECT is((SELECT count(*) FROM d1 WHERE evidence LIKE '123 %' OR detail LIKE '123 commits%'), 0::bigint,
          'no finding counts the DROPs'' commits among the small ones');
SELECT is((SELECT shape FROM d1 WHERE finding LIKE 'file deletion%'), 'drop_in_one_transaction',
          'the DROPs: drop_in_one_transaction');
SELECT ok((SELECT detail LIKE '%but not those of commits that delete files, which always wait%'
           FROM d1 WHERE finding = 'many small synchronous commits') IS NOT FALSE,
          'synchronous_commit = off is said to spare none of the deleting commits');

RESET walload.unit_costs;
RESET synchronous_commit;
DROP TABLE sc;
SELECT * FROM finish();

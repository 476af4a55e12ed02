-- clusters: replica
-- walload_findings(), a restore in many transactions (whatif.c):
-- pg_restore without --single-transaction commits each object and its
-- data; as one transaction all commits but one, with their flushes, go.
-- Positive: ten transactions of a session named pg_restore: the finding
-- offers single_transaction_restore.  Negative: the same load from another
-- application: no restore finding.  Rules and counts only.
\ir 00_helpers.inc
SELECT plan(4);

SELECT walload_reset();
SET application_name = 'pg_restore';
SELECT format('CREATE TABLE rs%s (a int)', g) FROM generate_series(1, 5) g \gexec
SELECT format('INSERT INTO rs%s SELECT generate_series(1, 100)', g) FROM generate_series(1, 5) g \gexec
RESET application_name;
CREATE TEMP TABLE d1 AS SELECT * FROM walload_findings(application_name => 'pg_restore');
SELECT is((SELECT count(*) FROM d1 WHERE finding = 'restore without one transaction'
           AND shape = 'single_transaction_restore' AND setting IS NULL AND saving_ms > 0), 1::bigint,
          'pg_restore''s ten commits: --single-transaction offered, priced');
SELECT is((SELECT evidence FROM d1 WHERE finding = 'restore without one transaction'), 'pg_restore: 10 commits',
          'the commits counted');

SELECT walload_reset();
SET application_name = 'loader';
SELECT format('DROP TABLE rs%s', g) FROM generate_series(1, 5) g \gexec
SELECT format('CREATE TABLE rs%s (a int)', g) FROM generate_series(1, 5) g \gexec
SELECT format('INSERT INTO rs%s SELECT generate_series(1, 100)', g) FROM generate_series(1, 5) g \gexec
RESET application_name;
CREATE TEMP TABLE d2 AS SELECT * FROM walload_findings(application_name => 'loader');
SELECT is((SELECT count(*) FROM walload_xacts WHERE application_name = 'loader' AND outcome = 'commit'), 15::bigint,
          'the same load from another application: 15 commits');
SELECT is((SELECT count(*) FROM d2 WHERE shape = 'single_transaction_restore' OR finding LIKE 'restore%'), 0::bigint,
          'no restore finding for a load that is not pg_restore''s');

SELECT format('DROP TABLE rs%s', g) FROM generate_series(1, 5) g \gexec
SELECT * FROM finish();

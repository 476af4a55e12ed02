-- clusters: minimal replica
-- walload_findings(): the findings name the cause, under either wal_level;
-- walload_diagnose() (1.11) the same rows' reading columns, which fit 100
-- columns in psql.
\ir 00_helpers.inc
SELECT plan(27);
-- the what-ifs are priced by the cost model: here at 10 ns for every unit
-- cost (walload.unit_costs), so that a saving of walks is above 0
-- whatever the calibration timed
SET walload.unit_costs = 'others=10';

-- a load above wal_skip_threshold into tables created in the same transaction
SELECT walload_reset();
BEGIN;
CREATE TABLE dg1 (id int, pad text);
INSERT INTO dg1 SELECT g, repeat('d', 100) FROM generate_series(1, 50000) g;
CREATE TABLE dg2 (id int, pad text);
INSERT INTO dg2 SELECT g, repeat('d', 100) FROM generate_series(1, 50000) g;
COMMIT;
SELECT (xact_of('CREATE TABLE dg1')).xact_id AS load_xact \gset
SELECT is((SELECT count(*) FROM walload_findings(:load_xact) WHERE finding LIKE 'commit-time sync%'
           AND detail LIKE '1 commit(s) synced 2 relation file(s)%' AND detail LIKE '%fsynced at commit after a scan%'),
          CASE current_setting('wal_level') WHEN 'minimal' THEN 1::bigint ELSE 0::bigint END,
          'minimal: the load''s commit-time sync is named, with the two synced files and the fix; replica: not');
SELECT is((SELECT count(*) FROM walload_findings(:load_xact) WHERE finding = 'WAL written'
           AND detail ~ '^[0-9.]+ MB of WAL'), 1::bigint,
          'the WAL volume of the load is reported');
SELECT ok((SELECT count(*) = 0 OR current_setting('wal_level') = 'minimal' FROM walload_findings(:load_xact) WHERE finding LIKE 'full scans%'),
          'replica: the same load causes no scan finding');
-- the threshold what-if names a value above the largest synced file, and
-- no saving from merging commits: there was one
SELECT coalesce((regexp_match(value, '^([0-9]+)kB$'))[1]::bigint, -1) AS thr_kb,
       detail LIKE '%would save%' AS merge_hint
FROM walload_findings(:load_xact) WHERE finding LIKE 'commit-time sync%' AND setting = 'wal_skip_threshold'
UNION ALL SELECT -1, false WHERE current_setting('wal_level') <> 'minimal' \gset
SELECT ok(CASE current_setting('wal_level') WHEN 'minimal'
          THEN :thr_kb > greatest(pg_relation_size('dg1'), pg_relation_size('dg2')) / 1024
          ELSE :thr_kb = -1 END,
          'minimal: raising wal_skip_threshold is advised to a value above the largest synced file (' || :thr_kb || ' kB); replica: no such advice');
SELECT ok(NOT :'merge_hint'::boolean, 'one commit synced: no saving from merging commits is predicted');
SELECT cmp_ok((SELECT 11 + greatest(8, max(length(severity))) + greatest(9, max(length(saving_ms::text)))
                  + greatest(7, max(length(finding))) + greatest(6, max(length(coalesce(change, ''))))
               FROM walload_diagnose(:load_xact)), '<=', 100,
              'SELECT * FROM walload_diagnose(xact_id) fits 100 columns (psql''s aligned rows)');

-- a loop of DROP TABLE: one scan each
SELECT walload_reset();
DROP TABLE dg1;
DROP TABLE dg2;
CREATE TABLE dg3 (id int); CREATE TABLE dg4 (id int); CREATE TABLE dg5 (id int);
DROP TABLE dg3;
DROP TABLE dg4;
DROP TABLE dg5;
SELECT ok((SELECT detail LIKE '5 scan(s) to delete the files of 9 dropped, truncated, rewritten or rolled-back relation(s), one per commit or rollback that deleted any. %'
           FROM walload_findings() WHERE finding LIKE 'file deletion%'),
          'five autocommit DROP TABLEs: five deletion scans over 9 files (two tables have TOAST), named');
-- the short forms, what psql shows without expanded mode
SELECT is((SELECT evidence || ' | ' || hint FROM walload_findings() WHERE finding LIKE 'file deletion%'),
          '5 walks to delete 9 files | drop in one transaction: 4 walks fewer',
          'in short: the walks and files, and the change with its saving');
SELECT is((SELECT count(*) FROM walload_findings() WHERE length(evidence) > 80 OR length(hint) > 80), 0::bigint,
          'no short evidence or hint is longer than 80 characters');
SELECT ok((SELECT detail LIKE '%in one transaction%' FROM walload_findings() WHERE finding LIKE 'file deletion%'),
          'the hint says to drop in one transaction');
SELECT ok((SELECT (regexp_match(detail, 'instead of these 5: 4 walks and 4 WAL flushes fewer, about ([0-9.]+) ms'))[1]::float8 > 0
           FROM walload_findings() WHERE finding LIKE 'file deletion%'),
          'and predicts what one transaction would save: 4 of the 5 scans, in ms');
SELECT is((SELECT round(saving_ms::numeric, 1)::text FROM walload_findings() WHERE finding LIKE 'file deletion%'),
          (SELECT (regexp_match(detail, 'about ([0-9.]+) ms'))[1] FROM walload_findings() WHERE finding LIKE 'file deletion%'),
          'saving_ms is the saving the hint names');
SELECT is((SELECT finding FROM walload_findings() LIMIT 1 OFFSET 1), 'file deletion at commit/abort',
          'the one priced finding comes first, after the verdict, which names it');
SELECT ok((SELECT detail NOT LIKE '%VACUUM FULL%' FROM walload_findings() WHERE finding LIKE 'file deletion%'),
          'DROPs are not taken for VACUUM FULL');
-- for reading: walload_diagnose() is walload_findings()' first four columns
SELECT is((SELECT array_agg(n ORDER BY o) FROM unnest(
             (SELECT proargnames[9:] FROM pg_proc WHERE proname = 'walload_diagnose')) WITH ORDINALITY AS u(n, o)),
          ARRAY['severity', 'saving_ms', 'finding', 'change'],
          'walload_diagnose(): severity, saving_ms, finding, change');
SELECT results_eq('SELECT severity, saving_ms, finding, change FROM walload_findings()',
                  'SELECT * FROM walload_diagnose()',
                  'the same rows, in the same order, as walload_findings()');
SELECT is((SELECT count(*) FROM walload_findings()
           WHERE change IS DISTINCT FROM coalesce(setting || ' = ''' || value || '''', shape)), 0::bigint,
          'change: setting = ''value'', or the shape''s name');
-- psql's aligned rows: each column as wide as its widest value or name,
-- " | " between them, one space before and after
SELECT cmp_ok((SELECT 11 + greatest(8, max(length(severity))) + greatest(9, max(length(saving_ms::text)))
                  + greatest(7, max(length(finding))) + greatest(6, max(length(coalesce(change, ''))))
               FROM walload_diagnose()), '<=', 100,
              'SELECT * FROM walload_diagnose() fits 100 columns');
-- one DROP: the finding, but nothing to save by merging
SELECT walload_reset();
CREATE TABLE dg6 (id int);
DROP TABLE dg6;
SELECT is((SELECT count(*) FROM walload_findings() WHERE finding LIKE 'file deletion%' AND detail NOT LIKE '%would save%'),
          1::bigint, 'a single deletion scan: named, with no saving predicted');
SELECT is((SELECT hint FROM walload_findings() WHERE finding LIKE 'file deletion%'),
          'reuse staging tables instead of dropping them',
          'and in short, no one-transaction advice');

-- VACUUM FULL of three tables, as vacuumdb --full runs it: one transaction
-- per table, which cannot share one, so no saving from merging them
CREATE TABLE dg7 (id int); CREATE TABLE dg8 (id int); CREATE TABLE dg9 (id int);
SELECT walload_reset();
VACUUM FULL dg7;
VACUUM FULL dg8;
VACUUM FULL dg9;
SELECT ok((SELECT detail LIKE '%; 3 of them by VACUUM FULL, one transaction per table. %'
           FROM walload_findings() WHERE finding LIKE 'file deletion%'),
          'three VACUUM FULLs: their deletion scans are named as VACUUM FULL''s');
SELECT ok((SELECT detail LIKE '%VACUUM FULL (and vacuumdb --full) runs one transaction per table and cannot share one%'
                  AND detail NOT LIKE '%would save%' AND detail NOT LIKE '%drop or truncate tables in one transaction%'
           FROM walload_findings() WHERE finding LIKE 'file deletion%'),
          'the hint says what helps them, and offers no one-transaction what-if');
SELECT is((SELECT saving_ms FROM walload_findings() WHERE finding LIKE 'file deletion%'), NULL::numeric,
          'and prices no saving');
SELECT is((SELECT evidence || ' | ' || hint FROM walload_findings() WHERE finding LIKE 'file deletion%'),
          '3 walks to delete 3 files, 3 by VACUUM FULL | VACUUM FULL only bloated tables, or CLUSTER them in one transaction',
          'in short: VACUUM FULL named, and what helps it');
DROP TABLE dg7, dg8, dg9;

-- many small committed inserts with synchronous_commit on
CREATE TABLE dg_small (id int);
SELECT walload_reset();
SET synchronous_commit = on;
SELECT format('INSERT INTO dg_small VALUES (%s)', g) FROM generate_series(1, 150) g \gexec
-- the finding is made where the commits' sync phases are at least a tenth of
-- those transactions' time (diagnose.c): measured durations, which a busy
-- machine shifts, so the test checks the rule on the recorded figures
-- (computed in each assertion's own statement: a statement that creates a
-- table would be one more small commit)
SELECT is((SELECT count(*) FROM walload_findings() WHERE finding = 'many small synchronous commits'
           AND detail LIKE '150 commits of at most 2 statements%'),
          (SELECT (n = 150 AND 100 * commit_ms >= 10 * total_ms)::int::bigint
           FROM (SELECT count(*) AS n, sum(commit_sync_ms) AS commit_ms, sum(total_ms) AS total_ms
                 FROM walload_xacts WHERE outcome = 'commit' AND statements <= 2
                 AND synchronous_commit <> 'off' AND wal_bytes > 0) c),
          '150 single-row commits under synchronous_commit=on: the commit finding where their flushes are a tenth of their time');
-- (sums in another order than whatif.c's, saving_ms rounded to 0.1 ms)
SELECT ok(coalesce(abs(have - want::numeric) <= 0.05 + 1e-9 * want, have IS NULL AND want IS NULL),
          'priced: one transaction would save all commits'' sync phases but one')
  FROM (SELECT (SELECT saving_ms FROM walload_findings() WHERE finding = 'many small synchronous commits') AS have,
               (SELECT commit_ms * (n - 1) / n
                FROM (SELECT count(*) AS n, sum(commit_sync_ms) AS commit_ms, sum(total_ms) AS total_ms
                      FROM walload_xacts WHERE outcome = 'commit' AND statements <= 2
                      AND synchronous_commit <> 'off' AND wal_bytes > 0) c
                WHERE 100 * commit_ms >= 10 * total_ms) AS want) h;
SELECT is((SELECT count(*) FROM walload_findings() WHERE length(evidence) > 80 OR length(hint) > 80), 0::bigint,
          'here too, no short evidence or hint is longer than 80 characters');
DROP TABLE dg_small;
SELECT * FROM finish();

-- walload_report(): where a load's time went.  Only what does not depend
-- on the machine's speed is shown: which parts appear, that they add up to
-- the load's time, the order, the filters, and the warning when the ring
-- of transactions no longer holds the whole window.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS walload;
ALTER EXTENSION walload UPDATE;
RESET client_min_messages;
SET walload.track = 'top';
-- the what-ifs priced at 10 ns for every unit cost, not the calibration's
-- timed figures: a saving is above 0 on any machine
SET walload.unit_costs = 'others=10';
-- read once before the reset: the first read of the session may prune
-- catalog pages the tests before left dead tuples in (the updates' DDL),
-- which writes WAL and makes the SELECT a recorded statement
SELECT count(*) >= 0 AS warmed_up FROM walload_report();
SELECT walload_reset();

-- nothing recorded: no rows, no warning
SELECT count(*) AS parts_of_nothing FROM walload_report();

-- a load: CREATE TABLE + COPY + CREATE INDEX in one transaction, then a
-- TRUNCATE and a DROP, each its own transaction
BEGIN;
CREATE TABLE wl_load (id int);
\i test/data/wl_load_1000.sql
CREATE INDEX ON wl_load (id);
COMMIT;
TRUNCATE wl_load;
DROP TABLE wl_load;

-- the statements' parts (each timed), the commit's, and the time between
-- transactions; how many transactions had each
SELECT part, xacts, ms > 0 AS took_time, pct > 0 AS has_share
FROM walload_report()
WHERE part NOT LIKE 'in transactions%' AND part NOT LIKE 'commit%' AND part NOT LIKE 'before%'
  AND part NOT LIKE 'verdict%'
ORDER BY part;
SELECT part, xacts, detail FROM walload_report() WHERE part LIKE 'commit%' ORDER BY part;
-- for people (1.10): ms rounded to 1 decimal, pct a percentage with 1; the
-- first row is the verdict in words (whose time the load mostly was, and
-- its share), with no ms or pct of its own, and the transactions in scope
SELECT row_number() OVER () AS row_no,
       part IN ('verdict: the server''s statements', 'verdict: the commit phase',
                'verdict: the client''s own time') AS verdict, ms IS NULL AS no_ms, pct IS NULL AS no_pct, xacts,
       detail ~ '^\d+\.\d% of the load''s \d+\.\d ms$' AS detail_in_words
FROM walload_report() LIMIT 1;
SELECT bool_and(scale(ms) = 1 AND scale(pct) = 1) AS rounded_to_one_decimal,
       count(*) FILTER (WHERE part LIKE 'verdict%') AS verdicts
FROM walload_report() WHERE ms IS NOT NULL;
-- the verdict's share is that of the largest of the three (the
-- statements, the commit phase, the client's time), each the sum of its
-- parts' pct (within their rounding, 0.05 each)
WITH r AS (SELECT * FROM walload_report()),
     g AS (SELECT CASE WHEN part LIKE 'commit%' THEN 'verdict: the commit phase'
                       WHEN part LIKE 'in transactions%' OR part LIKE 'between%' OR part LIKE 'before%'
                       THEN 'verdict: the client''s own time'
                       ELSE 'verdict: the server''s statements' END AS verdict,
                  sum(pct) AS pct, count(*) AS n
           FROM r WHERE part NOT LIKE 'verdict%' GROUP BY 1)
SELECT abs(split_part(v.detail, '%', 1)::numeric - g.pct) <= 0.05 * g.n AS verdict_share_is_its_parts,
       g.pct >= (SELECT max(pct) - 0.05 * sum(n) FROM g) AS verdict_is_the_largest
FROM r v JOIN g ON g.verdict = v.part;
-- every row fits 100 columns in psql's aligned format (ms given 9
-- characters, up to 999999.9 ms: the one width that depends on the load)
SELECT 1 + max(length(part)) + 3 + 9 + 3 + 5 + 3 + greatest(5, max(length(xacts::text))) + 3
       + max(length(coalesce(detail, ''))) <= 100 AS fits_100_columns
FROM walload_report();
-- the parts add up to the load's time: from its first transaction's start
-- (or its session's, where that transaction is the session's first) to its
-- last one's end (one backend), and the shares to 100%, each within its
-- rounding (0.05 ms, 0.05%)
SELECT abs(sum(r.ms) - (SELECT extract(epoch FROM max(xact_end) -
                                CASE WHEN bool_or(first_in_session) THEN min(backend_start)
                                     ELSE min(xact_start) END) * 1000
                        FROM walload_xacts)) <= 0.05 * count(r.ms) + 0.01 AS parts_sum_to_the_load,
       abs(sum(r.pct) - 100) <= 0.05 * count(r.pct) AS pcts_sum_to_100
FROM walload_report() r;
-- largest first
SELECT bool_and(ms >= next_ms) AS largest_first
FROM (SELECT ms, lead(ms) OVER () AS next_ms FROM walload_report()) r WHERE next_ms IS NOT NULL;

-- the filters: this backend, this role and database; another backend, a
-- window in the future or before the load: nothing
SELECT count(*) = (SELECT count(*) FROM walload_report()) AS same_for_this_backend
FROM walload_report(pid => pg_backend_pid(), userid => current_user::regrole,
                    dbid => (SELECT oid FROM pg_database WHERE datname = current_database()));
SELECT count(*) AS other_backend FROM walload_report(pid => -1);
-- each transaction keeps its session's application_name
SELECT count(*) = count(*) FILTER (WHERE application_name = current_setting('application_name'))
       AS application_name_kept FROM walload_xacts;
SELECT count(*) = (SELECT count(*) FROM walload_report()) AS same_for_this_application
FROM walload_report(application_name => current_setting('application_name'));
SELECT count(*) AS other_application FROM walload_report(application_name => 'no such application');
SELECT count(*) AS future FROM walload_report(since => now() + interval '1 hour');
SELECT count(*) AS past FROM walload_report(until => (SELECT min(xact_start) FROM walload_xacts));
-- a window that holds only the TRUNCATE and the DROP
SELECT string_agg(part, ', ' ORDER BY part) AS parts
FROM walload_report(since => (SELECT min(xact_start) FROM walload_xacts WHERE truncate_ms > 0))
WHERE part NOT LIKE 'in transactions%' AND part NOT LIKE 'between%' AND part NOT LIKE 'commit%'
  AND part NOT LIKE 'verdict%';

-- walload_diagnose() takes the same filters and ranks its findings by
-- saving_ms: what following the hint would save, as its what-if prices it
-- (here: the TRUNCATE's and the DROP's deletions in one transaction); NULL
-- for a fact (the WAL written)
SELECT finding, saving_ms > 0 AS saves, severity IN ('info', 'warning') AS severity_ok
FROM walload_diagnose() WHERE finding LIKE 'file deletion%' OR finding = 'WAL written'
ORDER BY finding;
-- (1.10: after the first row, the verdict, which has no saving of its own)
SELECT bool_and(ok) AS largest_saving_first FROM (
  SELECT CASE WHEN saving_ms IS NULL THEN lead(saving_ms) OVER () IS NULL
              ELSE lead(saving_ms) OVER () IS NULL OR saving_ms >= lead(saving_ms) OVER () END AS ok
  FROM walload_diagnose() WHERE finding NOT LIKE 'verdict:%') d;
SELECT (array_agg(finding))[1] LIKE 'verdict: file deletion%' AS verdict_first,
       count(*) FILTER (WHERE finding LIKE 'verdict:%') AS verdicts
FROM walload_diagnose();
SELECT count(*) = (SELECT count(*) FROM walload_diagnose()) AS same_findings_for_this_backend
FROM walload_diagnose(pid => pg_backend_pid(), application_name => current_setting('application_name'));
SELECT severity, finding, evidence, saving_ms FROM walload_findings(pid => -1);
SELECT severity, finding, saving_ms FROM walload_diagnose(xact_id => 1, since => now() + interval '1 hour');
SELECT count(*) AS findings_of_the_drop_alone
FROM walload_diagnose(since => (SELECT max(xact_start) FROM walload_xacts))
WHERE finding LIKE 'file deletion%' AND saving_ms IS NULL;

-- a session's first transaction: the time from the session's start to it
-- is a part of its own (connection, authentication, the client's first
-- steps), not before a later transaction, and not before the window
\c
SET walload.track = 'top';
SELECT walload_reset();
CREATE TABLE wl_first (id int);
INSERT INTO wl_first VALUES (1);
SELECT count(*) FILTER (WHERE first_in_session) AS first_records,
       bool_and(backend_start = (SELECT backend_start FROM pg_stat_activity WHERE pid = pg_backend_pid()))
         AS backend_start_as_pg_stat_activity
FROM walload_xacts WHERE pid = pg_backend_pid();
SELECT part, ms > 0 AS took_time, detail FROM walload_report(pid => pg_backend_pid()) WHERE part LIKE 'before%';
SELECT count(*) AS before_in_a_later_window
FROM walload_report(since => (SELECT max(xact_start) FROM walload_xacts)) WHERE part LIKE 'before%';
SELECT abs(sum(r.ms) - (SELECT extract(epoch FROM max(xact_end) - min(backend_start)) * 1000
                        FROM walload_xacts)) <= 0.05 * count(r.ms) + 0.01 AS parts_sum_from_the_session_start
FROM walload_report() r;
-- another role sees the session's start as pg_stat_activity would show
-- it: not at all; so no time before its first transaction either
CREATE ROLE walload_report_other;
SET ROLE walload_report_other;
SELECT count(*) > 0 AS rows_seen, count(backend_start) AS starts_seen, count(first_in_session) AS firsts_seen,
       count(application_name) = count(*) AS names_seen
FROM walload_xacts;
SELECT count(*) AS before_for_another_role FROM walload_report() WHERE part LIKE 'before%';
RESET ROLE;
DROP ROLE walload_report_other;
DROP TABLE wl_first;

-- bad input changes nothing
\set VERBOSITY terse
SELECT * FROM walload_report(since => now(), until => now() - interval '1 second');
SELECT * FROM walload_diagnose(since => now(), until => now() - interval '1 second');

-- more transactions than the ring holds (walload.max_xacts = 1000): the
-- report reads the per-minute sums (walload_minutes), which hold them all
CREATE TABLE rp_many (id int);
SELECT walload_reset();
\set ECHO none
SELECT format('INSERT INTO rp_many VALUES (%s)', g) FROM generate_series(1, 1005) g \gexec
\set ECHO all
SELECT xacts_overwritten > 0 AS ring_wrapped FROM walload_info;
SELECT part, xacts FROM walload_report() WHERE part LIKE 'INSERT%';
-- walload_diagnose() needs each transaction: it says its findings cover
-- the part of the load the ring holds
SELECT severity, finding, evidence LIKE '1000 kept, % overwritten' AS evidence_ok,
       hint = 'raise walload.max_xacts' AS hint_ok
FROM walload_findings() WHERE finding = 'part of the load';
\set VERBOSITY default
-- not for a window the ring still holds whole
SELECT part, xacts FROM walload_report(since => (SELECT min(xact_start) FROM walload_xacts))
WHERE part LIKE 'INSERT%';
SELECT count(*) AS part_of_the_load FROM walload_diagnose(since => (SELECT min(xact_start) FROM walload_xacts))
WHERE finding = 'part of the load';
DROP TABLE rp_many;
RESET walload.track;

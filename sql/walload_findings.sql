-- walload_findings(): each finding's full text, pinned.  Every case builds
-- its finding from counts (walks, files, statements, rows, WAL images)
-- and shows every row of this backend's findings, so that a finding the
-- case must not make would show too.  Numbers are masked (#): they are
-- timed figures, or estimates from them.  So is the severity where a timed
-- share decides it (the scans' findings, any priced finding, the verdict
-- naming one): shown as "(timed)".  priced: whether the what-if engine
-- priced a change, a rule on counts at the unit costs set below.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS walload;
ALTER EXTENSION walload UPDATE;
RESET client_min_messages;
SET walload.track = 'top';
-- the what-ifs priced at 10 ns for every unit cost, not the calibration's
-- timed figures: a saving is above 0 on any machine
SET walload.unit_costs = 'others=10';
-- every number masked
CREATE FUNCTION m(t text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT regexp_replace(t, '[0-9]+', '#', 'g')
$$;
CREATE FUNCTION pin_findings(OUT severity text, OUT finding text, OUT change text, OUT evidence text,
                             OUT hint text, OUT setting text, OUT value text, OUT shape text,
                             OUT detail text, OUT priced boolean)
RETURNS SETOF record LANGUAGE sql SET search_path = public, pg_catalog AS $$
  SELECT CASE WHEN f.saving_ms IS NOT NULL
                OR (f.finding LIKE 'verdict: %' AND f.finding <> 'verdict: nothing avoidable found')
                OR f.finding IN ('full scans of shared buffers', 'commit-time sync of new files',
                                 'file deletion at commit/abort', 'in-place truncation')
              THEN '(timed)' ELSE f.severity END,
         f.finding, m(f.change), m(f.evidence), m(f.hint), f.setting, m(f.value), f.shape, m(f.detail),
         f.saving_ms IS NOT NULL
  FROM walload_findings(pid => pg_backend_pid()) f
  WHERE f.finding NOT IN ('the commit phase dominates', 'many small synchronous commits')
  ORDER BY f.finding COLLATE "C"
$$;
-- Two findings appear by a timed share alone (diagnose.c): the commit
-- phase's share of the transactions' time, the small commits' share spent
-- in their WAL flush.  Left out of pin_findings(): whether they appear is
-- no count.  timed_rules() checks instead that each appears where the
-- recorded figures meet its rule, and its text where it does.
CREATE FUNCTION timed_rules(OUT finding text, OUT appears_by_its_rule boolean, OUT text_if_it_appears boolean)
RETURNS SETOF record LANGUAGE sql SET search_path = public, pg_catalog AS $$
  WITH f AS (SELECT * FROM walload_findings(pid => pg_backend_pid())),
       x AS (SELECT * FROM walload_xacts WHERE pid = pg_backend_pid()),
       -- diagnose_commit(): at least 10 ms and half the time, a standby's wait apart
       c AS (SELECT count(*) FILTER (WHERE outcome = 'commit') AS commits,
                    sum(commit_ms) - coalesce(sum(commit_standby_ms), 0) AS ms, sum(total_ms) AS total
             FROM x),
       -- whatif.c xact_set(), small_offered(): 100 commits of at most 2
       -- statements, a tenth of their time in the commit's sync part
       s AS (SELECT count(*) AS n, sum(commit_sync_ms) AS ms, sum(total_ms) AS total
             FROM x WHERE outcome = 'commit' AND statements <= 2 AND synchronous_commit <> 'off'
             AND wal_bytes > 0 AND dropped_rels = 0 AND synced_rels = 0 AND wal_logged_rels = 0
             AND application_name <> 'pg_restore')
  SELECT 'the commit phase dominates',
         (SELECT count(*) FROM f WHERE f.finding = 'the commit phase dominates')
           = (SELECT (commits > 0 AND ms >= 10 AND 100 * ms >= 50 * total)::int FROM c),
         coalesce((SELECT bool_and(f.severity = 'warning' AND f.saving_ms IS NULL AND f.change IS NULL
                                   AND f.setting IS NULL AND f.shape IS NULL
                                   AND m(f.evidence) = 'commits took #.# of #.# ms (#%)'
                                   AND f.hint = 'see the priced findings'
                                   AND m(f.detail) = 'commit phases took #.# ms of #.# ms (#%): sync part #.# ms, '
                                     'cleanup part #.# ms; # relation file(s) synced, # WAL-logged. The commit '
                                     'waited for its WAL flush (and replication, if synchronous), or for file '
                                     'deletion. The priced findings name the changes.')
                   FROM f WHERE f.finding = 'the commit phase dominates'), true)
  UNION ALL
  SELECT 'many small synchronous commits',
         (SELECT count(*) FROM f WHERE f.finding = 'many small synchronous commits')
           = (SELECT (n >= 100 AND ms > 0 AND 100 * ms >= 10 * total)::int FROM s),
         coalesce((SELECT bool_and(f.saving_ms > 0 AND f.change = 'batch_commits' AND f.setting IS NULL
                                   AND f.shape = 'batch_commits'
                                   AND m(f.evidence) = '# small commits spent #.# ms (#%) flushing WAL'
                                   AND f.hint = 'batch them into fewer transactions'
                                   AND m(f.detail) = '# commits of at most # statements that deleted no file, '
                                     'with synchronous_commit on, spent #.# ms (#.# ms each, #% of their #.# ms) '
                                     'in the commit''s WAL flush. Each commit waits for a WAL flush. Batch rows '
                                     'into fewer transactions (or COPY): one transaction instead of these # would '
                                     'save about #.# ms; synchronous_commit = off for the loading session spares '
                                     'the same waits (a crash can then lose the last commits, never corrupts '
                                     'data), but not those of commits that delete files, which always wait.')
                   FROM f WHERE f.finding = 'many small synchronous commits'), true)
$$;
-- Each case begins with a CHECKPOINT: the first change of a page after
-- one logs the page whole, so the WAL's images are the same on every run,
-- not as a timed checkpoint falls.
-- read once before the reset: the first read of the session may prune
-- catalog pages (see walload_report.sql), a recorded statement
SELECT count(*) >= 0 AS warmed_up FROM pin_findings();
\x on

-- nothing recorded; a transaction not kept
CHECKPOINT;
SELECT walload_reset();
SELECT * FROM pin_findings();
SELECT finding, evidence, hint FROM walload_findings(xact_id => 9223372036854775807);
SELECT finding, evidence, hint FROM walload_findings(application_name => 'no such application');

-- one row into a table made before: WAL written, nothing avoidable; this
-- server neither streams nor archives WAL, so wal_level = minimal is
-- offered (not priced: no table was made in the load)
CREATE TABLE pin_one (id int);
CHECKPOINT;
SELECT walload_reset();
INSERT INTO pin_one VALUES (1);
SELECT * FROM pin_findings();
SELECT * FROM timed_rules();

-- the same with a replication slot: the WAL is needed, minimal not offered
SELECT 1 AS slot FROM pg_create_physical_replication_slot('pin_slot');
CHECKPOINT;
SELECT walload_reset();
INSERT INTO pin_one VALUES (2);
SELECT * FROM pin_findings();
SELECT pg_drop_replication_slot('pin_slot');

-- three DROP TABLEs, each its own transaction: three deletion walks, priced
-- as one transaction; the verdict names it
CREATE TABLE pin_d1 (id int); CREATE TABLE pin_d2 (id int); CREATE TABLE pin_d3 (id int);
CHECKPOINT;
SELECT walload_reset();
DROP TABLE pin_d1;
DROP TABLE pin_d2;
DROP TABLE pin_d3;
SELECT * FROM pin_findings();
SELECT * FROM timed_rules();

-- one DROP: the walk, nothing to merge (not priced)
CREATE TABLE pin_d4 (id int);
CHECKPOINT;
SELECT walload_reset();
DROP TABLE pin_d4;
SELECT * FROM pin_findings();

-- VACUUM FULL of two tables, one transaction each: said, not priced
CREATE TABLE pin_v1 (id int); CREATE TABLE pin_v2 (id int);
CHECKPOINT;
SELECT walload_reset();
VACUUM FULL pin_v1;
VACUUM FULL pin_v2;
SELECT * FROM pin_findings();
DROP TABLE pin_v1, pin_v2;

-- TRUNCATE of a table created in the same transaction: truncated in place
-- (a walk each, no deletion); priced as loading it once
CHECKPOINT;
SELECT walload_reset();
BEGIN;
CREATE TABLE pin_t (id int);
INSERT INTO pin_t SELECT generate_series(1, 100);
TRUNCATE pin_t;
INSERT INTO pin_t SELECT generate_series(1, 100);
COMMIT;
SELECT * FROM pin_findings();
-- and of one created before: a file deletion, no in-place truncation
CHECKPOINT;
SELECT walload_reset();
TRUNCATE pin_t;
SELECT * FROM pin_findings();
DROP TABLE pin_t;

-- ALTER TABLE ... SET TABLESPACE: a flush of one relation (and the old
-- file's deletion)
SET allow_in_place_tablespaces = on;
CREATE TABLESPACE pin_ts LOCATION '';
CREATE TABLE pin_move (id int);
INSERT INTO pin_move VALUES (1);
CHECKPOINT;
SELECT walload_reset();
ALTER TABLE pin_move SET TABLESPACE pin_ts;
SELECT * FROM pin_findings();
DROP TABLE pin_move;
DROP TABLESPACE pin_ts;

-- DROP DATABASE: a database walk
CREATE DATABASE pin_db;
CHECKPOINT;
SELECT walload_reset();
DROP DATABASE pin_db;
SELECT * FROM pin_findings();

-- after a checkpoint, a DELETE of a row on each of 300 pages: the
-- pages' images are the WAL (at 1 MB or more)
CREATE TABLE pin_fpi (id int) WITH (autovacuum_enabled = off);
INSERT INTO pin_fpi SELECT generate_series(1, 300 * 226);
SELECT count(*) FROM pin_fpi;
CHECKPOINT;
SELECT walload_reset();
DELETE FROM pin_fpi WHERE id % 226 = 0;
SELECT * FROM pin_findings();

-- CREATE INDEX over 100000 rows: the index's pages logged whole
CHECKPOINT;
SELECT walload_reset();
CREATE INDEX pin_fpi_id ON pin_fpi (id);
SELECT * FROM pin_findings();
DROP TABLE pin_fpi;

-- 10000 rows into a table indexed before (not in this load): not priced
CREATE TABLE pin_idx (id int);
CREATE INDEX ON pin_idx (id);
CHECKPOINT;
SELECT walload_reset();
INSERT INTO pin_idx SELECT generate_series(1, 10000);
SELECT * FROM pin_findings();
-- 9999 rows: no bulk load
CHECKPOINT;
SELECT walload_reset();
INSERT INTO pin_idx SELECT generate_series(1, 9999);
SELECT * FROM pin_findings();
DROP TABLE pin_idx;

-- pg_restore's commits: one transaction saves all but one commit's sync
-- part (priced where a commit's sync took any time at all: each flushed WAL)
CHECKPOINT;
SELECT walload_reset();
SET application_name = 'pg_restore';
INSERT INTO pin_one VALUES (3);
INSERT INTO pin_one VALUES (4);
RESET application_name;
SELECT * FROM pin_findings();

-- 120 single-row commits: the small commits' finding where their rule
-- says, with its text
CHECKPOINT;
SELECT walload_reset();
\set ECHO none
SELECT format('INSERT INTO pin_one VALUES (%s)', g) FROM generate_series(1, 120) g \gexec
\set ECHO all
SELECT * FROM timed_rules();
DROP TABLE pin_one;

\x off
DROP FUNCTION timed_rules();
DROP FUNCTION pin_findings();
DROP FUNCTION m(text);

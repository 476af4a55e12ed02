-- clusters: minimal replica
-- walload_findings(), TRUNCATE of a table created in the same transaction
-- (whatif.c): core truncates it in place, each file with a walk of the
-- pool, and under wal_level=minimal syncs it at commit whatever its size.
-- Positive: a table created, loaded, truncated and loaded again: the
-- in-place truncation finding offers no_truncate_reload, priced.  Negative:
-- VACUUM truncating a table's empty tail (a walk of its own): the same
-- finding, but no change of shape and no saving.  Unit costs fixed (100 ns
-- each, an fsync 1 ms a file): counts, never a timed figure.
-- Loading once also removes the TRUNCATE and the load before it, whose
-- rows it discards: the saving holds their recorded times (the rule, on
-- walload_statements' figures); not a load into an older table before the
-- CREATE TABLE, nor one after the TRUNCATE.
\ir 00_helpers.inc
SELECT plan(9);
SET walload.unit_costs = 'others=100, fsync_ns_per_file=1e6';

SELECT walload_reset();
BEGIN; CREATE TABLE nt1 (a int); INSERT INTO nt1 SELECT g FROM generate_series(1, 2000) g;
TRUNCATE nt1; INSERT INTO nt1 SELECT g FROM generate_series(1, 2000) g; COMMIT;
CREATE TEMP TABLE d1 AS SELECT * FROM walload_findings();

SELECT ok((SELECT sum(full_scans) >= 1 FROM walload_xacts WHERE outcome = 'commit'), 'the TRUNCATE walked the pool');
SELECT is((SELECT coalesce(setting, '-') || ' ' || shape FROM d1 WHERE finding LIKE 'in-place truncation%'),
          '- no_truncate_reload', 'the in-place truncation offers to load the table once');
SELECT ok((SELECT saving_ms > 0 FROM d1 WHERE finding LIKE 'in-place truncation%'), 'priced by the replay');
SELECT is((SELECT count(*) FROM d1 WHERE finding LIKE 'verdict:%' AND saving_ms IS NULL
           AND setting IS NULL AND shape IS NULL), 1::bigint,
          'the verdict comes once, with no saving or change of its own');

CREATE TABLE vt (a int) WITH (autovacuum_enabled = off);
INSERT INTO vt SELECT g FROM generate_series(1, 20000) g;
DELETE FROM vt WHERE a > 100;
SELECT walload_reset();
VACUUM vt;
CREATE TEMP TABLE d2 AS SELECT * FROM walload_findings();
SELECT is((SELECT count(*) FROM d2 WHERE finding LIKE 'in-place truncation%'), 1::bigint,
          'VACUUM truncated the table''s tail with a walk: the finding is made');
SELECT is((SELECT count(*) FROM d2 WHERE shape = 'no_truncate_reload' OR (finding LIKE 'in-place truncation%' AND saving_ms IS NOT NULL)),
          0::bigint, 'but no reload to avoid and no saving: VACUUM''s truncation is not a load''s');

CREATE TABLE old1 (a int);
SELECT walload_reset();
BEGIN; CREATE TABLE nt2 (a int); INSERT INTO nt2 SELECT g FROM generate_series(1, 100000) g;
TRUNCATE nt2; INSERT INTO nt2 SELECT g FROM generate_series(1, 10) g; COMMIT;
CREATE TEMP TABLE d3 AS SELECT * FROM walload_findings();
CREATE TEMP TABLE s3 AS SELECT stmt_no, command, elapsed_ms FROM walload_statements s
  JOIN walload_xacts x USING (xact_id) WHERE x.outcome = 'commit' AND s.toplevel;
SELECT ok((SELECT saving_ms FROM d3 WHERE finding = 'in-place truncation') >=
          (SELECT round(sum(elapsed_ms)::numeric, 1) - 0.1 FROM s3 WHERE stmt_no IN (2, 3) AND command IN ('INSERT', 'TRUNCATE TABLE')),
          'the saving holds the TRUNCATE and the 100000 rows it discarded, as recorded');
SELECT ok((SELECT detail LIKE '%the TRUNCATEs and the loads they discard (%' FROM d3
           WHERE finding = 'in-place truncation'), 'and says so');

SELECT walload_reset();
BEGIN; INSERT INTO old1 SELECT g FROM generate_series(1, 100000) g;
CREATE TABLE nt3 (a int); TRUNCATE nt3; INSERT INTO nt3 SELECT g FROM generate_series(1, 100000) g; COMMIT;
CREATE TEMP TABLE d4 AS SELECT * FROM walload_findings();
CREATE TEMP TABLE s4 AS SELECT stmt_no, command, elapsed_ms FROM walload_statements s
  JOIN walload_xacts x USING (xact_id) WHERE x.outcome = 'commit' AND s.toplevel;
SELECT ok((SELECT saving_ms FROM d4 WHERE finding = 'in-place truncation') <
          (SELECT min(elapsed_ms) FROM s4 WHERE stmt_no IN (1, 4) AND command = 'INSERT'),
          'must not: a load into an older table before the CREATE TABLE, or after the TRUNCATE');

RESET walload.unit_costs;
DROP TABLE nt1, vt, nt2, nt3, old1;
SELECT * FROM finish();

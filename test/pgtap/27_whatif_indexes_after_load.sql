-- clusters: minimal replica
-- walload_findings(), indexes created before a bulk load (diagnose.c,
-- scan_loads): a COPY or INSERT of at least 10,000 rows after a CREATE
-- INDEX in the same transaction, by walload_statements' order.  It is
-- priced (whatif.c wl_whatif_index_load: the load's time times its index
-- page visits' share, a row weighing 1.2 visits, less a build at 0.45 of
-- that) only where the loading session created a table in scope; a table
-- that held rows would be rebuilt whole, so loads into older tables are
-- named with no saving.  Must not appear: indexes created
-- after the load; a table loaded with few rows after its index; tables
-- created, loaded and indexed in turn (the records name no table: a
-- CREATE TABLE ends what an earlier CREATE INDEX says of later loads).  Rules
-- and counts only.
-- The common case: the indexes created in an earlier transaction than the
-- load.  The table is then WAL-logged, and each index adds a WAL record a
-- row (btinsert) beside the heap's (one a row for INSERT, one a page for
-- COPY): a load of at least 10,000 rows writing that many is named.  Must
-- not: the same loads into a table without indexes; a small insert.
\ir 00_helpers.inc
SELECT plan(16);

SELECT walload_reset();
CREATE TABLE ia1 (a int, b text);
BEGIN; CREATE INDEX ia1_a ON ia1 (a);
INSERT INTO ia1 SELECT g, 'x' FROM generate_series(1, 20000) g; COMMIT;
CREATE TEMP TABLE d1 AS SELECT * FROM walload_findings();
SELECT is((SELECT count(*) FROM d1 WHERE finding = 'indexes created before a bulk load'
           AND shape = 'indexes_after_load' AND setting IS NULL AND saving_ms > 0), 1::bigint,
          'CREATE TABLE, CREATE INDEX, then 20000 rows: indexes_after_load named and priced');
SELECT ok((SELECT evidence LIKE '1 load, 20000 rows, after CREATE INDEX' AND detail LIKE '%index page visits%'
           FROM d1 WHERE shape = 'indexes_after_load'),
          'the load counted, and the basis said');
SELECT ok(current_setting('wal_level') = 'minimal' OR
          (SELECT detail ~ '\(([1-9][0-9]*\.[0-9]) a row\)' AND (regexp_match(detail, '\(([0-9.]+) a row\)'))[1]::numeric >= 1
           FROM d1 WHERE shape = 'indexes_after_load'),
          'where the rows are WAL-logged, at least a WAL record a row: the index''s entries');

SELECT walload_reset();
TRUNCATE ia1; DROP INDEX ia1_a;
BEGIN; INSERT INTO ia1 SELECT g, 'x' FROM generate_series(1, 20000) g;
CREATE INDEX ia1_a ON ia1 (a); COMMIT;
CREATE TEMP TABLE d2 AS SELECT * FROM walload_findings();
SELECT is((SELECT count(*) FROM d2 WHERE shape = 'indexes_after_load' OR finding LIKE 'indexes created%'), 0::bigint,
          'the index built after the load: not named');

SELECT walload_reset();
BEGIN; CREATE INDEX ia1_b ON ia1 (b);
INSERT INTO ia1 SELECT g, 'x' FROM generate_series(1, 500) g; COMMIT;
CREATE TEMP TABLE d3 AS SELECT * FROM walload_findings();
SELECT is((SELECT count(*) FROM d3 WHERE shape = 'indexes_after_load'), 0::bigint,
          '500 rows after the index: not a bulk load, not named');
SELECT is((SELECT count(*) FROM d3 WHERE saving_ms > 0 AND num_nonnulls(setting, shape) <> 1), 0::bigint,
          'every finding with a saving carries one change');

CREATE TABLE ie (a int, b text);
CREATE INDEX ie_a ON ie (a);
CREATE TABLE inone (a int, b text);
SELECT walload_reset();
INSERT INTO ie SELECT g, 'x' FROM generate_series(1, 20000) g;
CREATE TEMP TABLE d4 AS SELECT * FROM walload_findings();
SELECT is((SELECT count(*) FROM d4 WHERE finding = 'indexes created before a bulk load'
           AND shape = 'indexes_after_load' AND saving_ms IS NULL AND evidence LIKE '1 load, 20000 rows,%'), 1::bigint,
          'INSERT of 20000 rows into a table indexed in an earlier transaction: named');

SELECT walload_reset();
COPY ie (a) FROM PROGRAM 'seq 1 20000';
CREATE TEMP TABLE d5 AS SELECT * FROM walload_findings();
SELECT is((SELECT count(*) FROM d5 WHERE shape = 'indexes_after_load'), 1::bigint,
          'COPY of 20000 rows into it: named');

SELECT walload_reset();
INSERT INTO inone SELECT g, 'x' FROM generate_series(1, 20000) g;
COPY inone (a) FROM PROGRAM 'seq 1 20000';
INSERT INTO ie SELECT g, 'x' FROM generate_series(1, 500) g;
CREATE TEMP TABLE d6 AS SELECT * FROM walload_findings();
SELECT is((SELECT count(*) FROM d6 WHERE shape = 'indexes_after_load' OR finding LIKE 'indexes created%'), 0::bigint,
          'must not: INSERT and COPY of 20000 rows into a table without indexes, 500 rows into the indexed one');
SELECT is((SELECT count(*) FROM walload_statements WHERE toplevel AND rows >= 500), 3::bigint,
          'the three loads were recorded');

-- must not: each table created, loaded, then indexed, in turn, in one
-- transaction (the second load follows the first table's CREATE INDEX)
SELECT walload_reset();
BEGIN;
CREATE TABLE it1 (a int, b text);
INSERT INTO it1 SELECT g, 'x' FROM generate_series(1, 20000) g;
CREATE INDEX ON it1 (a);
CREATE TABLE it2 (a int, b text);
INSERT INTO it2 SELECT g, 'x' FROM generate_series(1, 20000) g;
CREATE INDEX ON it2 (a);
COMMIT;
SELECT is((SELECT count(*) FROM walload_findings() WHERE shape = 'indexes_after_load'), 0::bigint,
          'must not: tables created, loaded and indexed in turn in one transaction');

-- priced: the session created the table, indexed it, then loaded it, in
-- three transactions and in one; the saving is the rule's, from the
-- statement's recorded time and page visits
SELECT walload_reset();
CREATE TABLE ip (a int, b text);
CREATE INDEX ip_a ON ip (a);
COPY ip (a) FROM PROGRAM 'seq 1 20000';
CREATE TEMP TABLE d7 AS SELECT * FROM walload_findings();
CREATE TEMP TABLE p7 AS
  SELECT sum(elapsed_ms * v / (v + 1.2 * rows) * 0.55)::numeric AS ms FROM
  (SELECT elapsed_ms, rows, shared_blks_hit + shared_blks_read - 2 * shared_blks_dirtied
          - CASE WHEN command = 'COPY' THEN 0 ELSE rows END AS v
   FROM walload_statements WHERE toplevel AND command IN ('COPY', 'INSERT') AND rows >= 10000) s;
SELECT ok((SELECT ms > 0 FROM p7) AND
          (SELECT abs(saving_ms - (SELECT ms FROM p7)) <= 0.1 AND hint = 'create indexes after loading'
           AND detail NOT LIKE '%Not priced%'
           FROM d7 WHERE shape = 'indexes_after_load'),
          'created, indexed, loaded by one session: priced by the load''s index page visits');
SELECT walload_reset();
BEGIN;
CREATE TABLE ip2 (a int, b text);
CREATE INDEX ON ip2 (a);
INSERT INTO ip2 SELECT g, 'x' FROM generate_series(1, 20000) g;
COMMIT;
SELECT ok((SELECT saving_ms > 0 FROM walload_findings() WHERE shape = 'indexes_after_load'),
          'the same in one transaction: priced');
SELECT ok((SELECT saving_ms < (SELECT sum(elapsed_ms) FROM walload_statements WHERE command = 'INSERT')::numeric
           FROM walload_findings() WHERE shape = 'indexes_after_load'),
          'the saving is a part of the load''s own time');
-- must not: a session that created a table loads it without indexes; must
-- not be priced: a load by a session that created no table in scope
SELECT walload_reset();
CREATE TABLE ip3 (a int, b text);
COPY ip3 (a) FROM PROGRAM 'seq 1 20000';
SELECT is((SELECT count(*) FROM walload_findings() WHERE shape = 'indexes_after_load'), 0::bigint,
          'must not: a table created and loaded without indexes');
SELECT walload_reset();
COPY ie (a) FROM PROGRAM 'seq 1 20000';
SELECT is((SELECT count(*) FROM walload_findings() WHERE shape = 'indexes_after_load' AND saving_ms IS NULL),
          1::bigint, 'must not be priced: a table indexed and created before the load''s scope');

DROP TABLE ia1, ie, inone, it1, it2, ip, ip2, ip3;
SELECT * FROM finish();

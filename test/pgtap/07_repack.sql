-- clusters: replica
-- REPACK (PostgreSQL 19): rewrites a table into a new file like CLUSTER and
-- VACUUM FULL; the old file is deleted at commit (one scan), and its time is
-- a rewrite's.  REPACK (CONCURRENTLY) needs logical decoding: replica only.
-- Skipped before 19, which has no REPACK.
\ir 00_helpers.inc
SELECT plan(5);
SELECT current_setting('server_version_num')::int >= 190000 AS has_repack \gset
\if :has_repack
CREATE TABLE rp (id int PRIMARY KEY, pad text);
INSERT INTO rp SELECT g, repeat('r', 50) FROM generate_series(1, 20000) g;
SELECT walload_reset();
REPACK rp;
SELECT is((SELECT string_agg(command || ':' || scans_drop_pending, ',') FROM walload_statements
           WHERE query LIKE 'REPACK rp%'), 'REPACK:1',
          'REPACK is recorded as REPACK, with the deletion of the old file at commit (1 scan)');
SELECT ok((xact_of('REPACK rp')).rewrite_ms > 0 AND (xact_of('REPACK rp')).other_ms = 0,
          'its time counts as a rewrite');
SELECT walload_reset();
CLUSTER rp USING rp_pkey;
SELECT is((SELECT string_agg(command || ':' || scans_drop_pending, ',') FROM walload_statements
           WHERE query LIKE 'CLUSTER rp%'), 'CLUSTER:1',
          'CLUSTER (a form of REPACK in 19) is still recorded as CLUSTER, 1 scan');
SELECT walload_reset();
REPACK (CONCURRENTLY) rp;
SELECT is((SELECT string_agg(command || ':' || scans_drop_pending, ',') FROM walload_statements
           WHERE query LIKE 'REPACK (CONCURRENTLY) rp%'), 'REPACK:1',
          'REPACK (CONCURRENTLY) is recorded, 1 scan');
SELECT is((xact_of('REPACK (CONCURRENTLY) rp')).full_scans, 1::bigint,
          'and its transaction has that scan and no other');
DROP TABLE rp;
\else
SELECT skip('PostgreSQL ' || current_setting('server_version') || ' has no REPACK (19+)', 5);
\endif
SELECT * FROM finish();

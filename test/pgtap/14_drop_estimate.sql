-- clusters: replica
-- The deletion part of a commit's prediction (cost.c, wl_commit_est):
-- core truncates a dropped file's main fork at commit, which costs with
-- the blocks the file system has allocated; blocks written but still only
-- in the page cache (not allocated yet) cost far less to drop.  Two tables
-- of about 1000 blocks: one dropped after a CHECKPOINT has written and
-- synced it (every block allocated), one right after its load (its blocks
-- allocated or not, as the kernel's writeback has gone: the file system
-- tells, FIEMAP).  The prediction's accuracy is bench/ (predict); this
-- checks the rule, with unit costs fixed by walload.unit_costs (no timed
-- figure): an allocated block at delete_ns_per_block (1 ms), one only in
-- the page cache at delete_cached_ns_per_block (1 us), every other figure
-- 0, so each DROP's prediction is its blocks at those prices and nothing
-- else.
\ir 00_helpers.inc
SELECT plan(6);

CREATE TABLE d_cached (a int, b bigint, c bigint, d bigint);
CREATE TABLE d_stored (a int, b bigint, c bigint, d bigint);
CREATE TABLE d_stored2 (a int, b bigint, c bigint, d bigint);
INSERT INTO d_stored SELECT g, g, g, g FROM generate_series(1, 150000) g;
INSERT INTO d_stored2 SELECT g, g, g, g FROM generate_series(1, 150000) g;
CHECKPOINT;
INSERT INTO d_cached SELECT g, g, g, g FROM generate_series(1, 150000) g;
-- all forks, in blocks (no TOAST table: fixed-width columns)
SELECT pg_table_size('d_stored') / current_setting('block_size')::int AS stored_blocks,
       pg_table_size('d_cached') / current_setting('block_size')::int AS cached_blocks \gset

SET walload.unit_costs = 'others=0, delete_ns_per_block=1e6, delete_cached_ns_per_block=1e3';
SELECT walload_reset();
DROP TABLE d_stored;
DROP TABLE d_cached;
RESET walload.unit_costs;

SELECT is(ARRAY[(xact_of('DROP TABLE d_cached')).dropped_rels, (xact_of('DROP TABLE d_cached')).full_scans::int,
                (xact_of('DROP TABLE d_stored')).dropped_rels, (xact_of('DROP TABLE d_stored')).full_scans::int],
          ARRAY[1, 1, 1, 1], 'each DROP deleted one file (no TOAST table) and walked the pool once');
SELECT is((xact_of('DROP TABLE d_stored')).pred_commit_ms, :stored_blocks * 1.0::float8,
          'the synced table''s deletion: each of its ' || :stored_blocks || ' blocks priced as allocated (1 ms), nothing else');
-- d_cached's prediction is k ms + (n - k) us for its n blocks, k of them
-- allocated: k a whole number from 0 to n
SELECT round((((xact_of('DROP TABLE d_cached')).pred_commit_ms * 1000 - :cached_blocks) / 999)::numeric, 6) AS k \gset
SELECT ok(:k = round(:k) AND :k BETWEEN 0 AND :cached_blocks,
          'the loaded table''s deletion: each of its ' || :cached_blocks ||
          ' blocks priced either as allocated or as only cached (' || round(:k) || ' allocated), nothing else');
SELECT cmp_ok((xact_of('DROP TABLE d_stored')).pred_commit_ms, '>=', (xact_of('DROP TABLE d_cached')).pred_commit_ms,
              'no block of the loaded table is dearer than one of the synced table');

-- and not the other way: a synced table's blocks are not priced as only
-- cached (set for one transaction: SET LOCAL)
BEGIN;
SET LOCAL walload.unit_costs = 'others=0, delete_cached_ns_per_block=1e6, delete_cached_ns_per_file=1e6';
DROP TABLE d_stored2;
COMMIT;
SELECT is((xact_of('DROP TABLE d_stored2')).pred_commit_ms, 0::float8,
          'with only the cached blocks priced, the synced table''s deletion costs nothing');
SELECT is(current_setting('walload.unit_costs'), '', 'SET LOCAL ended with the transaction');

SELECT * FROM finish();

-- clusters: replica
-- The deletion part of a commit's prediction (cost.c, wl_commit_est):
-- core truncates a dropped file's main fork at commit, which costs with
-- the blocks the file system has allocated; blocks written but still only
-- in the page cache (not allocated yet) cost far less to drop.  Two tables
-- of about 1000 blocks: one dropped right after its load, one after a CHECKPOINT
-- has written and synced it.  The prediction's accuracy is bench/
-- (predict); this checks that the two are told apart.  Both DROPs follow a
-- walk of their own session (the warm-up's: two, since the walk right
-- after the one that maps the header pages is priced cold), with as little
-- touched since: their walks are predicted alike (headers as cached),
-- so what sets them apart is the truncation.  Priced alike, they would be
-- within a few microseconds; 1000 allocated blocks take far longer than
-- 0.1 ms to truncate on any disk (on this machine's, about 1-2 ms).
\ir 00_helpers.inc
SELECT plan(3);

CREATE TABLE d_warmup (a int);
CREATE TABLE d_warmup2 (a int);
CREATE TABLE d_cached (a int, b bigint, c bigint, d bigint);
CREATE TABLE d_stored (a int, b bigint, c bigint, d bigint);
INSERT INTO d_stored SELECT g, g, g, g FROM generate_series(1, 150000) g;
CHECKPOINT;
INSERT INTO d_cached SELECT g, g, g, g FROM generate_series(1, 150000) g;

DROP TABLE d_warmup;
DROP TABLE d_warmup2;
SELECT walload_reset();
DROP TABLE d_stored;
DROP TABLE d_cached;

SELECT is(ARRAY[(xact_of('DROP TABLE d_cached')).dropped_rels, (xact_of('DROP TABLE d_cached')).full_scans::int,
                (xact_of('DROP TABLE d_stored')).dropped_rels, (xact_of('DROP TABLE d_stored')).full_scans::int],
          ARRAY[1, 1, 1, 1], 'each DROP deleted one file (no TOAST table) and walked the pool once');
SELECT cmp_ok((xact_of('DROP TABLE d_stored')).pred_commit_ms - (xact_of('DROP TABLE d_cached')).pred_commit_ms,
              '>', 0.1::float8,
              'the synced table''s deletion is predicted dearer than the one still in the page cache');
SELECT cmp_ok((xact_of('DROP TABLE d_cached')).pred_commit_ms, '>', 0::float8, 'the DROP commits have a prediction');

SELECT * FROM finish();

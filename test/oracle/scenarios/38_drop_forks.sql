-- DROP of relations whose files have different forks, each in autocommit,
-- then two in one transaction: one DropRelationsAllBuffers walk per commit.
-- A table that VACUUM gave a free space map and a visibility map; an
-- unlogged table (init fork); a table of a hundred rows in one page (its
-- main fork only); a table of more than NBuffers/32 blocks (8192 at 2GB);
-- and two small tables together, far below that: core would drop their
-- buffers block by block if it knew every fork's size, which outside
-- recovery it never does (smgrnblocks_cached), so they walk too.  walload
-- opens each fork at the commit to size it; whether it predicts the walk
-- must not depend on which forks it finds.
-- @expect minimal: drop_pending=5
-- @expect replica: drop_pending=5
-- @setup
CREATE TABLE df_vacuumed (id int, pad text) WITH (autovacuum_enabled = off);
INSERT INTO df_vacuumed SELECT g, repeat('v', 200) FROM generate_series(1, 20000) g;
DELETE FROM df_vacuumed WHERE id % 2 = 0;
VACUUM df_vacuumed;
CREATE UNLOGGED TABLE df_unlogged (id int);
INSERT INTO df_unlogged SELECT g FROM generate_series(1, 1000) g;
CREATE TABLE df_small (id int);
INSERT INTO df_small SELECT g FROM generate_series(1, 100) g;
CREATE TABLE df_large (id int, pad text) WITH (autovacuum_enabled = off);
INSERT INTO df_large SELECT g, repeat('l', 200) FROM generate_series(1, 360000) g;
CREATE TABLE df_one (id int);
CREATE TABLE df_two (id int);
INSERT INTO df_two SELECT g FROM generate_series(1, 100) g;
DO $$ BEGIN
  ASSERT pg_relation_size('df_vacuumed', 'fsm') > 0, 'premise: df_vacuumed has a free space map';
  ASSERT pg_relation_size('df_vacuumed', 'vm') > 0, 'premise: df_vacuumed has a visibility map';
  ASSERT (pg_stat_file(pg_relation_filepath('df_unlogged') || '_init')).size = 0,
    'premise: df_unlogged has an empty init fork';
  ASSERT (pg_stat_file(pg_relation_filepath('df_small') || '_fsm', true)).size IS NULL AND
    (pg_stat_file(pg_relation_filepath('df_small') || '_vm', true)).size IS NULL,
    'premise: df_small has its main fork only';
  ASSERT pg_relation_size('df_large') / current_setting('block_size')::int >
    pg_size_bytes(current_setting('shared_buffers')) / current_setting('block_size')::int / 32,
    'premise: df_large has more than NBuffers/32 blocks';
END $$;
-- @run
DROP TABLE df_vacuumed;
DROP TABLE df_unlogged;
DROP TABLE df_small;
DROP TABLE df_large;
BEGIN;
DROP TABLE df_one;
DROP TABLE df_two;
COMMIT;

-- autovacuum truncating a table's empty tail (all but the first 100 of
-- 20000 rows deleted): one DropRelFileNodeBuffers in the autovacuum worker,
-- which runs no hooked statement (walload records it at its commit,
-- observe.c wl_observe_worker_xact).  A table whose tail is kept is
-- vacuumed too: no walk.  The cluster runs with autovacuum off; the run
-- turns it on until the tail is gone (bounded), then off again, so that the
-- launcher has exited when the oracle cuts.  The oracle counts autovacuum
-- workers' calls as it counts a client backend's (run.sh: AutoVacWorkerMain).
-- @expect minimal: drop_rel=1
-- @expect replica: drop_rel=1
-- @setup
CREATE TABLE av_tail (id int, pad text) WITH (autovacuum_enabled = off);
INSERT INTO av_tail SELECT g, repeat('v', 200) FROM generate_series(1, 20000) g;
DELETE FROM av_tail WHERE id > 100;
CREATE TABLE av_keep (id int, pad text) WITH (autovacuum_enabled = off);
INSERT INTO av_keep SELECT g, repeat('v', 200) FROM generate_series(1, 20000) g;
DELETE FROM av_keep WHERE id < 19900;
-- @run
ALTER TABLE av_tail SET (autovacuum_enabled = on, autovacuum_vacuum_threshold = 10, autovacuum_vacuum_scale_factor = 0);
ALTER TABLE av_keep SET (autovacuum_enabled = on, autovacuum_vacuum_threshold = 10, autovacuum_vacuum_scale_factor = 0);
ALTER SYSTEM SET autovacuum = on;
ALTER SYSTEM SET autovacuum_naptime = 1;
SELECT pg_reload_conf();
DO $$
BEGIN
  FOR i IN 1..600 LOOP
    PERFORM pg_stat_clear_snapshot();
    EXIT WHEN pg_relation_size('av_tail') < 10 * 8192 AND
      (SELECT autovacuum_count > 0 FROM pg_stat_user_tables WHERE relname = 'av_keep');
    PERFORM pg_sleep(0.1);
  END LOOP;
END
$$;
ALTER TABLE av_tail SET (autovacuum_enabled = off);
ALTER TABLE av_keep SET (autovacuum_enabled = off);
ALTER SYSTEM RESET autovacuum;
ALTER SYSTEM RESET autovacuum_naptime;
SELECT pg_reload_conf();

-- clusters: replica
-- A lone DROP's files are sized when it drops them only if something runs
-- inside the DROP that could read a live prediction: an sql_drop or
-- ddl_command_end event trigger (hooks.c, relation_access).  Whether there
-- is one is kept until pg_event_trigger changes (a syscache callback on
-- it, as core's own event-trigger cache).  So: a DROP with no trigger
-- (the answer kept: none), then CREATE EVENT TRIGGER, then a DROP whose
-- trigger reads its backend's prediction: it must price the dropped table's
-- blocks, which it can only if the new trigger was seen.  Unit costs fixed
-- by walload.unit_costs (no timed figure): a block to delete 1 ms, all
-- else 0; the live prediction sizes a dropped file from relpages (set by
-- VACUUM) without a system call.
\ir 00_helpers.inc
SELECT plan(4);
CREATE TABLE et_log (query text, pred_commit_ms float8, pred_dropped_rels int);
-- a table created in the trigger: the transaction's storage is touched,
-- so the trigger's next statement ends with a new prediction
CREATE FUNCTION et_note() RETURNS event_trigger LANGUAGE plpgsql AS $$
BEGIN
  CREATE TABLE IF NOT EXISTS et_made (x int);
  INSERT INTO et_log SELECT current_query(), pred_commit_ms, pred_dropped_rels
    FROM walload_activity WHERE pid = pg_backend_pid();
END $$;
CREATE TABLE et_first AS SELECT g FROM generate_series(1, 20000) g;
CREATE TABLE et_sized AS SELECT g FROM generate_series(1, 20000) g;
CREATE TABLE et_empty (g int);
VACUUM ANALYZE et_first, et_sized, et_empty;
SELECT relpages AS sized_pages FROM pg_class WHERE relname = 'et_sized' \gset
SET walload.track = 'all';
SET walload.unit_costs = 'others=0, delete_ns_per_block=1e6, delete_cached_ns_per_block=1e6';

DROP TABLE et_first;
CREATE EVENT TRIGGER et_drop ON sql_drop EXECUTE FUNCTION et_note();
DROP TABLE et_sized;
DROP TABLE et_empty;
DROP EVENT TRIGGER et_drop;
RESET walload.unit_costs;

SELECT is((SELECT count(*)::int FROM et_log), 2, 'the trigger ran at each DROP after its creation');
SELECT is((SELECT pred_dropped_rels FROM et_log WHERE query LIKE 'DROP TABLE et_sized%'), 1,
          'inside the DROP, the prediction counts the dropped file');
SELECT cmp_ok((SELECT pred_commit_ms FROM et_log WHERE query LIKE 'DROP TABLE et_sized%'), '>=',
              :sized_pages * 1.0::float8,
              'the trigger created after a DROP was seen: the table''s ' || :sized_pages ||
              ' blocks are priced in the prediction its trigger reads');
-- and not a constant: an empty table's DROP prices nothing
SELECT is((SELECT pred_commit_ms FROM et_log WHERE query LIKE 'DROP TABLE et_empty%'), 0::float8,
          'an empty table''s DROP: nothing to price');

SELECT * FROM finish();

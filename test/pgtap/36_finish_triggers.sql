-- clusters: minimal
-- ExecutorFinish runs a query's AFTER triggers (foreign keys' too) and its
-- writable CTEs: a statement with them is measured there, its triggers'
-- statements nested inside it; one without them passes Finish on
-- unmeasured (hooks.c finish_runs_nothing) and loses nothing.
\ir 00_helpers.inc
SELECT plan(8);
SET walload.track = 'all';
CREATE TABLE fin_plain (id int);
CREATE TABLE fin_trg (id int);
CREATE TABLE fin_log (id int, note text);
CREATE FUNCTION fin_log_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO fin_log VALUES (NEW.id, repeat('x', 200));
  RETURN NULL;
END $$;
CREATE TRIGGER fin_after AFTER INSERT ON fin_trg FOR EACH ROW EXECUTE FUNCTION fin_log_row();
CREATE TABLE fin_parent (id int PRIMARY KEY);
INSERT INTO fin_parent SELECT generate_series(1, 20);
CREATE TABLE fin_child (id int REFERENCES fin_parent);
SELECT walload_reset();

-- an AFTER row trigger: its INSERTs run in the outer INSERT's Finish
INSERT INTO fin_trg SELECT generate_series(1, 20);
SELECT xact_id AS tx FROM xact_of('INSERT INTO fin_trg') \gset
SELECT is((SELECT count(*) FROM walload_statements
           WHERE xact_id = :tx AND command = 'INSERT' AND NOT toplevel AND nest_level = 1
             AND query LIKE 'INSERT INTO fin_log%'), 20::bigint,
          'AFTER trigger: each firing''s INSERT is recorded nested at level 1');
SELECT is((SELECT count(*) FROM walload_statements WHERE xact_id = :tx AND toplevel), 1::bigint,
          'AFTER trigger: only the outer INSERT is at top level');
SELECT cmp_ok((SELECT wal_records FROM walload_statements WHERE xact_id = :tx AND toplevel),
              '>=', (SELECT sum(wal_records) FROM walload_statements WHERE xact_id = :tx AND NOT toplevel)::bigint + 20,
              'AFTER trigger: the outer INSERT''s WAL holds its 20 rows and every trigger''s INSERT (measured in Finish)');
SELECT cmp_ok((SELECT shared_blks_dirtied + shared_blks_hit FROM walload_statements WHERE xact_id = :tx AND toplevel),
              '>=', (SELECT sum(shared_blks_dirtied + shared_blks_hit) FROM walload_statements
                     WHERE xact_id = :tx AND NOT toplevel)::bigint,
              'AFTER trigger: the outer INSERT''s buffers hold the trigger''s');

-- a writable CTE: its ModifyTable runs to completion in Finish
WITH w AS (INSERT INTO fin_log SELECT g, 'cte' FROM generate_series(1, 30) g RETURNING 1) SELECT 1;
SELECT xact_id AS wx FROM xact_of('WITH w AS (INSERT INTO fin_log') \gset
SELECT cmp_ok((SELECT wal_records FROM walload_statements WHERE xact_id = :wx AND toplevel), '>=', 30::bigint,
              'writable CTE: the statement''s WAL holds the CTE''s 30 rows');

-- no trigger: nothing nested, the statement's own work only
INSERT INTO fin_plain SELECT generate_series(1, 20);
SELECT xact_id AS px FROM xact_of('INSERT INTO fin_plain') \gset
SELECT is((SELECT count(*) FROM walload_statements WHERE xact_id = :px), 1::bigint,
          'no trigger: the INSERT alone, nothing nested');
SELECT cmp_ok((SELECT wal_records FROM walload_statements WHERE xact_id = :px), '>=', 20::bigint,
              'no trigger: the INSERT''s WAL holds its 20 rows');

-- a foreign key: its checks are AFTER triggers, each reads the referenced key
INSERT INTO fin_child SELECT generate_series(1, 20);
SELECT xact_id AS fx FROM xact_of('INSERT INTO fin_child') \gset
SELECT cmp_ok((SELECT shared_blks_hit FROM walload_statements WHERE xact_id = :fx AND toplevel), '>=',
              (SELECT shared_blks_hit FROM walload_statements WHERE xact_id = :px) + 20,
              'foreign key: the INSERT''s buffers hold its 20 checks of the referenced key');

SELECT * FROM finish();

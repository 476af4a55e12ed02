-- DDL in PL/pgSQL, all in one transaction (a DO block in autocommit): a
-- loop creates and loads 5 tables; a loop of blocks with an EXCEPTION clause
-- (each a subtransaction) creates 3 more without error (subcommit: no scan);
-- a block creates a table and then fails, and its EXCEPTION clause catches
-- the error: the subtransaction is aborted, dropping that table's files (1
-- drop scan); a loop drops the 8 tables: created and dropped in the same
-- transaction, their files go at commit in one call (1 drop scan) and they
-- are not synced.
-- @expect minimal: drop_pending=2
-- @expect replica: drop_pending=2
DO $$
BEGIN
  FOR i IN 1..5 LOOP
    EXECUTE format('CREATE TABLE pl_%s (id int, doc text)', i);
    EXECUTE format('INSERT INTO pl_%s SELECT g, ''p'' FROM generate_series(1, 1000) g', i);
  END LOOP;
  FOR i IN 6..8 LOOP
    BEGIN
      EXECUTE format('CREATE TABLE pl_%s (id int)', i);
    EXCEPTION WHEN duplicate_table THEN
      RAISE NOTICE 'not reached';
    END;
  END LOOP;
  BEGIN
    CREATE TABLE pl_err (id int);
    INSERT INTO pl_err VALUES (1);
    PERFORM 1 / 0;
  EXCEPTION WHEN division_by_zero THEN
    RAISE NOTICE 'caught division by zero; pl_err is gone';
  END;
  FOR i IN 1..8 LOOP
    EXECUTE format('DROP TABLE pl_%s', i);
  END LOOP;
END $$;

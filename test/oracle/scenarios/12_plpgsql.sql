DO $$
BEGIN
  FOR i IN 1..5 LOOP
    EXECUTE format('CREATE TABLE o_loop_%s (id int)', i);
    EXECUTE format('INSERT INTO o_loop_%s SELECT generate_series(1, 100)', i);
  END LOOP;
  BEGIN
    CREATE TABLE o_loop_err (id int);
    PERFORM 1 / 0;
  EXCEPTION WHEN division_by_zero THEN NULL;
  END;
  FOR i IN 1..5 LOOP
    EXECUTE format('DROP TABLE o_loop_%s', i);
  END LOOP;
END $$;

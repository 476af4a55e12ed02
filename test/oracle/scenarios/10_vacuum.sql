-- VACUUM that truncates the heap's empty tail (all but the first 100 of
-- 20000 rows deleted): one DropRelFileNodeBuffers (main, FSM and VM in one
-- call).  VACUUM with nothing to truncate (every other row deleted), and
-- VACUUM (TRUNCATE false) of a table with an empty tail: no scan.
-- @expect minimal: drop_rel=1
-- @expect replica: drop_rel=1
-- @setup
CREATE TABLE v_tail (id int, pad text) WITH (autovacuum_enabled = off);
INSERT INTO v_tail SELECT g, repeat('v', 200) FROM generate_series(1, 20000) g;
DELETE FROM v_tail WHERE id > 100;
CREATE TABLE v_holes (id int, pad text) WITH (autovacuum_enabled = off);
INSERT INTO v_holes SELECT g, repeat('v', 200) FROM generate_series(1, 20000) g;
DELETE FROM v_holes WHERE id % 2 = 0;
CREATE TABLE v_keep (id int, pad text) WITH (autovacuum_enabled = off);
INSERT INTO v_keep SELECT g, repeat('v', 200) FROM generate_series(1, 20000) g;
DELETE FROM v_keep WHERE id > 100;
-- @run
VACUUM v_tail;
VACUUM v_holes;
VACUUM (TRUNCATE false) v_keep;
DO $$ BEGIN
  ASSERT pg_relation_size('v_tail') <= 10 * 8192, 'premise: VACUUM truncated v_tail';
  ASSERT pg_relation_size('v_keep') > 100 * 8192, 'premise: VACUUM (TRUNCATE false) kept v_keep''s tail';
END $$;

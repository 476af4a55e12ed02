-- REFRESH MATERIALIZED VIEW: a new heap (with toast) and a rebuilt index are
-- swapped in, the old ones dropped at commit (1 drop scan; small: no sync
-- scan).  REFRESH ... CONCURRENTLY works through temporary tables: at its
-- commit DropRelFileNodesAllBuffers is entered for them and returns early.
-- @expect minimal: drop_pending=1
-- @expect replica: drop_pending=1
-- @setup
CREATE TABLE mv_base (id int, v text);
INSERT INTO mv_base SELECT g, 'v' || g FROM generate_series(1, 5000) g;
CREATE MATERIALIZED VIEW mv AS SELECT id, v FROM mv_base;
CREATE UNIQUE INDEX mv_id ON mv (id);
-- @run
REFRESH MATERIALIZED VIEW mv;
UPDATE mv_base SET v = 'w' WHERE id <= 100;
REFRESH MATERIALIZED VIEW CONCURRENTLY mv;

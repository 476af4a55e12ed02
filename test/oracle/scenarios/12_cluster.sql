-- CLUSTER of a small table on its index, in the caller's transaction: new
-- relfilenodes (below the threshold: no sync scan), the old files go at
-- commit: 1 drop scan.
-- @expect minimal: drop_pending=1
-- @expect replica: drop_pending=1
-- @setup
CREATE TABLE cl (id int, pad text);
INSERT INTO cl SELECT g, 'c' FROM generate_series(1, 5000) g ORDER BY random();
CREATE INDEX cl_id ON cl (id);
-- @run
CLUSTER cl USING cl_id;

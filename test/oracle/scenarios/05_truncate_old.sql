-- TRUNCATE of a table created in an earlier transaction, with a primary key
-- and a toast table: heap, toast heap, toast index and index get new (empty)
-- relfilenodes; the old files go at commit in one DropRelFileNodesAllBuffers.
-- The new ones are empty, below the threshold: no sync scan under minimal.
-- @expect minimal: drop_pending=1
-- @expect replica: drop_pending=1
-- @setup
CREATE TABLE old (id int PRIMARY KEY, doc text);
INSERT INTO old SELECT g, repeat('x', 100) FROM generate_series(1, 10000) g;
-- @run
TRUNCATE old;

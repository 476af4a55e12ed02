-- DROP of an index, a sequence, a materialized view, a table and a schema
-- with 25 tables (CASCADE; more than 20 relations, the bsearch variant of the
-- loop), each in autocommit: one DropRelFileNodesAllBuffers per statement.
-- DROP VIEW drops no storage: no call at all.
-- @expect minimal: drop_pending=5
-- @expect replica: drop_pending=5
-- @setup
CREATE TABLE d_table (id int, t text);
INSERT INTO d_table SELECT g, 'd' FROM generate_series(1, 1000) g;
CREATE TABLE d_indexed (id int);
CREATE INDEX d_index ON d_indexed (id);
CREATE SEQUENCE d_seq;
CREATE MATERIALIZED VIEW d_mv AS SELECT g AS id FROM generate_series(1, 100) g;
CREATE VIEW d_view AS SELECT 1 AS one;
CREATE SCHEMA d_schema;
SELECT format('CREATE TABLE d_schema.t%s (id int)', g) FROM generate_series(1, 25) g \gexec
-- @run
DROP INDEX d_index;
DROP SEQUENCE d_seq;
DROP MATERIALIZED VIEW d_mv;
DROP TABLE d_table;
DROP VIEW d_view;
DROP SCHEMA d_schema CASCADE;

-- Nested savepoints, then ROLLBACK of the whole transaction: each level that
-- created a relation is aborted through its own smgrDoPendingDeletes: 3 drop
-- scans (top level, s1, s2; s3 created nothing).  Then savepoints that are
-- released before the ROLLBACK: their entries moved to the top level, so
-- one drop scan.
-- @expect minimal: drop_pending=4
-- @expect replica: drop_pending=4
BEGIN;
CREATE TABLE ns_top (id int);
SAVEPOINT s1;
CREATE TABLE ns_1 (id int);
SAVEPOINT s2;
CREATE TABLE ns_2 (id int);
SAVEPOINT s3;
SELECT 1;
ROLLBACK;
BEGIN;
SAVEPOINT a;
CREATE TABLE nr_a (id int);
RELEASE a;
SAVEPOINT b;
CREATE TABLE nr_b (id int);
RELEASE b;
ROLLBACK;

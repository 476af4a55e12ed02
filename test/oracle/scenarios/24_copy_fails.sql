-- A COPY that fails half way (a bad row after 50000 good ones) in the
-- transaction that created the table: the error aborts the transaction at
-- once, dropping the new files (1 drop scan); the ROLLBACK only cleans up.
-- A COPY that fails into an existing table (autocommit): nothing to drop.
-- @errors: 2
-- @expect minimal: drop_pending=1
-- @expect replica: drop_pending=1
-- @setup
CREATE TABLE cf_old (id int);
-- @run
BEGIN;
CREATE TABLE cf_new (id int);
COPY cf_new FROM PROGRAM '(seq 1 50000; echo oops; seq 50001 60000)';
ROLLBACK;
COPY cf_old FROM PROGRAM '(seq 1 50000; echo oops)';

-- Temporary tables use local buffers: creating, loading, truncating (in a
-- later transaction, and in the creating one), ON COMMIT DROP, SET
-- TABLESPACE (FlushRelationBuffers writes the dirty local buffers) and DROP
-- never scan shared buffers; the functions are entered and return early.
-- @expect minimal: none
-- @expect replica: none
CREATE TEMP TABLE tt (id int PRIMARY KEY, doc text);
COPY tt FROM PROGRAM 'seq 1 10000 | sed "s/$/,temp/"' WITH (FORMAT csv);
TRUNCATE tt;
BEGIN;
CREATE TEMP TABLE tt2 (id int PRIMARY KEY, doc text);
INSERT INTO tt2 SELECT g, 't' FROM generate_series(1, 1000) g;
TRUNCATE tt2;
COMMIT;
BEGIN;
CREATE TEMP TABLE tt3 (id int) ON COMMIT DROP;
INSERT INTO tt3 SELECT generate_series(1, 1000);
COMMIT;
CREATE TEMP TABLE tt4 (id int, doc text);
INSERT INTO tt4 SELECT g, repeat('m', 100) FROM generate_series(1, 2000) g;
ALTER TABLE tt4 SET TABLESPACE oracle_ts;
DROP TABLE tt, tt2, tt4;

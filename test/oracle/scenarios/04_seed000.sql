-- The seed 000 report's load: 10 tables created and loaded with 5 COPYs
-- (FROM STDIN) of 1000 rows each in one transaction -- each table about
-- 200 kB, below wal_skip_threshold: WAL-logged at commit, no sync scan --
-- then DROP TABLE one by one in autocommit: one DropRelFileNodesAllBuffers
-- per DROP.
-- @expect minimal: drop_pending=10
-- @expect replica: drop_pending=10
BEGIN;
SELECT format('CREATE TABLE seed_%s (id int, name text, amount numeric)', t) FROM generate_series(1, 10) t \gexec
\copy seed_1 FROM PROGRAM 'seq 1 1000 | sed "s/$/,customer,1.50/"' WITH (FORMAT csv)
\copy seed_2 FROM PROGRAM 'seq 1 1000 | sed "s/$/,customer,1.50/"' WITH (FORMAT csv)
\copy seed_3 FROM PROGRAM 'seq 1 1000 | sed "s/$/,customer,1.50/"' WITH (FORMAT csv)
\copy seed_4 FROM PROGRAM 'seq 1 1000 | sed "s/$/,customer,1.50/"' WITH (FORMAT csv)
\copy seed_5 FROM PROGRAM 'seq 1 1000 | sed "s/$/,customer,1.50/"' WITH (FORMAT csv)
\copy seed_6 FROM PROGRAM 'seq 1 1000 | sed "s/$/,customer,1.50/"' WITH (FORMAT csv)
\copy seed_7 FROM PROGRAM 'seq 1 1000 | sed "s/$/,customer,1.50/"' WITH (FORMAT csv)
\copy seed_8 FROM PROGRAM 'seq 1 1000 | sed "s/$/,customer,1.50/"' WITH (FORMAT csv)
\copy seed_9 FROM PROGRAM 'seq 1 1000 | sed "s/$/,customer,1.50/"' WITH (FORMAT csv)
\copy seed_10 FROM PROGRAM 'seq 1 1000 | sed "s/$/,customer,1.50/"' WITH (FORMAT csv)
\copy seed_1 FROM PROGRAM 'seq 1001 2000 | sed "s/$/,customer,1.50/"' WITH (FORMAT csv)
\copy seed_2 FROM PROGRAM 'seq 1001 2000 | sed "s/$/,customer,1.50/"' WITH (FORMAT csv)
\copy seed_3 FROM PROGRAM 'seq 1001 2000 | sed "s/$/,customer,1.50/"' WITH (FORMAT csv)
\copy seed_4 FROM PROGRAM 'seq 1001 2000 | sed "s/$/,customer,1.50/"' WITH (FORMAT csv)
\copy seed_5 FROM PROGRAM 'seq 1001 2000 | sed "s/$/,customer,1.50/"' WITH (FORMAT csv)
\copy seed_6 FROM PROGRAM 'seq 1001 2000 | sed "s/$/,customer,1.50/"' WITH (FORMAT csv)
\copy seed_7 FROM PROGRAM 'seq 1001 2000 | sed "s/$/,customer,1.50/"' WITH (FORMAT csv)
\copy seed_8 FROM PROGRAM 'seq 1001 2000 | sed "s/$/,customer,1.50/"' WITH (FORMAT csv)
\copy seed_9 FROM PROGRAM 'seq 1001 2000 | sed "s/$/,customer,1.50/"' WITH (FORMAT csv)
\copy seed_10 FROM PROGRAM 'seq 1001 2000 | sed "s/$/,customer,1.50/"' WITH (FORMAT csv)
\copy seed_1 FROM PROGRAM 'seq 2001 3000 | sed "s/$/,customer,1.50/"' WITH (FORMAT csv)
\copy seed_2 FROM PROGRAM 'seq 2001 3000 | sed "s/$/,customer,1.50/"' WITH (FORMAT csv)
\copy seed_3 FROM PROGRAM 'seq 2001 3000 | sed "s/$/,customer,1.50/"' WITH (FORMAT csv)
\copy seed_4 FROM PROGRAM 'seq 2001 3000 | sed "s/$/,customer,1.50/"' WITH (FORMAT csv)
\copy seed_5 FROM PROGRAM 'seq 2001 3000 | sed "s/$/,customer,1.50/"' WITH (FORMAT csv)
\copy seed_6 FROM PROGRAM 'seq 2001 3000 | sed "s/$/,customer,1.50/"' WITH (FORMAT csv)
\copy seed_7 FROM PROGRAM 'seq 2001 3000 | sed "s/$/,customer,1.50/"' WITH (FORMAT csv)
\copy seed_8 FROM PROGRAM 'seq 2001 3000 | sed "s/$/,customer,1.50/"' WITH (FORMAT csv)
\copy seed_9 FROM PROGRAM 'seq 2001 3000 | sed "s/$/,customer,1.50/"' WITH (FORMAT csv)
\copy seed_10 FROM PROGRAM 'seq 2001 3000 | sed "s/$/,customer,1.50/"' WITH (FORMAT csv)
\copy seed_1 FROM PROGRAM 'seq 3001 4000 | sed "s/$/,customer,1.50/"' WITH (FORMAT csv)
\copy seed_2 FROM PROGRAM 'seq 3001 4000 | sed "s/$/,customer,1.50/"' WITH (FORMAT csv)
\copy seed_3 FROM PROGRAM 'seq 3001 4000 | sed "s/$/,customer,1.50/"' WITH (FORMAT csv)
\copy seed_4 FROM PROGRAM 'seq 3001 4000 | sed "s/$/,customer,1.50/"' WITH (FORMAT csv)
\copy seed_5 FROM PROGRAM 'seq 3001 4000 | sed "s/$/,customer,1.50/"' WITH (FORMAT csv)
\copy seed_6 FROM PROGRAM 'seq 3001 4000 | sed "s/$/,customer,1.50/"' WITH (FORMAT csv)
\copy seed_7 FROM PROGRAM 'seq 3001 4000 | sed "s/$/,customer,1.50/"' WITH (FORMAT csv)
\copy seed_8 FROM PROGRAM 'seq 3001 4000 | sed "s/$/,customer,1.50/"' WITH (FORMAT csv)
\copy seed_9 FROM PROGRAM 'seq 3001 4000 | sed "s/$/,customer,1.50/"' WITH (FORMAT csv)
\copy seed_10 FROM PROGRAM 'seq 3001 4000 | sed "s/$/,customer,1.50/"' WITH (FORMAT csv)
\copy seed_1 FROM PROGRAM 'seq 4001 5000 | sed "s/$/,customer,1.50/"' WITH (FORMAT csv)
\copy seed_2 FROM PROGRAM 'seq 4001 5000 | sed "s/$/,customer,1.50/"' WITH (FORMAT csv)
\copy seed_3 FROM PROGRAM 'seq 4001 5000 | sed "s/$/,customer,1.50/"' WITH (FORMAT csv)
\copy seed_4 FROM PROGRAM 'seq 4001 5000 | sed "s/$/,customer,1.50/"' WITH (FORMAT csv)
\copy seed_5 FROM PROGRAM 'seq 4001 5000 | sed "s/$/,customer,1.50/"' WITH (FORMAT csv)
\copy seed_6 FROM PROGRAM 'seq 4001 5000 | sed "s/$/,customer,1.50/"' WITH (FORMAT csv)
\copy seed_7 FROM PROGRAM 'seq 4001 5000 | sed "s/$/,customer,1.50/"' WITH (FORMAT csv)
\copy seed_8 FROM PROGRAM 'seq 4001 5000 | sed "s/$/,customer,1.50/"' WITH (FORMAT csv)
\copy seed_9 FROM PROGRAM 'seq 4001 5000 | sed "s/$/,customer,1.50/"' WITH (FORMAT csv)
\copy seed_10 FROM PROGRAM 'seq 4001 5000 | sed "s/$/,customer,1.50/"' WITH (FORMAT csv)
COMMIT;
DROP TABLE seed_1;
DROP TABLE seed_2;
DROP TABLE seed_3;
DROP TABLE seed_4;
DROP TABLE seed_5;
DROP TABLE seed_6;
DROP TABLE seed_7;
DROP TABLE seed_8;
DROP TABLE seed_9;
DROP TABLE seed_10;

BEGIN;
CREATE TABLE o_small (id int, pad text);
COPY o_small FROM PROGRAM 'seq 1 1000 | sed "s/$/,x/"' WITH (FORMAT csv);
COMMIT;
DROP TABLE o_small;

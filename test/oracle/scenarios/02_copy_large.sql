BEGIN;
CREATE TABLE o_large (id int, pad text);
COPY o_large FROM PROGRAM 'seq 1 60000 | sed "s/$/,xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx/"' WITH (FORMAT csv);
COMMIT;
COPY o_large FROM PROGRAM 'seq 1 1000 | sed "s/$/,y/"' WITH (FORMAT csv);
DROP TABLE o_large;

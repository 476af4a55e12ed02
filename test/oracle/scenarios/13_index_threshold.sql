CREATE TABLE o_ix (id int);
INSERT INTO o_ix SELECT generate_series(1, 100000);
CREATE INDEX o_ix_idx ON o_ix (id);
BEGIN;
SET LOCAL wal_skip_threshold = '64kB';
CREATE TABLE o_lowthr (id int);
INSERT INTO o_lowthr SELECT generate_series(1, 5000);
COMMIT;
DROP TABLE o_ix, o_lowthr;

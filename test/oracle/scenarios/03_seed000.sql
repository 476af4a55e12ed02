BEGIN;
SELECT format('CREATE TABLE o_seed_%s (id int, name text, amount numeric)', t) FROM generate_series(1, 10) t \gexec
SELECT format($$COPY o_seed_%s FROM PROGRAM 'seq %s %s | sed "s/$/,n,1.5/"' WITH (FORMAT csv)$$, t, r * 1000 + 1, r * 1000 + 1000)
FROM generate_series(1, 5) r, generate_series(1, 10) t \gexec
COMMIT;
SELECT format('DROP TABLE o_seed_%s', t) FROM generate_series(1, 10) t \gexec

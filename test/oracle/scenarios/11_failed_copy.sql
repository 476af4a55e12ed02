BEGIN;
CREATE TABLE o_fail (id int);
COPY o_fail FROM PROGRAM 'printf "1\n2\nx\n"';
ROLLBACK;
CREATE TABLE o_fail2 (id int);
COPY o_fail2 FROM PROGRAM 'printf "1\n2\nx\n"';
DROP TABLE o_fail2;

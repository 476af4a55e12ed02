# A plain SELECT (no data-modifying WITH) is recorded only if it wrote.
# walload holds such a SELECT outside its statement stack while it runs
# and makes it a statement of its own only when it must (WAL written in
# its phase, a statement started inside it, a phase that may be resumed):
#
#   - a SELECT that reads is not recorded, at any level;
#   - a SELECT that writes WAL itself (nextval() of a fresh sequence) is
#     recorded with its row and its WAL;
#   - a SELECT calling a function that INSERTs is recorded, and under
#     walload.track = all stays the parent of the nested INSERT: same
#     transaction, a lower statement number, its WAL included;
#   - statement numbers follow the order statements started in, the
#     unrecorded SELECTs' included, as when every SELECT had an entry;
#   - a SELECT that wrote and then failed is recorded as failed; one that
#     read and failed is not, and the next one is recorded as usual;
#   - a cursor's query that writes while it is fetched in pieces is
#     recorded once, with its rows.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('walload_plain_select');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'walload'
autovacuum = off
});
$node->start;
$node->safe_psql('postgres', q{
CREATE EXTENSION walload;
CREATE TABLE lt (a int);
INSERT INTO lt SELECT generate_series(1, 100);
CREATE SEQUENCE sq1;
CREATE SEQUENCE sq2;
CREATE SEQUENCE sq3;
CREATE SEQUENCE sq4;
CREATE FUNCTION ins(n int) RETURNS int LANGUAGE plpgsql AS $$
DECLARE c int;
BEGIN
  SELECT count(*) INTO c FROM lt;
  INSERT INTO lt SELECT generate_series(1, n);
  RETURN c;
END $$;
CREATE FUNCTION ins_fail() RETURNS int LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO lt VALUES (0);
  RAISE EXCEPTION 'ins_fail';
END $$;
});

# the SELECTs walload recorded since the reset, in the order they started
my $selects = q{
SELECT string_agg(format('%s/%s/%s/%s/%s', nest_level, status, rows, wal_records > 0, query),
                  ' | ' ORDER BY xact_id, stmt_no)
FROM walload_statements WHERE command = 'SELECT'};

$node->safe_psql('postgres', q{
SELECT walload_reset();
SELECT count(*) FROM lt;
SELECT a FROM lt WHERE a = 7;
});
is($node->safe_psql('postgres', $selects), '', 'SELECTs that read are not recorded');

$node->safe_psql('postgres', q{
SELECT walload_reset();
SELECT nextval('sq1');
SELECT ins(5);
});
is($node->safe_psql('postgres', $selects),
	"0/ok/1/t/SELECT nextval('sq1') | 0/ok/1/t/SELECT ins(5)",
	'SELECTs that write are recorded, with their rows and WAL');

# walload.track = all: the function's statements are recorded under it
$node->safe_psql('postgres', q{
SELECT walload_reset();
SET walload.track = 'all';
SELECT ins(3);
});
is($node->safe_psql('postgres', q{
SELECT string_agg(format('%s/%s/%s', command, nest_level, query), ' | ' ORDER BY stmt_no)
FROM walload_statements}),
	'SELECT/0/SELECT ins(3) | INSERT/1/INSERT INTO lt SELECT generate_series(1, n)',
	'track = all: the SELECT and its nested INSERT; the nested read is not recorded');
is($node->safe_psql('postgres', q{
SELECT s.xact_id = i.xact_id AND s.stmt_no < i.stmt_no AND s.wal_records >= i.wal_records
       AND i.wal_records >= 3 AND s.elapsed_ms >= i.elapsed_ms
FROM walload_statements s, walload_statements i
WHERE s.command = 'SELECT' AND i.command = 'INSERT'}),
	't', 'the SELECT is the parent of its INSERT: started first, its WAL and time included');

# numbering: the SELECT that read took number 1, as it always did
$node->safe_psql('postgres', q{
SELECT walload_reset();
BEGIN;
SELECT count(*) FROM lt;
SELECT nextval('sq2');
INSERT INTO lt VALUES (1);
COMMIT;
});
is($node->safe_psql('postgres', q{
SELECT string_agg(format('%s:%s', command, stmt_no), ' ' ORDER BY stmt_no) FROM walload_statements}),
	'SELECT:2 INSERT:3', 'statement numbers count the SELECT that was not recorded');

# errors: a failed SELECT that wrote is recorded failed; the next is recorded
my ($out, $err) = ('', '');
$node->safe_psql('postgres', 'SELECT walload_reset()');
$node->psql('postgres', q{
SELECT ins_fail();
SELECT 1 / (a - a) FROM lt LIMIT 1;
SELECT count(*) FROM lt;
SELECT nextval('sq3');
}, stdout => \$out, stderr => \$err, on_error_stop => 0);
like($err, qr/ins_fail/, 'the writing SELECT failed');
like($err, qr/division by zero/, 'the reading SELECT failed');
is($node->safe_psql('postgres', $selects),
	"0/error/0/t/SELECT ins_fail() | 0/ok/1/t/SELECT nextval('sq3')",
	'after errors: the failed writer recorded, the failed reader not, the next writer recorded');

# a cursor's query, fetched in pieces, writing in its first FETCH
$node->safe_psql('postgres', q{
SELECT walload_reset();
SET walload.track = 'all';
BEGIN;
DECLARE c NO SCROLL CURSOR FOR SELECT nextval('sq4') FROM generate_series(1, 100);
FETCH 10 FROM c;
SELECT count(*) FROM lt;
FETCH 10 FROM c;
CLOSE c;
COMMIT;
});
# rows: every FETCH's from 16 on, the last one's on 15 (compat.h,
# WlExecutorRows); the text is the DECLARE's, as pg_stat_statements shows it
my $rows = $node->safe_psql('postgres', 'SHOW server_version_num') >= 160000 ? 20 : 10;
is($node->safe_psql('postgres', $selects),
	"1/ok/$rows/t/DECLARE c NO SCROLL CURSOR FOR SELECT nextval('sq4') FROM generate_series(1, 100);",
	'a cursor that wrote while fetched in pieces: one record, with its rows');

$node->stop;
done_testing();

# A COPY cancelled by another session while it is loading (pg_cancel_backend),
# inside a transaction that created the table: the COPY is recorded as an
# error, the transaction as an abort whose deletion of the new table's file
# scanned the pool once, and nothing leaks into the session's next
# transaction.  No sleeps: the test waits for the COPY to be seen waiting for
# its client's data, and the cancel is noticed when the next rows arrive.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use IPC::Run;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('walload_cancel');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'walload'
autovacuum = off
wal_level = minimal
max_wal_senders = 0
});
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION walload; SELECT walload_reset()');

my ($in, $out, $err) = ('', '', '');
my $timer = IPC::Run::timeout($PostgreSQL::Test::Utils::timeout_default);
my $h = IPC::Run::start(
	[ 'psql', '-X', '-q', '-d', $node->connstr('postgres') ],
	'<', \$in, '>', \$out, '2>', \$err, $timer);

$in .= "SELECT pg_backend_pid();\n";
$h->pump until $out =~ /(\d+)\s*$/m || $timer->is_expired;
my ($pid) = $out =~ /(\d+)/;
ok($pid, "the loading session's backend is $pid");

$in .= "BEGIN;\nCREATE TABLE cancel_me (id int, t text);\n"
  . "COPY cancel_me FROM STDIN;\n"
  . join('', map { "$_\trow $_\n" } 1 .. 1000);
$h->pump_nb while length $in;
ok($node->poll_query_until('postgres', qq{
SELECT wait_event = 'ClientRead' AND query LIKE 'COPY cancel_me%'
FROM pg_stat_activity WHERE pid = $pid}),
	'the COPY is running, waiting for more rows');

is($node->safe_psql('postgres', "SELECT pg_cancel_backend($pid)"), 't', 'cancelled from another session');

# the next rows wake the COPY up; it notices the cancel and fails
$in .= join('', map { "$_\trow $_\n" } 1001 .. 2000) . "\\.\n" . "ROLLBACK;\n";
$in .= "SELECT 'after';\n";
$h->pump until $out =~ /after/ || $timer->is_expired;
like($err, qr/ERROR:  canceling statement due to user request/, 'the COPY was cancelled');

# the session goes on with a transaction of its own
$in .= "CREATE TABLE after_cancel (id int);\nSELECT 'done';\n";
$h->pump until $out =~ /done/ || $timer->is_expired;
$in .= "\\q\n";
$h->finish;

is($node->safe_psql('postgres', qq{
SELECT string_agg(s.command || ':' || s.status, ',' ORDER BY s.stmt_no)
FROM walload_statements s JOIN walload_xacts x USING (xact_id)
WHERE x.pid = $pid AND x.outcome = 'abort'}),
	'CREATE TABLE:ok,COPY:error', 'CREATE TABLE recorded as done, the COPY as an error, in an aborted transaction');
is($node->safe_psql('postgres', qq{
SELECT scans_drop_pending || '/' || dropped_rels || '/' || full_scans
FROM walload_xacts WHERE pid = $pid AND outcome = 'abort'}),
	'1/3/1', "the abort deleted the new table's files (heap, TOAST table, TOAST index): one scan of the pool");
is($node->safe_psql('postgres', qq{
SELECT statements || '/' || full_scans || '/' || rows || '/' || outcome
FROM walload_xacts WHERE pid = $pid AND xact_id = (SELECT max(xact_id) FROM walload_xacts WHERE pid = $pid)}),
	'1/0/0/commit', 'the next transaction holds only its own statement: nothing leaked from the cancelled one');
is($node->safe_psql('postgres', q{SELECT count(*) FROM pg_class WHERE relname = 'cancel_me'}),
	'0', 'and the table is gone');

$node->stop;
done_testing();

# The abort path never waits for walload's lock.  Session A is stopped by
# gdb while it holds walload's LWLock exclusively (inside walload_reset()).
# Session B then aborts two transactions that created files -- a ROLLBACK and
# an error -- whose abort attributes a scan and stores records: both must
# return while A still holds the lock.  walload 1.1 waited there (its abort
# and commit cleanup stored with LWLockAcquire), so B hung until A went on.
# After A is released, B's next statement stores what waited, and the
# records are whole, the aborts' phases charged to their CREATE TABLEs.
# No sleeps: every wait is on an event, with a bound.
# matrix: once (walload's own lock and abort path, the same on every version)
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use IPC::Run;
use Test::More;

my ($gdb) = grep { -x $_ } map { "$_/gdb" } split /:/, $ENV{PATH};
plan skip_all => 'gdb is not installed' unless $gdb;

my $node = PostgreSQL::Test::Cluster->new('walload_abort_no_wait');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'walload'
autovacuum = off
});
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION walload; SELECT walload_reset()');

my $bound = $PostgreSQL::Test::Utils::timeout_default;

# session A, and gdb on its backend: stop at the release of walload's lock
# in walload_reset() (the first LWLockRelease after entering it)
my $a = $node->background_psql('postgres');
my $apid = $a->query_safe('SELECT pg_backend_pid()');
chomp $apid;
my ($gin, $gout, $gerr) = ('', '', '');
my $gtimer = IPC::Run::timer($bound);	# expires without dying
my $g = IPC::Run::start(
	[ $gdb, '-q', '-nx', '-p', $apid ],
	'<', \$gin, '>', \$gout, '2>', \$gerr, $gtimer);
$gin .= "set pagination off\nset confirm off\nbreak wl_store_reset\necho READY\\n\ncontinue\n";
$g->pump until $gout =~ /READY/ || $gtimer->is_expired;
ok($gout =~ /READY/, 'gdb is attached to session A');

$a->query_until(qr/^$/, "SELECT walload_reset();\n");
$g->pump until $gout =~ /Breakpoint 1,/ || $gtimer->is_expired;
ok($gout =~ /Breakpoint 1,/, 'session A entered walload_reset()');
$gin .= "break LWLockRelease\ncontinue\n";
$g->pump until $gout =~ /Breakpoint 2,/ || $gtimer->is_expired;
ok($gout =~ /Breakpoint 2,/, 'session A holds walload\'s lock, stopped');

# session B aborts while A holds the lock
my $btimer = IPC::Run::timer($bound);
my ($bin, $bout, $berr) = ('', '', '');
my $b = IPC::Run::start(
	[ 'psql', '-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=0', '-d', $node->connstr('postgres') ],
	'<', \$bin, '>', \$bout, '2>', \$berr, $btimer);
$bin .= "BEGIN;\nCREATE TABLE gone1 (a int);\nROLLBACK;\n"
  . "BEGIN;\nCREATE TABLE gone2 (a int);\nSELECT 1/0;\nROLLBACK;\n"
  . "SELECT 'b-done';\n";
$b->pump until $bout =~ /b-done/ || $btimer->is_expired;
ok($bout =~ /b-done/,
	'two aborts that created files returned while another session held walload\'s lock');
$btimer->start($bound);
like($berr, qr/division by zero/, 'the second abort was an error');

# A is still stopped, holding the lock: nothing else let B through
$gtimer->start($bound);
$gin .= "echo STILL\\n\n";
$g->pump until $gout =~ /STILL/ || $gtimer->is_expired;
ok($gout =~ /STILL/, 'session A was stopped the whole time');

# release A
$gtimer->start($bound);
$gin .= "delete\ndetach\nquit\n";
$g->pump until !$g->pumpable || $gtimer->is_expired;
$g->finish;
$a->quit;

# B's next statement stores what waited; then the records are whole
$bin .= "CREATE TABLE after_release (a int);\nSELECT 'b-next';\n";
$b->pump until $bout =~ /b-next/ || $btimer->is_expired;
ok($bout =~ /b-next/, 'session B went on after A was released');
$bin .= "\\q\n";
$b->finish;

is( $node->safe_psql(
		'postgres', q{
SELECT string_agg(outcome || ':' || statements || ':' || scans_drop_pending || ':' || dropped_rels, ',' ORDER BY xact_id)
FROM walload_xacts}),
	'abort:1:1:1,abort:1:1:1,commit:1:0:0',
	'both aborts are recorded with their statement and the deletion scan (a plain SELECT that failed writing nothing is not kept); then the next transaction');
is( $node->safe_psql(
		'postgres', q{
SELECT string_agg(command || ':' || status || ':' || scans_drop_pending, ',' ORDER BY xact_id, stmt_no)
FROM walload_statements}),
	'CREATE TABLE:ok:1,CREATE TABLE:ok:1,CREATE TABLE:ok:0',
	'the statements that waited were stored, with the abort\'s scan attributed');
# each abort's phase was charged to its CREATE TABLE while the lock was
# held (into its record, which waited): the charge reached the aggregate;
# the last CREATE TABLE's commit synced or WAL-logged its new file (the
# test cluster's wal_level is minimal): charged too
is( $node->safe_psql(
		'postgres', q{
SELECT string_agg(query || ':' || (commit_ms > 0), ',' ORDER BY query)
FROM walload_stats WHERE command = 'CREATE TABLE'}),
	'CREATE TABLE after_release (a int):true,CREATE TABLE gone1 (a int):true,CREATE TABLE gone2 (a int):true',
	'each abort\'s phase is charged to its CREATE TABLE (walload_stats.commit_ms)');
is($node->safe_psql('postgres', 'SELECT lock_waits >= 0 FROM walload_info'), 't',
	'walload_info is readable');

$node->stop;
done_testing();

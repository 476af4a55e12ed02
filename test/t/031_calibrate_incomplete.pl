# walload_calibrate() succeeds only when the calibration it asked for
# completed (issue 50, item 6):
#  - the calibration worker terminated while it runs the calibration
#    (pg_terminate_backend, once pg_stat_activity shows it calibrating):
#    the call fails with an error, not the figures of before;
#  - a calibration that could not time the storage (base/pgsql_tmp not
#    writable) fails the call too;
#  - undisturbed, the call succeeds, before and after both.
# States and errors only, never a duration.
# matrix: once (walload's own calibration request protocol, the same on every version)
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use IPC::Run;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use WalloadTAP;

my $node = PostgreSQL::Test::Cluster->new('walload_calibrate_incomplete');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'walload'
autovacuum = off
});
$node->start;
wait_calibration($node);
$node->safe_psql('postgres', 'CREATE EXTENSION walload');

my $worker = "SELECT pid FROM pg_stat_activity WHERE backend_type = 'walload calibration'";

# undisturbed: success
is($node->safe_psql('postgres', 'SELECT passes_run FROM walload_calibrate(1)'), '1',
	'an undisturbed walload_calibrate(1) succeeds');
is($node->safe_psql('postgres', 'SELECT calibration FROM walload_info'), 'done', 'done');

# the worker terminated in the middle of the calibration: a long one (many
# passes), terminated as soon as another session sees the worker at it
my ($in, $out, $err) = ('', '', '');
my $timer = IPC::Run::timeout($PostgreSQL::Test::Utils::timeout_default);
my $h = IPC::Run::start(
	[ 'psql', '-X', '-q', '-v', 'VERBOSITY=verbose', '-d', $node->connstr('postgres') ],
	'<', \$in, '>', \$out, '2>', \$err, $timer);
$in .= "SELECT passes_run FROM walload_calibrate(1000);\nSELECT 'after';\n";
$h->pump_nb while length $in;
ok($node->poll_query_until('postgres', qq{
SELECT state = 'active' AND query = 'calibrating'
FROM pg_stat_activity WHERE backend_type = 'walload calibration'}),
	'the worker is calibrating for walload_calibrate(1000)');
my $pid1 = $node->safe_psql('postgres', $worker);
is($node->safe_psql('postgres', "SELECT pg_terminate_backend($pid1)"), 't',
	'the worker is terminated');
$h->pump until $out =~ /after/ || $timer->is_expired;
like($err, qr/ERROR:  55000: walload's calibration did not complete/,
	'walload_calibrate() fails with an error (55000)');
like($err, qr/HINT:  The server log says why/, '... with a hint');
unlike($out, qr/^\s*1000\s*$/m, 'and returns no figures');
$in .= "\\q\n";
$h->finish;
is($node->safe_psql('postgres', 'SELECT calibration FROM walload_info'), 'failed',
	'walload_info says the calibration failed');

# the postmaster starts the worker again; undisturbed, it calibrates
ok($node->poll_query_until('postgres', qq{
SELECT count(*) = 1 AND bool_and(pid <> $pid1) AND bool_and(state = 'idle')
FROM pg_stat_activity WHERE backend_type = 'walload calibration'}),
	'a new worker waits for requests');
is($node->safe_psql('postgres', 'SELECT passes_run FROM walload_calibrate(1)'), '1',
	'walload_calibrate(1) succeeds again');
is($node->safe_psql('postgres', 'SELECT calibration FROM walload_info'), 'done', 'done again');

# a calibration that cannot time the storage does not complete either
my $tmpdir = $node->data_dir . '/base/pgsql_tmp';
mkdir $tmpdir;
chmod 0500, $tmpdir or die "chmod $tmpdir: $!";
my ($ret, $stdout, $stderr) = $node->psql('postgres', 'SELECT passes_run FROM walload_calibrate(1)');
chmod 0700, $tmpdir;
isnt($ret, 0, 'walload_calibrate() fails where the storage could not be timed');
like($stderr, qr/ERROR:  walload's calibration did not complete/, '... with the error');
is($node->safe_psql('postgres', 'SELECT calibration FROM walload_info'), 'failed',
	'walload_info says failed');
like(slurp_file($node->logfile), qr/walload could not time the storage/,
	'the server log says why');
is($node->safe_psql('postgres', 'SELECT passes_run FROM walload_calibrate(1)'), '1',
	'and once it can, walload_calibrate() succeeds');

$node->stop;
done_testing();

# walload's shared state across a clean restart, a corrupt statistics file,
# and a backend crash (the postmaster re-initialises shared memory).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;

my $node = PostgreSQL::Test::Cluster->new('walload');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'walload'
autovacuum = off
restart_after_crash = on
});
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION walload');
$node->safe_psql('postgres', q{
CREATE TABLE r (id int);
INSERT INTO r SELECT generate_series(1, 100);
DROP TABLE r;
});
my $before = $node->safe_psql('postgres',
	'SELECT (SELECT count(*) FROM walload_stats) || \'/\' || (SELECT count(*) FROM walload_xacts) || \'/\' || full_scans FROM walload_info');
like($before, qr{^[1-9]\d*/[1-9]\d*/1$}, "recorded before restart: $before");

# clean restart: everything survives
$node->restart;
my $after = $node->safe_psql('postgres',
	'SELECT (SELECT count(*) FROM walload_stats) || \'/\' || (SELECT count(*) FROM walload_xacts) || \'/\' || full_scans FROM walload_info');
is($after, $before, 'walload_stats, walload_xacts and totals survive a clean restart');
ok(!-e $node->data_dir . '/pg_stat/walload.stat', 'the saved file is removed once read');

# a corrupt file is ignored with a LOG line, the server starts
$node->stop;
my $file = $node->data_dir . '/pg_stat/walload.stat';
ok(-e $file, 'a clean shutdown saves pg_stat/walload.stat');
open(my $fh, '>', $file) or die;
print $fh "this is not a walload statistics file\n" x 10;
close($fh);
my $logstart = -s $node->logfile;
$node->start;
my $log = slurp_file($node->logfile, $logstart);
like($log, qr/ignoring walload statistics file "pg_stat\/walload.stat"/, 'a corrupt file is reported in the log');
is($node->safe_psql('postgres', 'SELECT count(*) FROM walload_stats'), '0', 'and ignored: the store starts empty');

# a backend killed with SIGKILL: crash restart, shared memory re-initialised
$node->safe_psql('postgres', 'CREATE TABLE k (id int); DROP TABLE k');
is($node->safe_psql('postgres', 'SELECT full_scans FROM walload_info'), '1', 'recording again after the corrupt file');
my ($in, $out, $err) = ('', '', '');
my $h = IPC::Run::start(['psql', '-X', '-d', $node->connstr('postgres'), '-c', 'SELECT pg_sleep(300)'],
	\$in, \$out, \$err);
$node->poll_query_until('postgres',
	"SELECT count(*) = 1 FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(300)'")
  or die 'the sleeping backend did not appear';
my $pid = $node->safe_psql('postgres', "SELECT pid FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(300)'");
kill 'KILL', $pid;
$h->finish;
$node->poll_query_until('postgres', 'SELECT true') or die 'the server did not come back';
$log = slurp_file($node->logfile, $logstart);
like($log, qr/terminated by signal 9/, 'the postmaster saw the crash');
is($node->safe_psql('postgres', 'SELECT xacts_recorded || \'/\' || full_scans FROM walload_info'), '0/0',
	'after the crash restart walload starts empty');
$node->safe_psql('postgres', 'CREATE TABLE k2 (id int); DROP TABLE k2');
is($node->safe_psql('postgres', 'SELECT full_scans FROM walload_info'), '1', 'and records again');

# walload.warn_scan_ms: a WARNING with a HINT at commit, only when asked for
my ($wrc, $wout, $werr) = $node->psql('postgres',
	'SET walload.warn_scan_ms = 0; CREATE TABLE w1 (id int); DROP TABLE w1;');
like($werr, qr/WARNING:  this transaction scanned all \d+ shared buffers 1 times.*HINT:  Run SELECT \* FROM walload_diagnose\(\d+\)/s,
	'walload.warn_scan_ms = 0: the DROP warns, naming its scan and the diagnosis to run');
($wrc, $wout, $werr) = $node->psql('postgres', 'CREATE TABLE w2 (id int); DROP TABLE w2;');
unlike($werr, qr/WARNING/, 'off by default');

# walload without preloading: a clear error, no crash
$node->stop;
$node->adjust_conf('postgresql.conf', 'shared_preload_libraries', "''");
$node->start;
my ($rc, $stdout, $stderr) = $node->psql('postgres', 'SELECT * FROM walload_xacts');
isnt($rc, 0, 'querying without preloading fails');
like($stderr, qr/walload must be loaded via "shared_preload_libraries".*HINT:  Add walload to shared_preload_libraries/s,
	'with an error that says what to do');
$node->stop;
done_testing();

# walload's shared state across a clean restart, a corrupt statistics file,
# and a backend crash (the postmaster re-initialises shared memory).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use WalloadTAP;
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
BEGIN;
CREATE TABLE r_gone (id int);
ROLLBACK;
DROP TABLE r;
});

# everything walload keeps, as text: the rings, the aggregates, the counters
my $state_sql = q{
SELECT (SELECT string_agg(concat_ws(':', xact_id, pid, outcome, statements, rows, full_scans, wal_bytes, total_ms), ',' ORDER BY xact_id) FROM walload_xacts)
  || ' | ' || (SELECT string_agg(concat_ws(':', xact_id, stmt_no, command, rows, queryid, query), ',' ORDER BY xact_id, stmt_no) FROM walload_statements)
  || ' | ' || (SELECT string_agg(concat_ws(':', queryid, command, toplevel, calls, rows, total_ms, wal_bytes), ',' ORDER BY queryid, command) FROM walload_stats)
  || ' | ' || concat_ws(':', stats_reset, xacts_recorded, xacts_overwritten, statements_recorded, statements_overwritten,
                        stats_entries, stats_evicted, scans_drop_pending, full_scans, scanned_buffers)
FROM walload_info};
my $counts_sql = q{SELECT (SELECT count(*) FROM walload_stats) || '/' || (SELECT count(*) FROM walload_xacts) || '/' ||
  (SELECT count(*) FROM walload_statements) || '/' || xacts_recorded || '/' || full_scans FROM walload_info};
my $before = $node->safe_psql('postgres', $state_sql);
my $counts = $node->safe_psql('postgres', $counts_sql);
like($counts, qr{^[1-9]\d*/[1-9]\d*/[1-9]\d*/[1-9]\d*/2$},
	"recorded before the restart (stats/xacts/statements/xacts_recorded/full_scans): $counts");

# clean restart: everything survives, unchanged
$node->restart;
my $after = $node->safe_psql('postgres', $state_sql);
is($after, $before, 'walload_stats, walload_xacts, walload_statements and walload_info survive a clean restart unchanged');
is($node->safe_psql('postgres', $counts_sql), $counts, 'the same counts');
ok(!-e $node->data_dir . '/pg_stat/walload.stat', 'the saved file is removed once read');
$node->safe_psql('postgres', 'CREATE TABLE r2 (id int)');
is($node->safe_psql('postgres', q{SELECT xacts_recorded FROM walload_info}),
	($counts =~ m{^\d+/\d+/\d+/(\d+)/})[0] + 1, 'and recording goes on from there');
$node->safe_psql('postgres', 'DROP TABLE r2');

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
my $empty_sql = q{SELECT (SELECT count(*) FROM walload_stats) || '/' || (SELECT count(*) FROM walload_xacts) || '/' ||
  (SELECT count(*) FROM walload_statements) || '/' || xacts_recorded || '/' || statements_recorded || '/' || full_scans FROM walload_info};
is($node->safe_psql('postgres', $empty_sql), '0/0/0/0/0/0', 'and ignored: the store starts empty');

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
# wait until the postmaster has re-initialised and accepts connections
wait_crash_restart($node, $logstart);
$node->poll_query_until('postgres', 'SELECT true') or die 'the server did not come back';
$log = slurp_file($node->logfile, $logstart);
like($log, qr/\(PID $pid\) was terminated by signal 9/, 'the postmaster saw the crash');
is($node->safe_psql('postgres', $empty_sql), '0/0/0/0/0/0',
	'after the crash restart walload\'s views work and are empty (state re-initialised, no file read)');
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

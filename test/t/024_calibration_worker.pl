# The calibration runs in one background worker and nowhere else (issue 38,
# item 2):
#  - at most one worker process (pg_stat_activity, backend_type 'walload
#    calibration'), calibrated ('done') after a start, and staying, idle;
#  - walload_calibrate() asks that worker: calibrated_at advances, and the
#    worker stays the one process;
#  - after a crash-restart the postmaster starts a new worker, which
#    calibrates again;
#  - the postmaster walks nothing: the calibration's DEBUG1 lines come from
#    the worker's pid only;
#  - walload.calibration = off: no worker, and walload_calibrate() says why.
# States, counts, pids and timestamps only, never a duration.
# matrix: once (walload's own worker protocol; every other file's clusters calibrate in that worker on every version)
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use WalloadTAP;

my $node = PostgreSQL::Test::Cluster->new('walload_calibration_worker');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'walload'
autovacuum = off
restart_after_crash = on
log_min_messages = debug1
log_line_prefix = '%p '
});
$node->start;
my ($pm) = split /\n/, slurp_file($node->data_dir . '/postmaster.pid');
wait_calibration($node);
$node->safe_psql('postgres', 'CREATE EXTENSION walload');

my $workers = "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'walload calibration'";
my $worker_pid = "SELECT pid FROM pg_stat_activity WHERE backend_type = 'walload calibration'";

is($node->safe_psql('postgres', $workers), '1', 'one calibration worker after the start');
is($node->safe_psql('postgres', 'SELECT calibration FROM walload_info'), 'done',
	'its calibration is done');
is($node->safe_psql('postgres', 'SELECT calibrated_at BETWEEN pg_postmaster_start_time() AND now() FROM walload_info'),
	't', 'calibrated_at is when it was published');
is($node->safe_psql('postgres',
		'SELECT calibration_ms IS NOT NULL AND calibration_io_bytes > 0 FROM walload_info'),
	't', 'walload_info says what the calibration took and wrote');
my $pid1 = $node->safe_psql('postgres', $worker_pid);
like(`ps -o args= -p $pid1`, qr/walload calibration idle/, 'the worker stays, idle (its ps title)');

# the calibration's lines: from the worker, none from the postmaster
my @lines = grep { /walload calibration: / } split /\n/, slurp_file($node->logfile);
ok(scalar(@lines) > 0, 'the calibration logged its figures at DEBUG1');
is(scalar(grep { /^$pm / } @lines), 0, 'none of them from the postmaster');
is(scalar(grep { !/^$pid1 / } @lines), 0, 'all of them from the worker');

# walload_calibrate() asks the worker
my $at1 = $node->safe_psql('postgres', 'SELECT calibrated_at FROM walload_info');
my $log_offset = -s $node->logfile;
is($node->safe_psql('postgres', 'SELECT passes_run FROM walload_calibrate(2)'), '2',
	'walload_calibrate(2) ran 2 passes');
is($node->safe_psql('postgres', "SELECT calibrated_at > '$at1' FROM walload_info"), 't',
	'walload_calibrate() advanced calibrated_at');
is($node->safe_psql('postgres', "SELECT calibration FROM walload_info"), 'done', 'done again');
is($node->safe_psql('postgres', $workers), '1', 'still one calibration worker');
is($node->safe_psql('postgres', $worker_pid), $pid1, 'the same one');
@lines = grep { /walload calibration: / } split /\n/,
  substr(slurp_file($node->logfile), $log_offset);
ok(scalar(@lines) > 0 && !grep({ !/^$pid1 / } @lines),
	"the requested calibration's lines are the worker's");

# an unprivileged role may not ask for one
$node->safe_psql('postgres', 'CREATE ROLE walload_nobody LOGIN');
my ($ret, $out, $err) = $node->psql('postgres', 'SELECT walload_calibrate(1)',
	extra_params => [ '-U', 'walload_nobody' ]);
like($err, qr/permission denied for function walload_calibrate/, 'walload_calibrate() is not for everyone');

# a crash-restart: a new worker calibrates again
my $at2 = $node->safe_psql('postgres', 'SELECT calibrated_at FROM walload_info');
my $walwriter = $node->safe_psql('postgres',
	"SELECT pid FROM pg_stat_activity WHERE backend_type = 'walwriter'");
$log_offset = -s $node->logfile;
kill 'KILL', $walwriter;
wait_crash_restart($node, $log_offset);
ok($node->poll_query_until('postgres', qq{
SELECT calibration = 'done' AND calibrated_at > '$at2' FROM walload_info}),
	'after a crash-restart the calibration is done again, later than before');
is($node->safe_psql('postgres', $workers), '1', 'one calibration worker after the crash-restart');
my $pid2 = $node->safe_psql('postgres', $worker_pid);
isnt($pid2, $pid1, 'a new one');
@lines = grep { /walload calibration: / } split /\n/,
  substr(slurp_file($node->logfile), $log_offset);
ok(scalar(@lines) > 0, 'it logged a calibration');
is(scalar(grep { !/^$pid2 / } @lines), 0, "all of it from the new worker, none from the postmaster");
$node->stop;

# walload.calibration = off: no worker, no figures
my $off = PostgreSQL::Test::Cluster->new('walload_calibration_off');
$off->init;
$off->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'walload'
walload.calibration = off
});
$off->start;
$off->safe_psql('postgres', 'CREATE EXTENSION walload');
is($off->safe_psql('postgres', $workers), '0', 'off: no calibration worker');
my ($offpm) = split /\n/, slurp_file($off->data_dir . '/postmaster.pid');
unlike(`ps -o args= --ppid $offpm`, qr/walload calibration/, 'off: no such process either');
is($off->safe_psql('postgres',
		'SELECT calibration || scan_ns_per_buffer || coalesce(calibration_ms::text, \'null\') FROM walload_info'),
	'off0null', 'off: walload_info says off, with no figures');
is($off->safe_psql('postgres', 'SELECT calibrated_at IS NULL FROM walload_info'), 't',
	'off: calibrated_at is NULL, never calibrated');
($ret, $out, $err) = $off->psql('postgres', 'SELECT walload_calibrate(1)');
like($err, qr/walload's calibration is off/, 'off: walload_calibrate() errors clearly');
like($err, qr/HINT:  Set walload.calibration = on/, '... with a hint');
$off->stop;

done_testing();

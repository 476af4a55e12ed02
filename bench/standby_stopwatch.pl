# How well walload's derived wait for a synchronous standby
# (walload_xacts.commit_standby_ms) agrees with a stopwatch outside the
# backend.  A primary streams to a standby on this machine; one client
# session runs BEGIN; INSERT; COMMIT; N times under psql's \timing, with
#   local         synchronous_commit = local (no wait for the standby),
#   remote_apply  with the standby applying at once, and
#   remote_apply  with the standby applying 5 ms and 20 ms late
#                 (recovery_min_apply_delay).
# Printed per run: the client's COMMIT (median), walload's commit phase and
# its parts (medians over the same commits), and the client's COMMIT less
# the median of the local run: the stopwatch's view of the standby's wait,
# against walload's.  A measurement, not a test: run it on a quiet machine.
#
#   PATH=$(pg_config --bindir):$PATH PERL5LIB=<pgxs>/src/test/perl \
#     perl bench/standby_stopwatch.pl [N]
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use IPC::Run;

my $n = shift // 200;

my $primary = PostgreSQL::Test::Cluster->new('stopwatch_primary');
$primary->init(allows_streaming => 1);
$primary->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'walload'
walload.calibration = off
track_wal_io_timing = on
autovacuum = off
fsync = on
});
$primary->start;
$primary->safe_psql('postgres', 'CREATE EXTENSION walload; CREATE TABLE t (id int)');
$primary->backup('b');
my $standby = PostgreSQL::Test::Cluster->new('stopwatch_standby');
$standby->init_from_backup($primary, 'b', has_streaming => 1);
$standby->start;
$primary->safe_psql('postgres',
	"ALTER SYSTEM SET synchronous_standby_names = '*'; SELECT pg_reload_conf()");
$primary->poll_query_until('postgres',
	"SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync'", '1')
  or die 'no synchronous standby';

sub median
{
	my @v = sort { $a <=> $b } @_;
	return 0 unless @v;
	return @v % 2 ? $v[$#v / 2] : ($v[@v / 2 - 1] + $v[@v / 2]) / 2;
}

my $local_commit;
sub run
{
	my ($label, $sync, $delay) = @_;
	$standby->append_conf('postgresql.conf', "recovery_min_apply_delay = '$delay'");
	$standby->reload;
	$standby->poll_query_until('postgres',
		"SELECT setting = '" . ($delay =~ s/ms$//r) . "' FROM pg_settings WHERE name = 'recovery_min_apply_delay'")
	  or die 'the standby did not take the delay';
	my $script = "SET application_name = '$label';\nSET synchronous_commit = $sync;\n\\timing on\n";
	$script .= "BEGIN;\nINSERT INTO t VALUES ($_);\nCOMMIT;\n" for 1 .. $n;
	my ($out, $err) = ('', '');
	IPC::Run::run([ 'psql', '-XAq', '-d', $primary->connstr('postgres') ], \$script, \$out, \$err)
	  or die "psql: $err";
	my @times = $out =~ /^Time: ([0-9.]+) ms/mg;
	my @commit = map { $times[ 3 * $_ + 2 ] } 0 .. $n - 1;
	my $row = $primary->safe_psql('postgres', qq{
SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY commit_ms), percentile_cont(0.5) WITHIN GROUP (ORDER BY commit_sync_ms),
       percentile_cont(0.5) WITHIN GROUP (ORDER BY commit_wal_ms), percentile_cont(0.5) WITHIN GROUP (ORDER BY commit_standby_ms),
       count(*) FILTER (WHERE commit_standby_wait), count(*),
       percentile_cont(0.5) WITHIN GROUP (ORDER BY commit_ms - commit_standby_ms)
FROM walload_xacts WHERE application_name = '$label' AND outcome = 'commit' AND dml_ms > 0});
	my ($c, $s, $w, $sb, $waited, $xacts, $localpart) = split /\|/, $row;
	my $client = median(@commit);
	$local_commit //= $client;
	printf STDERR "%-22s client COMMIT %8.3f ms | walload commit %8.3f, sync part %8.3f, local WAL flush %6.3f, "
	  . "standby %8.3f, commit less standby %6.3f ms | waited %d of %d | stopwatch's standby (client less local run) %8.3f ms\n",
	  $label, $client, $c, $s, $w, $sb, $localpart, $waited, $xacts, $client - $local_commit;
	return;
}

run('local', 'local', '0');
run('remote_apply_0ms', 'remote_apply', '0');
run('remote_apply_5ms', 'remote_apply', '5ms');
run('remote_apply_20ms', 'remote_apply', '20ms');
run('local_again', 'local', '0');

$standby->stop;
$primary->stop;

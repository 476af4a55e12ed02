# The commit's wait for a synchronous standby as its own part (issue 51,
# item 4): a primary streaming to a real standby that applies late
# (recovery_min_apply_delay), synchronous_commit = remote_apply, many small
# commits.  Every commit that waited for the standby says so
# (walload_xacts.commit_standby_wait) and has a wait recorded
# (commit_standby_ms > 0: the standby's apply delay is the whole of it);
# walload_report() shows the wait as its own part, and walload_diagnose()
# names it and prices synchronous_commit = local, without calling it a WAL
# flush or hinting pg_test_fsync.  The same commits with synchronous_commit
# = local wait for nothing: no wait recorded, no part, no finding.  Only
# counts and rules are asserted, never a duration.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use WalloadTAP;

my $primary = PostgreSQL::Test::Cluster->new('walload_standby_primary');
$primary->init(allows_streaming => 1);
$primary->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'walload'
walload.calibration = off
autovacuum = off
track_wal_io_timing = on
});
$primary->start;
$primary->safe_psql('postgres', 'CREATE EXTENSION walload');
$primary->safe_psql('postgres', 'CREATE TABLE t (id int)');
my $standby = sync_standby($primary, 'walload_standby_standby', '20ms');

my $n = 120;

# one session of $n small commits, each INSERT its own transaction
sub load
{
	my ($app, $sync) = @_;
	my $script = "SET application_name = '$app';\nSET synchronous_commit = $sync;\n";
	$script .= "INSERT INTO t VALUES ($_);\n" for 1 .. $n;
	$primary->safe_psql('postgres', $script);
	return;
}

load('wait_load', 'remote_apply');
load('local_load', 'local');

# the INSERTs' commits of a session: those that waited, those with a wait
# recorded, and those with a wait recorded that did not wait
sub counts
{
	my ($app) = @_;
	return $primary->safe_psql('postgres', qq{
SELECT concat_ws('|', count(*), count(*) FILTER (WHERE commit_standby_wait),
                 count(*) FILTER (WHERE commit_standby_wait AND commit_standby_ms > 0),
                 count(*) FILTER (WHERE NOT commit_standby_wait AND commit_standby_ms <> 0))
FROM walload_xacts
WHERE application_name = '$app' AND outcome = 'commit' AND dml_ms > 0});
}

is(counts('wait_load'), "$n|$n|$n|0",
	'remote_apply: every commit waited for the standby, and each has its wait recorded');
is(counts('local_load'), "$n|0|0|0",
	'local: no commit waited for the standby, none has a wait recorded');

# walload_report(): the wait as its own part, counted per commit
my $part = "'commit: waiting for sync standbys'";
is($primary->safe_psql('postgres',
		"SELECT xacts FROM walload_report(application_name => 'wait_load') WHERE part = $part"),
	$n, 'walload_report() shows the wait for the standby as its own part');
is($primary->safe_psql('postgres',
		"SELECT count(*) FROM walload_report(application_name => 'local_load') WHERE part = $part"),
	'0', 'and no such part without a wait');

# walload_diagnose(): the finding names the standby and prices
# synchronous_commit = local; nothing calls the wait a WAL flush
my $finding = "'commits waited for a standby'";
is($primary->safe_psql('postgres', qq{
SELECT count(*) FROM walload_findings(application_name => 'wait_load')
WHERE finding = $finding AND detail LIKE '%synchronous_commit = local%' AND saving_ms > 0}),
	'1', 'walload_diagnose() names the standby\'s wait and prices synchronous_commit = local');
is($primary->safe_psql('postgres', qq{
SELECT count(*) FROM walload_findings(application_name => 'wait_load')
WHERE finding = 'many small synchronous commits' OR evidence LIKE '%flushing WAL%'
   OR detail LIKE '%pg_test_fsync%'}),
	'0', 'the standby\'s wait is not called a WAL flush, nor hinted pg_test_fsync');
is($primary->safe_psql('postgres',
		"SELECT count(*) FROM walload_diagnose(application_name => 'local_load') WHERE finding = $finding"),
	'0', 'no standby finding where no commit waited');

$standby->stop;
$primary->stop;
done_testing();

# WalloadTAP: what several of walload's TAP tests (test/t/*.pl) need to
# know of the machine and of a running node, in one place.
#
#   use FindBin;
#   use lib $FindBin::RealBin;
#   use WalloadTAP;
#
#   wait_calibration($node)   returns once walload's calibration worker is
#                             idle (dies after timeout_default seconds)
#   calibrated_node($name, $conf)  a node with walload preloaded and $conf
#                             (postgresql.conf lines), started, its
#                             calibration worker idle, the extension
#                             created in database postgres
#   debug2_session($node, $sql[, $errors_expected])
#                             runs $sql in one session on database
#                             postgres with client_min_messages = debug2
#                             (dies on an error, unless errors are
#                             expected: then it goes on past them); returns
#                             its stdout and its stderr, where walload's
#                             DEBUG2 lines are
#   wait_crash_restart($node, $offset)  returns once the log past $offset
#                             says the postmaster re-initialised after a
#                             crash and accepts connections again
#   stat_file_with_crc($content)  pg_stat/walload.stat's $content with the
#                             CRC-32C at its end made to match the rest
#                             (format 9 and later; an earlier file as it
#                             is), so that a test that changes a value
#                             reaches walload's checks of the values
package WalloadTAP;

use strict;
use warnings;
use Exporter 'import';
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;

our @EXPORT = qw(wait_calibration calibration_idle calibrated_node debug2_session stat_file_with_crc
  sync_standby subscription_nodes wait_crash_restart);

# walload's calibration worker times the walks and the storage for some
# seconds after a start, publishes its figures and stays, idle (its ps title
# ends in "idle"); it is looked for among the postmaster's children, since
# the extension may not be created yet.  Nothing to wait for without walload
# loaded or with walload.calibration = off.
sub wait_calibration
{
	my ($node) = @_;
	my $on = $node->safe_psql('postgres',
		"SELECT current_setting('walload.calibration', true)");
	return if $on ne 'on';
	my $deadline = time + $PostgreSQL::Test::Utils::timeout_default;
	until (calibration_idle($node))
	{
		die 'the calibration worker did not finish' if time > $deadline;
		select(undef, undef, undef, 0.1);
	}
	return;
}

# Not only the 'reinitializing' line: a psql refused during the recovery
# that follows exits before poll_query_until writes it its query, and the
# write's EPIPE kills the test (poll_query_until retries a refused
# connection, not that).
sub wait_crash_restart
{
	my ($node, $offset) = @_;
	$node->wait_for_log(
		qr/all server processes terminated; reinitializing(?s:.*)database system is ready to accept connections/,
		$offset);
	return;
}

# is the calibration worker idle: its figures published (its ps title)
sub calibration_idle
{
	my ($node) = @_;
	my ($pm) = split /\n/, slurp_file($node->data_dir . '/postmaster.pid');
	return `ps -o args= --ppid $pm` =~ /walload calibration idle/;
}

# the calibration worker times the walks after the start (and a new
# calibration starts the learned ratio again): what a test compares of the
# estimates is set only once it is idle
sub calibrated_node
{
	my ($name, $conf) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init;
	$node->append_conf('postgresql.conf', "shared_preload_libraries = 'walload'\n$conf");
	$node->start;
	wait_calibration($node);
	$node->safe_psql('postgres', 'CREATE EXTENSION walload');
	return $node;
}

# walload tells at DEBUG2 what it estimated of each walk
sub debug2_session
{
	my ($node, $sql, $errors_expected) = @_;
	my ($stdout, $stderr);
	$node->psql('postgres', "SET client_min_messages = debug2;\n$sql",
		stdout => \$stdout, stderr => \$stderr,
		$errors_expected
		? (on_error_stop => 0, on_error_die => 0)
		: (on_error_die => 1));
	return ($stdout, $stderr);
}

# CRC-32C (Castagnoli, reflected), as PostgreSQL's pg_crc32c.h computes it
my @crc32c_table = map {
	my $c = $_;
	$c = ($c & 1) ? (($c >> 1) ^ 0x82F63B78) : ($c >> 1) for 1 .. 8;
	$c
} 0 .. 255;

sub crc32c
{
	my ($data) = @_;
	my $crc = 0xFFFFFFFF;
	$crc = $crc32c_table[ ($crc ^ $_) & 0xFF ] ^ ($crc >> 8) for unpack('C*', $data);
	return $crc ^ 0xFFFFFFFF;
}

sub stat_file_with_crc
{
	my ($content) = @_;
	# the header: magic, then the format
	return $content if length($content) < 8 || unpack('L<', substr($content, 4, 4)) < 9;
	my $body = substr($content, 0, length($content) - 4);
	return $body . pack('L<', crc32c($body));
}


# A streaming standby of $primary (from a backup taken now) that applies
# WAL $delay late (recovery_min_apply_delay), made the primary's one
# synchronous standby; returns it once pg_stat_replication says 'sync'.
sub sync_standby
{
	my ($primary, $name, $delay) = @_;
	$primary->backup('b');
	my $standby = PostgreSQL::Test::Cluster->new($name);
	$standby->init_from_backup($primary, 'b', has_streaming => 1);
	$standby->append_conf('postgresql.conf', "recovery_min_apply_delay = '$delay'\n");
	$standby->start;
	$primary->safe_psql('postgres', qq{
ALTER SYSTEM SET synchronous_standby_names = '*';
SELECT pg_reload_conf();
});
	Test::More::ok($primary->poll_query_until('postgres',
			"SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync'", '1'),
		'the standby is synchronous');

	# A commit waits only once the checkpointer has processed the reload
	# (SyncRepUpdateSyncStandbysDefined), which a busy machine delays.  The
	# postmaster signalled it before forking the session above; a
	# checkpoint request is served after the checkpointer has handled
	# that signal.
	$primary->safe_psql('postgres', 'CHECKPOINT');
	return $standby;
}


# a publisher and a walload subscriber at wal_level = minimal (init's
# default), every new file synced at commit (wal_skip_threshold = 0): the
# walks of a replayed TRUNCATE and reload are certain; the extension is
# created on the subscriber
sub subscription_nodes
{
	my ($prefix) = @_;
	my $pub = PostgreSQL::Test::Cluster->new("${prefix}_pub");
	$pub->init(allows_streaming => 'logical');
	$pub->start;
	my $sub = PostgreSQL::Test::Cluster->new("${prefix}_sub");
	$sub->init;
	$sub->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'walload'
wal_skip_threshold = 0
autovacuum = off
max_sync_workers_per_subscription = 2
});
	$sub->start;
	$sub->safe_psql('postgres', 'CREATE EXTENSION walload');
	return ($pub, $sub);
}

1;

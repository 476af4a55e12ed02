# walload.commit_strategy = auto checks itself (issue 51, item 6): each
# auto commit on the path auto chose notes its measured commit time against
# the prediction; when the median over the backend's last 16 such commits
# is above 10 times, auto stands aside (core decides, as with off) and says
# so in the records (strategy_action) and in walload_info
# (auto_aside_commits, auto_aside_reason).  A rule test on injected unit
# costs (walload.unit_costs), not on a duration: priced at 0 ns, every
# prediction is nothing (counted as 0.1 us), and any commit that creates a
# file takes tens of microseconds at least, far above 10 times that; priced
# at 1 s a unit, every prediction is seconds, far above anything a commit
# of a one-row table takes even on a busy machine.
# matrix: once (walload's own rule on injected unit costs, the same on every version)
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use WalloadTAP;

my $node = calibrated_node('walload_auto_aside', qq{
autovacuum = off
wal_level = minimal
max_wal_senders = 0
});

my $window = 16;
my $extra = 8;

# a session of auto commits at the given unit costs, each creating a table
# of one row (a pending sync under minimal: auto decides for it)
sub load
{
	my ($app, $costs) = @_;
	my $script = "SET application_name = '$app';\nSET walload.commit_strategy = 'auto';\n"
	  . "SET walload.unit_costs = '$costs';\n";
	$script .= "BEGIN; CREATE TABLE ${app}_$_ (id int); INSERT INTO ${app}_$_ VALUES (1); COMMIT;\n"
	  for 1 .. $window + $extra;
	$node->safe_psql('postgres', $script);
	return;
}

# of the session's auto commits in order: those within the window that
# stood aside, and those after it that did
sub aside
{
	my ($app) = @_;
	return $node->safe_psql('postgres', qq{
WITH c AS (
    SELECT row_number() OVER (ORDER BY xact_id) AS n, strategy_action
    FROM walload_xacts
    WHERE application_name = '$app' AND outcome = 'commit' AND commit_strategy = 'auto'
      AND create_ms > 0)
SELECT concat_ws('|', count(*),
                 count(*) FILTER (WHERE n <= $window AND strategy_action LIKE 'stood aside: commits took%'),
                 count(*) FILTER (WHERE n > $window AND strategy_action LIKE 'stood aside: commits took%'))
FROM c});
}

load('right', 'others=1000000000');
is(aside('right'), ($window + $extra) . "|0|0",
	'unit costs that price commits above what they take: auto never stands aside');
is($node->safe_psql('postgres', 'SELECT auto_aside_commits FROM walload_info'),
	'0', 'walload_info counts no commit stood aside');

load('wrong', 'others=0');
is(aside('wrong'), ($window + $extra) . "|0|$extra",
	'unit costs that price commits at nothing: auto stands aside once the window is full, and stays aside');
is($node->safe_psql('postgres',
		"SELECT auto_aside_commits || '|' || (auto_aside_reason LIKE '%stood aside%times their predicted time%') FROM walload_info"),
	"$extra|true", 'walload_info counts the commits and says why');

note($node->safe_psql('postgres', 'SELECT auto_aside_reason FROM walload_info'));

# standing aside is core's decision: the transaction's threshold, untouched
is($node->safe_psql('postgres', qq{
SELECT count(*) FROM walload_xacts
WHERE application_name = 'wrong' AND strategy_action LIKE 'stood aside: commits took%'
  AND (strategy_changed_commits <> 0 OR commit_threshold_kb <> wal_skip_threshold_kb)}),
	'0', 'where auto stood aside, core decided by the transaction\'s threshold');

$node->stop;
done_testing();

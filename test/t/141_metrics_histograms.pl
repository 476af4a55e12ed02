# walload_histograms (1.10): a slow commit is never lost between scrapes
# (issue 53, item 2).  The histograms of a recorded transaction's commit
# phase and of its walks are filled as each transaction record is stored,
# not read from the transaction ring, which overwrites.
#
# The slow commit is made slow by construction, not by load: the server
# names a synchronous standby that never comes (synchronous_standby_names,
# with WAL senders allowed: core waits only then),
# everyone commits with synchronous_commit = local, and one session with
# synchronous_commit = on waits in its commit phase (for the standby) until
# the test, having seen it wait and let more than a second pass, cancels the
# wait: core then ends the commit with a WARNING.  The assertions are counts:
#
#   - NEGATIVE first: 300 fast transactions: every count above le = 1 s is
#     0, and the +Infinity count equals walload_info.xacts_recorded;
#   - the slow commit: the commit histogram's count above le = 1 rises by
#     exactly 1, its max_seconds >= 1; the walk histogram's does not change;
#   - 2,000 further transactions (the 1,000-entry ring overwritten: the slow
#     one is no longer in walload_xacts): the count above 1 s is still 1,
#     the max still >= 1, the +Infinity counts equal xacts_recorded;
#   - every row's shape: 18 ascending bounds per metric ending at
#     'Infinity', counts non-decreasing along le, sum and max the same on
#     each row, no NULL; walload_reset() zeroes them.
# matrix: once (walload's own histograms, filled as a record is stored, the same on every version)
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);

my $node = PostgreSQL::Test::Cluster->new('walload_metrics_hist');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'walload'
autovacuum = off
fsync = off
walload.calibration = off
wal_level = replica
max_wal_senders = 2
synchronous_standby_names = 'walload_no_such_standby'
synchronous_commit = local
});
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION walload; CREATE TABLE f (a int)');
$node->safe_psql('postgres', 'SELECT walload_reset()');

# counts above le = 1 s per metric, and the +Infinity counts = recorded
my $above;
$above = qq{SELECT string_agg(x, ',') FROM (SELECT metric || ':' ||
  (max(count) FILTER (WHERE le = 'Infinity') - max(count) FILTER (WHERE le = 1)) AS x
  FROM walload_histograms GROUP BY metric ORDER BY metric) s};
my $all_recorded = q{SELECT bool_and(count = (SELECT xacts_recorded FROM walload_info))
FROM walload_histograms WHERE le = 'Infinity'};

sub fast
{
	my ($n) = @_;
	$node->safe_psql('postgres', qq{
SELECT format('INSERT INTO f SELECT %s', i) FROM generate_series(1, $n) i \\gexec
});
}

fast(300);
is($node->safe_psql('postgres', $above), 'commit_seconds:0,walk_seconds:0',
	'300 fast transactions: nothing above 1 s');
is($node->safe_psql('postgres', $all_recorded), 't',
	'every recorded transaction is counted (+Infinity = xacts_recorded)');
cmp_ok($node->safe_psql('postgres',
		q{SELECT max(count) FROM walload_histograms WHERE le = 'Infinity'}), '>=', 300,
	'the 300 are recorded');

# the slow commit: waits for the standby in its commit phase
my $b = $node->background_psql('postgres', on_error_stop => 0);
my $pid = $b->query_safe('SELECT pg_backend_pid()');
$b->query_until(qr/started/, q{
\echo started
SET synchronous_commit = on;
INSERT INTO f SELECT 0;
});
$node->poll_query_until('postgres',
	qq{SELECT wait_event = 'SyncRep' FROM pg_stat_activity WHERE pid = $pid})
  or die 'the commit does not wait for the standby';
usleep(1_200_000);
ok($node->safe_psql('postgres',
		qq{SELECT wait_event = 'SyncRep' FROM pg_stat_activity WHERE pid = $pid}) eq 't',
	'it still waits after 1.2 s');
$node->safe_psql('postgres', "SELECT pg_cancel_backend($pid)");
$node->poll_query_until('postgres',
	qq{SELECT state = 'idle' FROM pg_stat_activity WHERE pid = $pid})
  or die 'the commit does not end';
$b->quit;
is($node->safe_psql('postgres', 'SELECT count(*) FROM f WHERE a = 0'), '1',
	'the slow transaction committed');
is($node->safe_psql('postgres', $above), 'commit_seconds:1,walk_seconds:0',
	'the slow commit is the one count above 1 s');
is( $node->safe_psql('postgres',
		q{SELECT bool_and(max_seconds >= 1) FROM walload_histograms WHERE metric = 'commit_seconds'}),
	't', 'max_seconds >= 1');
is($node->safe_psql('postgres', q{SELECT count(*) FROM walload_xacts WHERE commit_ms >= 1000}),
	'1', 'walload_xacts holds it, for now');

# the ring moves on
fast(2000);
cmp_ok($node->safe_psql('postgres', 'SELECT xacts_overwritten FROM walload_info'), '>=', 1000,
	'2,000 more transactions overwrote the ring');
is($node->safe_psql('postgres', q{SELECT count(*) FROM walload_xacts WHERE commit_ms >= 1000}),
	'0', 'the slow commit has left walload_xacts');
is($node->safe_psql('postgres', $above), 'commit_seconds:1,walk_seconds:0',
	'the histogram still counts it above 1 s');
is( $node->safe_psql('postgres',
		q{SELECT bool_and(max_seconds >= 1) FROM walload_histograms WHERE metric = 'commit_seconds'}),
	't', 'max_seconds is still >= 1');
is($node->safe_psql('postgres', $all_recorded), 't',
	'+Infinity counts equal xacts_recorded');

# the shape of the rows, as Prometheus' histograms
is( $node->safe_psql('postgres', q{
SELECT string_agg(metric || ':' || n || ':' || bounds_ascending || ':' || counts_rise || ':' || one_sum
                  || ':' || last_inf, ',' ORDER BY metric)
FROM (SELECT metric, count(*) AS n,
             bool_and(le > coalesce(prev_le, '-Infinity')) AS bounds_ascending,
             bool_and(count >= coalesce(prev_count, 0)) AS counts_rise,
             count(DISTINCT (sum_seconds, max_seconds, stats_reset)) = 1 AS one_sum,
             max(le) = 'Infinity' AS last_inf
      FROM (SELECT h.*, lag(le) OVER w AS prev_le, lag(count) OVER w AS prev_count
            FROM walload_histograms h WINDOW w AS (PARTITION BY metric ORDER BY le)) s
      GROUP BY metric) t}),
	'commit_seconds:18:true:true:true:true,walk_seconds:18:true:true:true:true',
	'18 ascending bounds per metric to Infinity, cumulative counts, one sum and max');
is( $node->safe_psql('postgres', q{
SELECT string_agg(le::text, ' ' ORDER BY le) FROM walload_histograms WHERE metric = 'commit_seconds'}),
	'0.001 0.0025 0.005 0.01 0.025 0.05 0.1 0.25 0.5 1 2.5 5 10 30 60 120 300 Infinity',
	'the bounds, 1 ms to 5 minutes');
is( $node->safe_psql('postgres', q{
SELECT count(*) FROM walload_histograms h
WHERE h.metric IS NULL OR h.le IS NULL OR h.count IS NULL OR h.sum_seconds IS NULL
   OR h.max_seconds IS NULL OR h.stats_reset IS NULL}),
	'0', 'no column is NULL');

$node->safe_psql('postgres', 'SELECT walload_reset()');
is( $node->safe_psql('postgres', q{
SELECT count(*) || ':' || sum(count) || ':' || sum(sum_seconds) || ':' || sum(max_seconds)
FROM walload_histograms}),
	'36:0:0:0', 'walload_reset() zeroes them (the rows stay)');

$node->stop;
done_testing();

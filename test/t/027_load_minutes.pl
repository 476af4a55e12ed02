# A whole load stays reportable after walload_xacts' ring has overwritten
# its start: walload_report() then reads walload_minutes, the per-session,
# per-minute sums.  Counts only: nothing here depends on the machine's speed.
# matrix: once (walload's own per-minute sums, the same on every version)
# cassert: no (walload's per-minute sums: the same record path and views as pg_regress and pgTAP run with assertions)
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('walload_load_minutes');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'walload'
autovacuum = off
wal_level = minimal
max_wal_senders = 0
walload.max_xacts = 10
walload.max_minutes = 100
walload.calibration = off
});
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION walload');

my $parts = q{SELECT string_agg(concat_ws('|', part, xacts, detail), E'\n' ORDER BY part)};

# the sums and the ring agree while the ring holds every transaction
$node->safe_psql('postgres', q{SELECT walload_reset()});
$node->safe_psql('postgres', join('', map {
	"BEGIN; CREATE TABLE f$_ (i int); INSERT INTO f$_ SELECT generate_series(1, 100); COMMIT;\n"
} 1 .. 4) . "DROP TABLE f1, f2;\n");
my @cols = qw(total_ms commit_sync_ms commit_cleanup_ms copy_ms create_ms index_ms dml_ms
  vacuum_ms truncate_ms drop_ms rewrite_ms other_ms synced_rels wal_logged_rels dropped_rels
  scans_flush_pending scans_drop_pending);
my $sums = join(', ', map { "round(sum($_)::numeric, 6)" } @cols);
is( $node->safe_psql('postgres', "SELECT count(*), $sums FROM walload_xacts"),
	$node->safe_psql('postgres', "SELECT sum(xacts), $sums FROM walload_minutes"),
	'walload_minutes sums what walload_xacts holds: transactions and every part');
is( $node->safe_psql('postgres',
		q{SELECT sum((copy_ms > 0)::int) || ' ' || sum((create_ms > 0)::int) || ' ' || sum((dml_ms > 0)::int)
		  || ' ' || sum((drop_ms > 0)::int) || ' ' || sum((commit_sync_ms > 0)::int) FROM walload_xacts}),
	$node->safe_psql('postgres',
		q{SELECT sum(copy_xacts) || ' ' || sum(create_xacts) || ' ' || sum(dml_xacts)
		  || ' ' || sum(drop_xacts) || ' ' || sum(commit_sync_xacts) FROM walload_minutes}),
	'and counts the transactions with each part');

# a nightly load of 300 transactions in one session: CREATE TABLE + COPY,
# each a small table that minimal WAL-logs whole at its commit
$node->safe_psql('postgres', q{SELECT walload_reset()});
my $load = "SET application_name = 'nightly';\n";
$load .= "BEGIN; CREATE TABLE n$_ (i int); COPY n$_ FROM STDIN;\n1\n2\n3\n\\.\nCOMMIT;\n" for 1 .. 300;
$node->safe_psql('postgres', $load);
my ($xo, $mo) = split /\|/,
  $node->safe_psql('postgres', q{SELECT xacts_overwritten, minutes_overwritten FROM walload_info});
cmp_ok($xo, '>=', 290, "the ring of 10 transactions has overwritten $xo");
is($mo, 0, 'no per-minute sum was overwritten');

my ($stdout, $stderr);
$node->psql('postgres', "$parts FROM walload_report(application_name => 'nightly')",
	stdout => \$stdout, stderr => \$stderr);
like($stdout, qr/^COPY\|300$/m, 'the report holds all 300 COPYs');
like($stdout, qr/^CREATE TABLE, MATVIEW, DATABASE\|300$/m, 'and all 300 CREATE TABLEs');
like($stdout, qr/^commit: syncs, record, WAL flush\|300\|synced 0, WAL-logged 300; walks 0$/m,
	'and all 300 commits, each WAL-logging its file');
is($stderr, '', 'without a warning');
is( $node->safe_psql('postgres',
		q{SELECT abs(sum(pct) - 100) <= 0.05 * count(pct) FROM walload_report(application_name => 'nightly')}),
	't', 'the shares add up to the load (each within its rounding)');
is( $node->safe_psql('postgres',
		q{SELECT count(*) FROM walload_report(application_name => 'nightly', since => now() + interval '2 minutes')}),
	0, 'a window after the load holds nothing of it');

# a clean restart keeps the sums
$node->restart;
$node->psql('postgres', "$parts FROM walload_report(application_name => 'nightly')",
	stdout => \$stdout, stderr => \$stderr);
like($stdout, qr/^COPY\|300$/m, 'after a clean restart the report still holds all 300 COPYs');
is($stderr, '', 'without a warning');

# 120 short sessions claim 120 sums: the ring of 100 overwrites the oldest,
# the nightly load's, and the report says what it lacks
for my $i (1 .. 120)
{
	$node->safe_psql('postgres', "SET application_name = 'many'; CREATE TABLE m$i (i int)");
}
$node->psql('postgres', "$parts FROM walload_report(application_name => 'nightly')",
	stdout => \$stdout, stderr => \$stderr);
like($stderr, qr/WARNING:  the report lacks the transactions of \d+ per-minute sums/,
	'once its sums are overwritten, the report warns');
unlike($stdout, qr/^COPY\|300$/m, 'and no longer holds the whole nightly load');
is( $node->safe_psql('postgres',
		q{SELECT sum(xacts) FROM walload_report(application_name => 'many') WHERE part LIKE 'CREATE%'}),
	100, 'the newest 100 sessions are kept whole');

# a session whose first transaction began before the window and ended in
# it: over the per-minute sums, its minute is in the window (a minute is in
# it if any of it is); the time before its first transaction is then none,
# not the span from the window's start back to that transaction's (it was
# negative), and the parts add up to the load.  A session begun in the
# window keeps its part before its first transaction.
$node->safe_psql('postgres', q{SELECT walload_reset()});
$node->safe_psql('postgres', q{
BEGIN;
CREATE TABLE straddle (i int);
SELECT pg_sleep(0.01);
CREATE TABLE mark AS SELECT clock_timestamp() AS since, pg_backend_pid() AS pid;
SELECT pg_sleep(0.01);
COMMIT;
INSERT INTO straddle VALUES (1);
});
$node->safe_psql('postgres', q{INSERT INTO mark SELECT NULL, pg_backend_pid(); CREATE TABLE late (i int)});
$node->safe_psql('postgres', "CREATE TABLE r$_ (i int)") for 1 .. 12;
is( $node->safe_psql('postgres', q{
SELECT i.xacts_overwritten > 0 AND (SELECT min(x.xact_start) FROM walload_xacts x) > m.since
FROM walload_info i, mark m WHERE m.since IS NOT NULL}),
	't', 'the ring holds nothing of the window\'s start: the report reads the per-minute sums');
my $window = q{walload_report(since => (SELECT since FROM mark WHERE since IS NOT NULL), pid => %s)};
my ($straddle, $late) = split /\n/, $node->safe_psql('postgres',
	q{SELECT pid FROM mark ORDER BY since IS NULL});
my $check = q{SELECT count(*) FILTER (WHERE ms < 0) || ' ' || (abs(sum(pct) - 100) <= 0.05 * count(pct))
              || ' ' || count(*) FILTER (WHERE part LIKE 'before%%' AND ms > 0) FROM } . $window;
is($node->safe_psql('postgres', sprintf($check, $straddle)), '0 true 0',
	'a session whose first transaction began before the window: no negative part, '
	  . 'none before its first transaction, the shares add up');
is($node->safe_psql('postgres', sprintf($check, $late)), '0 true 1',
	'a session begun in the window: its part before its first transaction is there');
is( $node->safe_psql('postgres', q{
SELECT count(*) FILTER (WHERE ms < 0) || ' ' || (abs(sum(pct) - 100) <= 0.05 * count(pct))
FROM walload_report(since => (SELECT since FROM mark WHERE since IS NOT NULL))}),
	'0 true', 'and all sessions of the window together');

$node->safe_psql('postgres', q{SELECT walload_reset()});
is( $node->safe_psql('postgres',
		q{SELECT minutes_recorded || ' ' || (SELECT count(*) FROM walload_minutes) FROM walload_info}),
	'0 0', 'walload_reset() empties walload_minutes');

$node->stop;
done_testing();

# walload_command_totals (1.10): per database, role and command kind,
# totals that only rise between resets, where walload.max_stats' eviction
# cannot reach them (issue 53, item 1).  walload_stats keeps one aggregate
# per query text: each distinct DDL text is one, and evicted ones take their
# counts with them, so a sum over walload_stats goes down (Prometheus reads
# a counter reset) and ends below the truth.
#
#   - 3,200 distinct DDL texts (CREATE TABLE t_N / DROP TABLE t_N, one
#     transaction each) through walload.max_stats = 100, the least allowed:
#     walload_stats evicts (stats_evicted > 0) and its sums end below the
#     truth and rose by less than the statements run between reads (the
#     evicted aggregates' series went away); walload_command_totals' calls for
#     'CREATE TABLE' and 'DROP TABLE' never go down between the reads taken
#     during the run and end equal to the truth, exactly; its calls over
#     every row equal walload_info.statements_recorded (one count per
#     stored statement, however the table folds)
#   - a database and a role dropped after their statements: their rows show
#     the oids as text; no column of the view is NULL
#   - walload_reset() empties it (a new stats_reset), and counting starts
#     again from zero
# matrix: once (walload's own command totals and their eviction, the same on every version)
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('walload_metrics_totals');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'walload'
autovacuum = off
fsync = off
walload.max_stats = 100
walload.calibration = off
});
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION walload');
$node->safe_psql('postgres', 'SELECT walload_reset()');

my $totals = q{SELECT coalesce(sum(calls) FILTER (WHERE command = 'CREATE TABLE'), 0) || '/' ||
  coalesce(sum(calls) FILTER (WHERE command = 'DROP TABLE'), 0) FROM walload_command_totals};
my $stats = q{SELECT coalesce(sum(calls) FILTER (WHERE command = 'CREATE TABLE'), 0) || '/' ||
  coalesce(sum(calls) FILTER (WHERE command = 'DROP TABLE'), 0) FROM walload_stats};

my ($pairs, $chunk) = (1600, 200);
my ($prev_c, $prev_d) = (0, 0);
my ($prev_sc, $prev_sd) = (0, 0);
my ($rose, $stats_lost) = (1, 0);
for (my $lo = 1; $lo <= $pairs; $lo += $chunk)
{
	my $hi = $lo + $chunk - 1;
	$node->safe_psql('postgres', qq{
SELECT format('CREATE TABLE t_%s (a int)', i), format('DROP TABLE t_%s', i)
FROM generate_series($lo, $hi) i \\gexec
});
	my ($c, $d) = split m{/}, $node->safe_psql('postgres', $totals);
	my ($sc, $sd) = split m{/}, $node->safe_psql('postgres', $stats);
	$rose = 0 if $c < $prev_c || $d < $prev_d;
	$stats_lost++ if $sc - $prev_sc < $chunk || $sd - $prev_sd < $chunk;
	note "after $hi pairs: command_totals $c/$d, walload_stats $sc/$sd";
	($prev_c, $prev_d, $prev_sc, $prev_sd) = ($c, $d, $sc, $sd);
}
ok($rose, 'walload_command_totals never went down between reads');
is($node->safe_psql('postgres', $totals), "$pairs/$pairs",
	"CREATE TABLE and DROP TABLE calls equal the truth: $pairs each");
cmp_ok($node->safe_psql('postgres', 'SELECT stats_evicted FROM walload_info'), '>', 0,
	'walload_stats evicted aggregates');
cmp_ok($stats_lost, '>', 0,
	"between $stats_lost of the reads the sums over walload_stats rose by less than the $chunk statements run (evicted series: counter resets)");
my ($sc, $sd) = split m{/}, $node->safe_psql('postgres', $stats);
ok($sc < $pairs && $sd < $pairs,
	"and end below the truth ($sc/$sd of $pairs/$pairs)");
is( $node->safe_psql('postgres', q{
SELECT (SELECT sum(calls) FROM walload_command_totals) = statements_recorded FROM walload_info}),
	't', 'calls over every row equal the statements recorded');
is( $node->safe_psql('postgres', q{
SELECT string_agg(DISTINCT datname || '/' || rolname, ',') FROM walload_command_totals}),
	'postgres/postgres', 'the rows name the database and the role');

# a database and a role dropped after their statements
$node->safe_psql('postgres', q{
CREATE ROLE wl_gone LOGIN;
CREATE DATABASE wl_gonedb OWNER wl_gone;
});
$node->safe_psql('wl_gonedb', q{
SET ROLE wl_gone;
CREATE TABLE x (a int);
DROP TABLE x;
});
my $ids = $node->safe_psql('postgres', q{
SELECT (SELECT oid FROM pg_database WHERE datname = 'wl_gonedb') || '/' || 'wl_gone'::regrole::oid});
is( $node->safe_psql('postgres', q{
SELECT string_agg(command || ':' || calls, ',' ORDER BY command) FROM walload_command_totals
WHERE datname = 'wl_gonedb' AND rolname = 'wl_gone'}),
	'CREATE TABLE:1,DROP TABLE:1', 'the role in the other database is counted');
$node->safe_psql('postgres', 'DROP DATABASE wl_gonedb');
$node->safe_psql('postgres', 'DROP ROLE wl_gone');
is( $node->safe_psql('postgres', qq{
SELECT string_agg(command || ':' || calls, ',' ORDER BY command) FROM walload_command_totals
WHERE datname || '/' || rolname = '$ids'}),
	'CREATE TABLE:1,DROP TABLE:1', "dropped: the database's and the role's oids as text ($ids)");
my $nulls = q{SELECT count(*) FROM walload_command_totals t
WHERE t.datname IS NULL OR t.rolname IS NULL OR t.command IS NULL OR t.calls IS NULL
   OR t.total_seconds IS NULL OR t.commit_seconds IS NULL OR t.rows IS NULL OR t.walks IS NULL
   OR t.wal_bytes IS NULL OR t.stats_reset IS NULL};
is($node->safe_psql('postgres', $nulls), '0', 'no column is NULL');
is( $node->safe_psql('postgres', q{
SELECT count(*) FROM walload_command_totals WHERE calls < 0 OR total_seconds < 0 OR commit_seconds < 0
   OR rows < 0 OR walks < 0 OR wal_bytes < 0}),
	'0', 'no total is negative');

# walload_reset() starts them again
my $before = $node->safe_psql('postgres', 'SELECT max(stats_reset) FROM walload_command_totals');
$node->safe_psql('postgres', 'SELECT walload_reset()');
is($node->safe_psql('postgres', 'SELECT count(*) FROM walload_command_totals'), '0',
	'walload_reset() empties it');
$node->safe_psql('postgres', 'CREATE TABLE again (a int)');
is( $node->safe_psql('postgres', qq{
SELECT command || ':' || calls || ':' || (stats_reset > '$before') FROM walload_command_totals}),
	'CREATE TABLE:1:true', 'and counting starts from zero, with a new stats_reset');

$node->stop;
done_testing();

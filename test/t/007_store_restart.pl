# What a clean restart keeps besides the rows themselves: the eviction
# order of walload_stats and walload_info's recorded / overwritten counts.
# matrix: once (walload's own stats file and eviction order, the same on every version)
# cassert: no (what a clean restart keeps: the store's dump and load, which 001 runs with assertions)
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('walload_store_restart');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'walload'
autovacuum = off
walload.max_stats = 100
walload.max_xacts = 10
walload.max_statements = 100
});
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION walload; CREATE TABLE c (id int)');

# 150 distinct old statements (COMMENTs with different texts have different
# query ids), each run twice, fill the table of 100 aggregates
my $old = join('', map { "COMMENT ON TABLE c IS 'old_$_';\n" } 1 .. 150);
$node->safe_psql('postgres', $old . $old);
my $old_kept = $node->safe_psql('postgres',
	q{SELECT count(*) FROM walload_stats WHERE query LIKE 'COMMENT ON TABLE c IS ''old\_%'});
cmp_ok($old_kept, '>=', 80, "the table is full of old aggregates ($old_kept of them)");

# walload_info's counts, which the rings alone cannot give back (the rings
# keep only the last 10 transactions and 100 statements)
my $info_sql = q{SELECT concat_ws(' ', xacts_recorded, xacts_overwritten, statements_recorded,
  statements_overwritten, stats_evicted, stats_reset) FROM walload_info};
my $info = $node->safe_psql('postgres', $info_sql);
like($info, qr/^(\d+) (\d+) (\d+) (\d+) /, "walload_info before the restart: $info");
my ($xr, $xo, $sr, $so) = split / /, $info;
cmp_ok($xo, '>', 0, 'transactions were overwritten');
cmp_ok($so, '>', 0, 'statements were overwritten');

$node->restart;

is($node->safe_psql('postgres', $info_sql), $info,
	'walload_info: xacts_recorded, xacts_overwritten, statements_recorded, statements_overwritten, stats_evicted and stats_reset are unchanged by a clean restart');

# 40 new distinct statements: the least recently used are the old ones
my $new = join('', map { "COMMENT ON TABLE c IS 'new_$_';\n" } 1 .. 40);
$node->safe_psql('postgres', $new);
my $new_kept = $node->safe_psql('postgres',
	q{SELECT count(*) FROM walload_stats WHERE query LIKE 'COMMENT ON TABLE c IS ''new\_%'});
my $old_after = $node->safe_psql('postgres',
	q{SELECT count(*) FROM walload_stats WHERE query LIKE 'COMMENT ON TABLE c IS ''old\_%'});
is($new_kept, 40, "after the restart, all 40 new aggregates are kept ($old_after old ones remain)");
cmp_ok($old_after, '<=', $old_kept - 40, 'the old ones were evicted instead');

# recording goes on from the restored counts
$node->safe_psql('postgres', 'CREATE TABLE c1 (id int)');
my ($xr2) = split / /, $node->safe_psql('postgres', $info_sql);
cmp_ok($xr2, '>', $xr, "xacts_recorded goes on from $xr ($xr2)");

$node->stop;
done_testing();

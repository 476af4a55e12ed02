# Nothing allocates or can error under walload's lock in the commit cleanup
# or on the abort path (store.c's locking note).  Eviction from a full
# walload_stats walks the table with memory of its own, under the lock held
# exclusively: it is never done there.  A statement stored from the abort
# path that needs a new aggregate in a full table is not stored then; it
# waits in its backend, as when the lock is busy, and its next statement
# stores it, evicting a tenth of the table (pgTAP 04) as any other
# statement does.  walload 1.8.2 evicted in the abort path (palloc and
# selection under the exclusive lock, reached from the cleanup callback).
#
# Counted with walload_info.stats_evicted, read from another session (a
# plain SELECT is not recorded, so reading adds no aggregate):
#   - an error and a ROLLBACK whose statement needs a new aggregate evict
#     nothing while their session is idle; the statement is not in
#     walload_stats yet;
#   - the session's next statement stores it: one eviction (10 of 100),
#     the aggregate is there, with its error counted;
#   - must still happen: a statement stored outside the cleanup (an
#     autocommit INSERT, stored at its commit's start) evicts at once.
# matrix: once (walload's own store locking and eviction, the same on every version)
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('walload_cleanup_no_evict');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'walload'
autovacuum = off
walload.max_stats = 100
walload.calibration = off
});
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION walload; CREATE TABLE ev (a int)');

# fill walload_stats: 120 statements of distinct shapes (distinct query
# ids: a constant is not part of a shape, the number of terms is)
$node->safe_psql('postgres', q{
SELECT walload_reset();
SELECT format('INSERT INTO ev SELECT %s0', repeat('1 + ', i)) FROM generate_series(1, 120) i \gexec
});

my $info = q{SELECT stats_entries || '/' || stats_evicted FROM walload_info};
my ($entries, $evicted) = split m{/}, $node->safe_psql('postgres', $info);
is($entries, 100, "walload_stats is full ($evicted evicted)");
cmp_ok($evicted, '>', 0, 'filling it evicted');

my $b = $node->background_psql('postgres', on_error_stop => 0);

# an error: the failed INSERT is stored from the abort path
$b->query(q{INSERT INTO ev SELECT a / (a - a) + 7 FROM ev});
is($node->safe_psql('postgres', $info), "$entries/$evicted",
	'an aborted statement needing a new aggregate evicted nothing from the abort path');
is( $node->safe_psql('postgres',
		q{SELECT count(*) FROM walload_stats WHERE query LIKE 'INSERT INTO ev SELECT a / (a - a)%'}),
	'0', 'its aggregate waits in its backend');

# its next statement (a plain SELECT, itself not recorded) stores it
$b->query(q{SELECT 'next'});
is($node->safe_psql('postgres', $info), ($entries - 10 + 1) . '/' . ($evicted + 10),
	'the next statement stored it, evicting a tenth of the table');
is( $node->safe_psql('postgres',
		q{SELECT calls || '/' || errors FROM walload_stats WHERE query LIKE 'INSERT INTO ev SELECT a / (a - a)%'}),
	'1/1', 'the failed statement is recorded, its error counted');
($entries, $evicted) = split m{/}, $node->safe_psql('postgres', $info);

# fill the table again, then a ROLLBACK: its INSERT waits at ROLLBACK's
# start (the open record's statements wait for its end) and is stored from
# the abort path
$node->safe_psql('postgres', q{
SELECT format('INSERT INTO ev SELECT %s0', repeat('1 + ', i)) FROM generate_series(121, 129) i \gexec
});
($entries, $evicted) = split m{/}, $node->safe_psql('postgres', $info);
is($entries, 100, 'walload_stats is full again');
$b->query(q{BEGIN; INSERT INTO ev SELECT 3 * 3 * 3 * 3; ROLLBACK});
is($node->safe_psql('postgres', $info), "$entries/$evicted",
	'a rolled back statement needing a new aggregate evicted nothing from the abort path');
$b->query(q{SELECT 'next'});
is($node->safe_psql('postgres', $info), ($entries - 10 + 1) . '/' . ($evicted + 10),
	'the next statement stored it, evicting a tenth of the table');
is( $node->safe_psql('postgres',
		q{SELECT calls FROM walload_stats WHERE query LIKE 'INSERT INTO ev SELECT 3 * 3%'}),
	'1', 'the rolled back statement is recorded');

# must still happen: outside the cleanup, a new aggregate evicts at once
$node->safe_psql('postgres', q{
SELECT format('INSERT INTO ev SELECT %s0', repeat('1 + ', i)) FROM generate_series(130, 138) i \gexec
});
($entries, $evicted) = split m{/}, $node->safe_psql('postgres', $info);
is($entries, 100, 'walload_stats is full again');
$b->query(q{INSERT INTO ev SELECT 5 - 5 - 5});
is($node->safe_psql('postgres', $info), ($entries - 10 + 1) . '/' . ($evicted + 10),
	'an autocommit INSERT (stored at its commit\'s start) evicted at once');

$b->quit;
$node->stop;
done_testing();

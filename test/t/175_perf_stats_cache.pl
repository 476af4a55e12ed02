# A backend finds the aggregates it stored into last without hashing
# (store.c, stats_cache): after walload_reset() and after the eviction
# removed them, the same backend's statements go to new aggregates, never
# into a removed one or one another key now holds.
# matrix: once (walload's own store: the same code on every version)
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('walload_stats_cache');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'walload'
autovacuum = off
walload.max_stats = 100
});
$node->start;
$node->safe_psql('postgres', q{
CREATE EXTENSION walload;
CREATE TABLE cache_x (i int);
CREATE TABLE cache_y (i int);
DO $$ BEGIN FOR i IN 1..150 LOOP EXECUTE format('CREATE TABLE cache_t%s (i int)', i); END LOOP; END $$;
SELECT walload_reset();
});

my $calls = q{SELECT coalesce(string_agg(calls::text, ',' ORDER BY calls), '-')
  FROM walload_stats WHERE query LIKE 'INSERT INTO cache_x%'};

# one session: the statement is stored twice (the second time through the
# cache), the store is reset, then it runs three times
$node->safe_psql('postgres', q{
INSERT INTO cache_x VALUES (1);
INSERT INTO cache_x VALUES (2);
SELECT walload_reset();
INSERT INTO cache_x VALUES (3);
INSERT INTO cache_x VALUES (4);
INSERT INTO cache_x VALUES (5);
});
is($node->safe_psql('postgres', $calls), '3',
	'after walload_reset() in the same session: one aggregate, the 3 calls since');

# the must-not case: no reset, no eviction, the calls add up in one aggregate
$node->safe_psql('postgres', q{
INSERT INTO cache_x VALUES (6);
INSERT INTO cache_x VALUES (7);
});
is($node->safe_psql('postgres', $calls), '5',
	'without a reset the cached aggregate takes every call');

# session A caches cache_x's and cache_y's aggregates; another session
# stores 150 new ones (walload.max_stats = 100), which evicts them (the
# least recently used) and takes the freed room; A runs them again
$node->safe_psql('postgres', 'SELECT walload_reset()');
my $a = $node->background_psql('postgres');
$a->query_safe('INSERT INTO cache_x VALUES (1)');
$a->query_safe('INSERT INTO cache_y VALUES (1)');
$node->safe_psql('postgres', q{
SET walload.track = 'all';
DO $$ BEGIN FOR i IN 1..150 LOOP EXECUTE format('INSERT INTO cache_t%s VALUES (1)', i); END LOOP; END $$;
});
$a->query_safe('INSERT INTO cache_x VALUES (2)');
$a->query_safe('INSERT INTO cache_y VALUES (2)');
$a->query_safe('INSERT INTO cache_y VALUES (3)');
$a->quit;
cmp_ok($node->safe_psql('postgres', 'SELECT stats_evicted FROM walload_info'), '>', 0,
	'aggregates were evicted');
is($node->safe_psql('postgres', $calls), '1',
	'the evicted aggregate is not written through the cache: a new one holds the call since');
is($node->safe_psql('postgres', q{SELECT coalesce(string_agg(calls::text, ','), '-')
  FROM walload_stats WHERE query LIKE 'INSERT INTO cache_y%'}), '2',
	'cache_y likewise: its 2 calls since the eviction, in one aggregate');
is($node->safe_psql('postgres', q{SELECT count(*) FROM walload_stats
  WHERE query LIKE 'INSERT INTO cache_t%' AND calls <> 1}), '0',
	'no other aggregate took a call that was not its own');

done_testing();

# walload must not break the processes that do not run its statement hooks:
# parallel workers, autovacuum workers, walsenders (pg_basebackup).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('walload_others');
$node->init(allows_streaming => 1);
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'walload,pg_stat_statements'
walload.track = all
autovacuum = on
autovacuum_naptime = 1
max_parallel_workers_per_gather = 2
});
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION walload');

# parallel query: workers run the plan; the leader's statement is recorded once
$node->safe_psql('postgres', 'CREATE TABLE p (id int, t text); INSERT INTO p SELECT g, md5(g::text) FROM generate_series(1, 200000) g; ANALYZE p');
$node->safe_psql('postgres', 'SELECT walload_reset()');
my $res = $node->safe_psql('postgres', q{
SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;
EXPLAIN (COSTS OFF) SELECT count(*) FROM p;
SELECT count(*) FROM p;
CREATE TABLE p2 AS SELECT * FROM p WHERE id % 2 = 0;
SELECT count(*) FROM p2;
});
like($res, qr/Gather/, 'the query runs with parallel workers');
like($res, qr/\n200000\n100000$/, 'and gives the right answers with walload loaded');
is($node->safe_psql('postgres', "SELECT calls || '/' || rows FROM walload_stats WHERE command = 'CREATE TABLE AS'"),
	'1/100000', 'a parallel CREATE TABLE AS is recorded once, with its rows');

# autovacuum workers run while walload is loaded
$node->safe_psql('postgres', 'CREATE TABLE av (id int); INSERT INTO av SELECT generate_series(1, 10000); DELETE FROM av WHERE id > 10');
ok($node->poll_query_until('postgres',
	"SELECT autovacuum_count > 0 FROM pg_stat_user_tables WHERE relname = 'av'"),
	'autovacuum processed a table');
is($node->safe_psql('postgres', 'SELECT count(*) FROM av'), '10', 'and the table is intact');

# a walsender: pg_basebackup streams a backup, and a standby starts from it
$node->backup('b');
my $standby = PostgreSQL::Test::Cluster->new('walload_standby');
$standby->init_from_backup($node, 'b', has_streaming => 1);
$standby->start;
$node->safe_psql('postgres', 'CREATE TABLE s (id int); INSERT INTO s VALUES (42)');
$node->wait_for_catchup($standby);
is($standby->safe_psql('postgres', 'SELECT id FROM s'), '42', 'a standby streams from a walsender with walload loaded');
is($standby->safe_psql('postgres', "SELECT count(*) >= 0 FROM walload_xacts"), 't', 'walload\'s views work on the standby');
$standby->stop;

ok($node->safe_psql('postgres', 'SELECT count(*) FROM walload_xacts') > 0, 'the primary kept recording');
$node->stop;
done_testing();

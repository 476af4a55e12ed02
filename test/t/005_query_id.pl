# walload.compute_query_id: on (the default), walload asks core for query ids
# as pg_stat_statements does; off, it does not, and ids are 0 unless
# something else asks for them (pg_stat_statements, compute_query_id = on).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('walload_query_id');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'walload'
autovacuum = off
});
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION walload; CREATE TABLE q (id int)');

# the query id of an INSERT and a CREATE TABLE as walload recorded them
sub ids
{
	my ($tag) = @_;
	$node->safe_psql('postgres', qq{SELECT walload_reset();
INSERT INTO q VALUES (1);
CREATE TABLE q_$tag (id int);});
	return $node->safe_psql('postgres', q{
SELECT string_agg(command || '=' || (queryid <> 0)::text, ' ' ORDER BY command)
FROM walload_statements});
}

is($node->safe_psql('postgres', 'SHOW compute_query_id'), 'auto', 'compute_query_id is left at auto');
is(ids('on'), 'CREATE TABLE=true INSERT=true', 'walload.compute_query_id = on: statements have query ids');

$node->append_conf('postgresql.conf', 'walload.compute_query_id = off');
$node->restart;
is(ids('off'), 'CREATE TABLE=false INSERT=false', 'off, walload alone: no query ids (0)');
is($node->safe_psql('postgres', 'SELECT query_id IS NULL FROM pg_stat_activity WHERE pid = pg_backend_pid()'),
	't', 'and core computes none (pg_stat_activity.query_id is NULL)');

$node->append_conf('postgresql.conf', "compute_query_id = on");
$node->restart;
is(ids('forced'), 'CREATE TABLE=true INSERT=true', 'off, but compute_query_id = on: query ids again');

$node->stop;
done_testing();

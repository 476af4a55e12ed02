# Query ids after an error inside query jumbling.  walload computes query ids
# itself (compute_query_id = auto, no module asked core for them) with core's
# JumbleQuery(); that must leave no global state changed, also when it
# errors.  If core's query_id_enabled stayed set, core would compute a query
# id for every statement of the backend from then on: EXPLAIN VERBOSE would
# print a Query Identifier and pg_stat_activity.query_id would be set for a
# plain SELECT.
#
# What makes jumbling error: a stack-depth overflow.  From 16 on core jumbles
# a utility statement's raw parse tree, which parse analysis does not walk:
# a column default of thousands of additions (a left-deep tree the grammar
# builds without recursion) overflows a small max_stack_depth first in
# JumbleQuery().  15 hashes a utility statement's text instead, and parse
# analysis of any other statement goes deeper than its jumbling does, so
# there the statement fails later, in DefineRelation(): the test still
# checks that nothing leaked.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('walload_jumble_error');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'walload'
autovacuum = off
});
$node->start;
$node->safe_psql('postgres', q{
CREATE EXTENSION walload;
CREATE TABLE ja (id int);
});

is($node->safe_psql('postgres', 'SHOW compute_query_id'), 'auto', 'compute_query_id is auto');
is($node->safe_psql('postgres', q{SELECT count(*) FROM pg_settings WHERE name LIKE 'pg_stat_statements.%'}),
	'0', 'pg_stat_statements is not loaded');

# what a session shows of core's query ids for statements walload does not
# record, before and after whatever ran first in it
my $probe = q{
\echo PROBE
EXPLAIN (VERBOSE, COSTS OFF) SELECT 1;
SELECT 'activity:' || (query_id IS NULL) FROM pg_stat_activity WHERE pid = pg_backend_pid();
};

my ($out, $err) = ('', '');
$node->psql('postgres', $probe, stdout => \$out, stderr => \$err, on_error_die => 1);
unlike($out, qr/Query Identifier/, 'a fresh session: EXPLAIN VERBOSE shows no query id');
like($out, qr/activity:t/, 'a fresh session: pg_stat_activity.query_id is NULL');

# 20000 terms: far past 100kB of stack in any build's jumbling, and a
# statement of 40 kB
my $deep = join('+', ('0') x 20000);
($out, $err) = ('', '');
$node->psql('postgres', qq{
SET max_stack_depth = '100kB';
CREATE TABLE jdeep (a int DEFAULT $deep);
RESET max_stack_depth;
$probe
INSERT INTO ja VALUES (1);
SELECT 'recorded:' || count(*) FILTER (WHERE queryid <> 0) FROM walload_statements WHERE command = 'INSERT';
}, stdout => \$out, stderr => \$err, on_error_stop => 0);
like($err, qr/stack depth limit exceeded/, 'the deep statement failed on the stack depth');
unlike($out, qr/Query Identifier/, 'after the error: EXPLAIN VERBOSE shows no query id');
like($out, qr/activity:t/, 'after the error: pg_stat_activity.query_id is NULL');
like($out, qr/recorded:1/, 'after the error: walload still computes the id of what it records');
is($node->safe_psql('postgres', q{SELECT count(*) FROM pg_class WHERE relname = 'jdeep'}),
	'0', 'the deep table was not created');

$node->stop;
done_testing();

# matrix: once
#
# The context walload observes a COPY FROM (under wal_level = minimal), a
# TRUNCATE or a VACUUM in is kept for the backend's life and reset after
# each statement, its first block kept (observe.c, wl_observe_before): a
# context created and deleted around every COPY moved the heap's top across
# glibc's trim threshold, and core's COPY grew the heap again each time.
#
#   - a backend that observed nothing has no such context;
#   - after COPYs, TRUNCATEs and a failed COPY there is exactly one, holding
#     its kept block and, once reset, nothing else.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('walload_observation_context');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'walload'
wal_level = minimal
max_wal_senders = 0
autovacuum = off
});
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION walload');

my $contexts = q{
SELECT count(*) || '/' || coalesce(min(total_bytes) >= 32768, false) || '/'
       || coalesce(max(used_bytes) < 1024, false)
FROM pg_backend_memory_contexts WHERE name = 'walload observation'};

is($node->safe_psql('postgres', $contexts), '0/false/false',
	'a backend that observed nothing has no observation context');

my $script = '';
for my $i (1 .. 5)
{
	$script .= "BEGIN; CREATE TABLE c$i (a int); COPY c$i FROM PROGRAM 'seq 1 5000'; COMMIT;\n";
	$script .= "TRUNCATE c$i;\n";
}
$script .= "BEGIN; CREATE TABLE cbad (a int);\n";
$script .= "\\set ON_ERROR_STOP 0\nCOPY cbad FROM PROGRAM 'printf \"1\\\\nnot a number\\\\n\"';\nROLLBACK;\n";
$script .= "BEGIN; CREATE TABLE c6 (a int); COPY c6 FROM PROGRAM 'seq 1 5000'; COMMIT;\n";
$script .= $contexts . ";\n";
my ($ret, $out, $err) = $node->psql('postgres', $script);
is((split /\n/, $out)[-1], '1/true/true',
	'one kept context after COPYs, TRUNCATEs and a failed COPY, reset');
like($err, qr/invalid input syntax/, 'the bad COPY failed');
is($node->safe_psql('postgres', 'SELECT count(*) FROM c6'), '5000', 'the last COPY loaded');

$node->stop;
done_testing();

# autovacuum runs no hooked statement (it calls vacuum() itself), yet its
# truncation of a table's empty tail walks all of shared buffers, as a
# VACUUM statement's does.  walload records an autovacuum transaction that
# truncated a tail at its commit (observe.c wl_observe_worker_xact), with
# one truncation walk, the pages removed and backend_type 'autovacuum
# worker'; an autovacuum that truncates nothing records nothing, and with
# walload.track = none nothing is recorded.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('walload_autovacuum');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'walload'
autovacuum_naptime = 1
});
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION walload');

my $opts = 'autovacuum_vacuum_threshold = 10, autovacuum_vacuum_scale_factor = 0, autovacuum_analyze_threshold = 10, autovacuum_analyze_scale_factor = 0';
# tail: all rows but the first 100 deleted, its tail empty; middle: the
# first rows deleted, the last kept, nothing to truncate
for my $t (qw(tail middle))
{
	$node->safe_psql('postgres', qq{
		CREATE TABLE $t (id int, pad text) WITH ($opts, autovacuum_enabled = false);
		INSERT INTO $t SELECT g, repeat('v', 200) FROM generate_series(1, 20000) g;
	});
}
# autovacuum only once the rows are deleted (not after the insert)
$node->safe_psql('postgres', 'DELETE FROM tail WHERE id > 100; DELETE FROM middle WHERE id < 19900;
	ALTER TABLE tail SET (autovacuum_enabled = true); ALTER TABLE middle SET (autovacuum_enabled = true)');

my $vacuumed = q{SELECT count(*) = 2 FROM pg_stat_user_tables
	WHERE relname IN ('tail', 'middle') AND autovacuum_count > 0};
ok($node->poll_query_until('postgres', $vacuumed), 'premise: autovacuum vacuumed both tables');
ok($node->safe_psql('postgres', "SELECT pg_relation_size('tail') / 8192") < 10, 'premise: it truncated the first table\'s tail');
my $worker = q{
	SELECT s.query, s.command, b.backend_type, s.scans_drop_rel, s.vacuum_pages_removed > 0 AS removed
	FROM walload_statements s JOIN walload_xact_backend_types() b USING (xact_id)
	WHERE b.backend_type = 'autovacuum worker'};
ok($node->poll_query_until('postgres', "SELECT count(*) > 0 FROM ($worker) w WHERE query = 'autovacuum of public.tail'"),
	'the truncating autovacuum is recorded');
is($node->safe_psql('postgres', "SELECT concat_ws('|', command, backend_type, scans_drop_rel, removed) FROM ($worker) w
	WHERE query = 'autovacuum of public.tail'"),
	'VACUUM|autovacuum worker|1|t', 'with its one truncation walk and the pages it removed');
is($node->safe_psql('postgres', "SELECT concat_ws('|', x.scans_drop_rel, x.statements) FROM walload_xacts x
	JOIN walload_xact_backend_types() b USING (xact_id) WHERE b.backend_type = 'autovacuum worker'"),
	'1|1', 'its transaction has the walk; no other autovacuum transaction is recorded');
is($node->safe_psql('postgres', "SELECT count(*) FROM ($worker) w WHERE query LIKE '%middle%'"), 0,
	'an autovacuum that truncates nothing records nothing');
like($node->safe_psql('postgres', "SELECT string_agg(finding, ';') FROM walload_diagnose(backend_type => 'autovacuum worker')"),
	qr/autovacuum truncation walks/, 'walload_diagnose(backend_type) names the truncation walks');
unlike($node->safe_psql('postgres', "SELECT coalesce(string_agg(finding, ';'), '') FROM walload_diagnose(backend_type => 'client backend')"),
	qr/autovacuum truncation/, 'not among the client backends');

# walload.track = none: a truncating autovacuum records nothing
$node->safe_psql('postgres', "ALTER SYSTEM SET walload.track = none; SELECT pg_reload_conf()");
$node->safe_psql('postgres', qq{
	CREATE TABLE tail2 (id int, pad text) WITH ($opts);
	INSERT INTO tail2 SELECT g, repeat('v', 200) FROM generate_series(1, 20000) g;
	DELETE FROM tail2 WHERE id > 100;
});
ok($node->poll_query_until('postgres', "SELECT pg_relation_size('tail2') / 8192 < 10"),
	'premise: autovacuum truncated the third table\'s tail');
is($node->safe_psql('postgres', "SELECT count(*) FROM ($worker) w WHERE query LIKE '%tail2%'"), 0,
	'with walload.track = none autovacuum records nothing');

done_testing();

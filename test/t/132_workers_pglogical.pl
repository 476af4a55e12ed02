# pglogical 2 as subscriber (issue 52): its apply worker is a background
# worker of pglogical's library, without core's logical replication state,
# that replays with a replication origin as core's apply worker does.
# walload records each replayed transaction at its commit, as the apply
# worker's (observe.c wl_observe_worker_kind), named by pglogical's worker
# as pg_stat_activity shows it; a replayed TRUNCATE (pglogical's queued
# TRUNCATE, ExecuteTruncate) with its commit-time walks.  The initial sync
# copies each table over a libpq connection to the subscriber (COPY FROM
# STDIN): a client's statement, recorded as such.  An idle subscriber
# records nothing.  Skipped where pglogical is not installed.
# matrix: no (pglogical's package is installed on the host's 15 only: scripts/deps.sh)
# cassert: no (the assert-enabled server is built without pglogical)
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $pkglibdir = `pg_config --pkglibdir`;
chomp $pkglibdir;
plan skip_all => 'pglogical is not installed' unless -e "$pkglibdir/pglogical.so";

my $pub = PostgreSQL::Test::Cluster->new('pgl_provider');
$pub->init(allows_streaming => 'logical');
$pub->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'pglogical'
max_worker_processes = 12
});
$pub->start;
# where the server restricts output plugins to a list, pglogical's is put on it
if ($pub->safe_psql('postgres', "SELECT count(*) FROM pg_settings WHERE name = 'output_plugin_libraries'"))
{
	$pub->safe_psql('postgres', "ALTER SYSTEM SET output_plugin_libraries = 'pglogical_output'");
	$pub->reload;
}

# the subscriber at wal_level = minimal, every new file synced at commit
# (wal_skip_threshold = 0): a replayed TRUNCATE walks twice at its commit
my $sub = PostgreSQL::Test::Cluster->new('pgl_subscriber');
$sub->init;
$sub->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'pglogical, walload'
max_worker_processes = 12
wal_skip_threshold = 0
autovacuum = off
});
$sub->start;
is($sub->safe_psql('postgres', 'SHOW wal_level'), 'minimal', 'premise: the subscriber runs at wal_level = minimal');

my %rows = (t1 => 1000, t2 => 2000, t3 => 0);
for my $t (sort keys %rows)
{
	my $ddl = "CREATE TABLE $t (id int PRIMARY KEY, pad text)";
	$pub->safe_psql('postgres', "$ddl; INSERT INTO $t SELECT g, repeat('p', 100) FROM generate_series(1, $rows{$t}) g");
	$sub->safe_psql('postgres', $ddl);
}
my $pubdsn = $pub->connstr . ' dbname=postgres';
my $subdsn = $sub->connstr . ' dbname=postgres';
$pub->safe_psql('postgres', qq{CREATE EXTENSION pglogical;
	SELECT pglogical.create_node(node_name := 'provider', dsn := '$pubdsn');
	SELECT pglogical.replication_set_add_all_tables('default', ARRAY['public'])});
$sub->safe_psql('postgres', qq{CREATE EXTENSION pglogical; CREATE EXTENSION walload;
	SELECT pglogical.create_node(node_name := 'subscriber', dsn := '$subdsn');
	SELECT pglogical.create_subscription(subscription_name := 's', provider_dsn := '$pubdsn',
		synchronize_structure := false, synchronize_data := true)});
$sub->safe_psql('postgres', "SELECT pglogical.wait_for_subscription_sync_complete('s')");
is($sub->safe_psql('postgres', 'SELECT (SELECT count(*) FROM t1) + (SELECT count(*) FROM t2)') + 0, 3000,
	'premise: the initial sync copied every row');

# pglogical's apply worker, as pg_stat_activity names it
my $apply_pid;
my $deadline = time + $PostgreSQL::Test::Utils::timeout_default;
until ($apply_pid)
{
	$apply_pid = $sub->safe_psql('postgres',
		"SELECT pid FROM pg_stat_activity WHERE backend_type LIKE 'pglogical apply %'");
	die 'no pglogical apply worker' if !$apply_pid && time > $deadline;
	select(undef, undef, undef, 0.1) unless $apply_pid;
}
my $apply_name = $sub->safe_psql('postgres', "SELECT backend_type FROM pg_stat_activity WHERE pid = $apply_pid");

# the initial copy: a client's COPY FROM STDIN with its rows
is($sub->safe_psql('postgres', q{SELECT string_agg(concat_ws('|', s.command, s.rows), ',' ORDER BY s.rows)
	FROM walload_statements s JOIN walload_xact_backend_types() b USING (xact_id)
	WHERE b.backend_type = 'client backend' AND s.query ILIKE 'COPY %FROM STDIN%'}),
	'COPY|0,COPY|1000,COPY|2000', 'the initial sync: a client COPY of each table, with its rows');

my $at = $sub->safe_psql('postgres', 'SELECT pg_catalog.current_setting(\'server_version_num\')::int') >= 170000
  ? 'logical replication apply worker' : 'logical replication worker';
my $worker_stmts = qq{
	SELECT s.query, s.command, b.backend_type, s.scans_flush_pending, s.scans_drop_pending
	FROM walload_statements s JOIN walload_xact_backend_types() b USING (xact_id)
	WHERE b.pid = $apply_pid};

# an idle subscriber: nothing recorded in the worker
my $count = "SELECT count(*) FROM ($worker_stmts) w";
my $before = $sub->safe_psql('postgres', $count);
sleep 3;
is($sub->safe_psql('postgres', $count), $before, 'an idle pglogical subscriber records nothing');

# a replayed TRUNCATE: the new empty files synced, the old ones deleted
$pub->safe_psql('postgres', 'TRUNCATE t1');
$pub->wait_for_catchup('s');
$deadline = time + $PostgreSQL::Test::Utils::timeout_default;
sleep 0.2 until $sub->safe_psql('postgres', 'SELECT count(*) FROM t1') == 0 || time > $deadline;
is($sub->safe_psql('postgres', "SELECT concat_ws('|', command, backend_type, scans_flush_pending, scans_drop_pending)
	FROM ($worker_stmts) w WHERE query = 'replayed transaction with TRUNCATE of public.t1 ($apply_name)'"),
	"TRUNCATE TABLE|$at|1|1",
	'a replayed TRUNCATE in pglogical\'s apply worker is recorded with its walks at commit');

# a replayed INSERT walks nothing
$pub->safe_psql('postgres', "INSERT INTO t2 VALUES (100000, 'x')");
$deadline = time + $PostgreSQL::Test::Utils::timeout_default;
sleep 0.2 until $sub->safe_psql('postgres', 'SELECT count(*) FROM t2 WHERE id = 100000') == 1 || time > $deadline;
is($sub->safe_psql('postgres', "SELECT concat_ws('|', count(*), sum(scans_flush_pending + scans_drop_pending))
	FROM ($worker_stmts) w WHERE query = 'replayed transaction ($apply_name)'"),
	'1|0', 'a replayed INSERT is recorded once, with no walk');

# pglogical's manager and supervisor record nothing
is($sub->safe_psql('postgres', q{SELECT count(*) FROM walload_xact_backend_types() b
	JOIN pg_stat_activity a USING (pid) WHERE a.backend_type LIKE 'pglogical manager%' OR a.backend_type LIKE 'pglogical supervisor%'}),
	'0', 'pglogical\'s manager and supervisor record nothing');

done_testing();

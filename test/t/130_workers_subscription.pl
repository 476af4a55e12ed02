# A subscriber's load is done by logical replication's background workers,
# which run no hooked statement: the tablesync worker copies each table
# with CopyFrom(), the apply worker replays changes and TRUNCATE through
# its own executor calls.  walload records each of their transactions at
# its commit (hooks.c, observe.c wl_observe_worker_xact): the initial copy
# of each table with its rows, a replayed TRUNCATE with its commit-time
# walks, each with the backend_type pg_stat_activity gives the worker.  An
# idle subscriber records nothing, nor does one with walload.track = none.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use WalloadTAP;

# the subscriber at wal_level = minimal, every new file synced at commit
my ($pub, $sub) = subscription_nodes('walload_workers');
is($sub->safe_psql('postgres', 'SHOW wal_level'), 'minimal', 'premise: the subscriber runs at wal_level = minimal');

my %rows = (t1 => 1000, t2 => 2000, t3 => 3000, t4 => 0);
for my $t (sort keys %rows)
{
	my $ddl = "CREATE TABLE $t (id int PRIMARY KEY, pad text)";
	$pub->safe_psql('postgres', "$ddl; INSERT INTO $t SELECT g, repeat('p', 100) FROM generate_series(1, $rows{$t}) g");
	$sub->safe_psql('postgres', $ddl);
}
$pub->safe_psql('postgres', 'CREATE PUBLICATION p FOR TABLE t1, t2, t3, t4');

my $bt = $sub->safe_psql('postgres', 'SELECT pg_catalog.current_setting(\'server_version_num\')::int') >= 170000
  ? 'logical replication tablesync worker' : 'logical replication worker';
my $at = $sub->safe_psql('postgres', 'SELECT pg_catalog.current_setting(\'server_version_num\')::int') >= 170000
  ? 'logical replication apply worker' : 'logical replication worker';

my $connstr = $pub->connstr . ' dbname=postgres';
$sub->safe_psql('postgres', "CREATE SUBSCRIPTION s CONNECTION '$connstr' PUBLICATION p");
$sub->wait_for_subscription_sync($pub, 's');

# the workers' records, with the process each ran in
my $worker_stmts = q{
	SELECT s.query, s.command, s.rows, b.backend_type, s.scans_flush_pending, s.scans_drop_pending
	FROM walload_statements s JOIN walload_xact_backend_types() b USING (xact_id)
	WHERE b.backend_type <> 'client backend'};

is($sub->safe_psql('postgres', "SELECT string_agg(concat_ws('|', query, command, rows, backend_type), E'\\n' ORDER BY query)
	FROM ($worker_stmts) w WHERE query LIKE 'initial copy%'"),
	join("\n", map { "initial copy of public.$_ (subscription s)|COPY|$rows{$_}|$bt" } sort keys %rows),
	'the initial copy of each table is recorded, with its rows and the worker it ran in');
is($sub->safe_psql('postgres', 'SELECT count(*) FROM t1') + 0, 1000, 'premise: the copy is complete');

# an idle subscriber: nothing more recorded
my $count = "SELECT count(*) FROM walload_xact_backend_types() WHERE backend_type <> 'client backend'";
my $before = $sub->safe_psql('postgres', $count);
sleep 3;
is($sub->safe_psql('postgres', $count), $before, 'an idle subscriber records nothing');

# a replayed TRUNCATE: the old files' deletion walks at the replayed commit
$pub->safe_psql('postgres', 'TRUNCATE t1');
$pub->wait_for_catchup('s');
is($sub->safe_psql('postgres', "SELECT concat_ws('|', command, backend_type, scans_flush_pending, scans_drop_pending)
	FROM ($worker_stmts) w WHERE query = 'replayed transaction with TRUNCATE of public.t1 (subscription s)'"),
	"TRUNCATE TABLE|$at|1|1", 'a replayed TRUNCATE is recorded with its walks at commit (its new empty files synced, the old ones deleted)');

# TRUNCATE and reload in one transaction: under minimal the reload skips
# WAL, its new files are synced at commit (one walk), the old ones deleted
# (another)
$pub->safe_psql('postgres', "BEGIN; TRUNCATE t2; INSERT INTO t2 SELECT g, 'r' FROM generate_series(1, 500) g; COMMIT");
$pub->wait_for_catchup('s');
is($sub->safe_psql('postgres', "SELECT concat_ws('|', s.scans_flush_pending, s.scans_drop_pending, x.scans_flush_pending, x.scans_drop_pending)
	FROM ($worker_stmts) s JOIN walload_xacts x ON x.xact_id = (SELECT xact_id FROM walload_statements
	  WHERE query = 'replayed transaction with TRUNCATE of public.t2 (subscription s)')
	WHERE s.query = 'replayed transaction with TRUNCATE of public.t2 (subscription s)'"),
	'1|1|1|1', 'a replayed TRUNCATE and reload: its sync walk and its deletion walk, on the statement and the transaction');

# a replayed transaction without TRUNCATE walks nothing
$pub->safe_psql('postgres', "INSERT INTO t3 VALUES (100000, 'x')");
$pub->wait_for_catchup('s');
is($sub->safe_psql('postgres', "SELECT concat_ws('|', count(*), sum(scans_flush_pending + scans_drop_pending))
	FROM ($worker_stmts) w WHERE query = 'replayed transaction (subscription s)'"),
	'1|0', 'a replayed INSERT is recorded once, with no walk');

# the diagnosis, scoped to the apply worker, names the replayed TRUNCATE's walks;
# scoped to autovacuum it has none of them; an unknown backend_type is an error
like($sub->safe_psql('postgres', "SELECT string_agg(finding, ';') FROM walload_diagnose(backend_type => '$at')"),
	qr/replayed TRUNCATE walks shared buffers/, 'walload_diagnose(backend_type) finds the replayed TRUNCATE walks');
unlike($sub->safe_psql('postgres', "SELECT string_agg(finding, ';') FROM walload_diagnose(backend_type => 'client backend')"),
	qr/replayed TRUNCATE/, 'and not among the client backends');
# walload_report(), scoped to the apply worker, counts its transactions (its
# verdict row's xacts), and those alone
is($sub->safe_psql('postgres', "SELECT xacts FROM walload_report(backend_type => '$at') LIMIT 1"),
	$sub->safe_psql('postgres', "SELECT count(*) FROM walload_xacts x JOIN walload_xact_backend_types() b USING (xact_id)
		WHERE b.backend_type = '$at'"),
	'walload_report(backend_type) counts the apply worker\'s transactions');
my ($rc, $out, $err) = $sub->psql('postgres', "SELECT * FROM walload_diagnose(backend_type => 'walsender')");
like($err, qr/walload records no backend_type "walsender"/, 'an unknown backend_type is an error');

# walload.track = none: nothing recorded from the workers
$sub->safe_psql('postgres', "ALTER SYSTEM SET walload.track = none; SELECT pg_reload_conf()");
sleep 1;
$before = $sub->safe_psql('postgres', $count);
$pub->safe_psql('postgres', "TRUNCATE t3; INSERT INTO t4 VALUES (1, 'x')");
$pub->wait_for_catchup('s');
is($sub->safe_psql('postgres', 'SELECT count(*) FROM t4') + 0, 1, 'premise: the changes were replayed');
is($sub->safe_psql('postgres', $count), $before, 'with walload.track = none the workers record nothing');

done_testing();

# Who sees another role's running load.  walload_activity shows it, as
# pg_stat_activity shows a backend, only to roles with the privileges of
# the load's role or of pg_read_all_stats; others get its pid, userid and
# dbid and NULL for the rest, and walload_diagnose_backend() refuses it to
# them (42501).  bob holds a load open in database db2; alice (plain) and
# dave (a NOINHERIT member of pg_read_all_stats) look from database
# postgres; carol is a member of bob, erin has pg_read_all_stats.  The
# query texts of walload_statements stay hidden exactly where
# pg_stat_statements hides them.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('walload_visibility');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'walload,pg_stat_statements'
wal_level = minimal
max_wal_senders = 0
autovacuum = off
});
$node->start;
$node->safe_psql('postgres', q{
CREATE EXTENSION walload;
CREATE EXTENSION pg_stat_statements;
CREATE ROLE alice LOGIN;
CREATE ROLE bob LOGIN;
CREATE ROLE carol LOGIN IN ROLE bob;
CREATE ROLE dave LOGIN NOINHERIT IN ROLE pg_read_all_stats;
CREATE ROLE erin LOGIN IN ROLE pg_read_all_stats;
GRANT CREATE ON SCHEMA public TO alice;
});
$node->safe_psql('postgres', 'CREATE DATABASE db2 OWNER bob');

# $sql in database postgres as $role (undef: the superuser)
sub as
{
	my ($role, $sql) = @_;
	return $node->safe_psql('postgres', $sql,
		defined $role ? (extra_params => [ '-U', $role ]) : ());
}

# bob's load: a table of 100000 rows (443 blocks, above wal_skip_threshold)
# created in a transaction left open
my $bob = $node->background_psql('db2', extra_params => [ '-U', 'bob' ]);
my $bob_pid = $bob->query_safe('SELECT pg_backend_pid()');
$bob->query_safe('BEGIN');
$bob->query_safe(
	'CREATE TABLE secret_payroll AS SELECT g FROM generate_series(1, 100000) g');
my $db2 = as(undef, "SELECT oid FROM pg_database WHERE datname = 'db2'");

# the row without total_ms, which is read from the clock at each query
my $row_sql = "SELECT (to_jsonb(a) - 'total_ms')::text FROM walload_activity a WHERE pid = $bob_pid";
my $full = as(undef, $row_sql);
is( as(undef,
		"SELECT userid::regrole, dbid, rows, pred_synced_rels FROM walload_activity WHERE pid = $bob_pid"
	),
	"bob|$db2|100000|1",
	'premise: the superuser sees bob\'s load, its rows and the file its commit will fsync');

# what pg_stat_activity shows each role of bob's backend, and walload_activity
my $both_sql = qq{
SELECT (s.xact_start IS NOT NULL) || '|' || (a.xact_start IS NOT NULL)
FROM pg_stat_activity s JOIN walload_activity a USING (pid) WHERE pid = $bob_pid};

for my $role ('alice', 'dave')
{
	is(as($role, $both_sql), 'false|false',
		"$role: pg_stat_activity and walload_activity both hide bob's transaction");
	is( as($role,
			"SELECT pid, userid::regrole, dbid, "
			  . "(SELECT count(*) FROM jsonb_object_keys(jsonb_strip_nulls(to_jsonb(a))))"
			  . " FROM walload_activity a WHERE pid = $bob_pid"),
		"$bob_pid|bob|$db2|3",
		"$role: bob's row shows pid, userid and dbid, every other column NULL");
	my ($ret, $out, $err) = $node->psql(
		'postgres',
		"\\set VERBOSITY verbose\nSELECT finding FROM walload_diagnose_backend($bob_pid)",
		extra_params => [ '-U', $role ]);
	isnt($ret, 0, "$role: walload_diagnose_backend(bob's pid) fails");
	like(
		$err,
		qr/ERROR:  42501: permission denied to diagnose backend with PID $bob_pid\n.*DETAIL:  .*"pg_read_all_stats"/s,
		"$role: with a permission error that names pg_read_all_stats");
	is($out, '', "$role: and no finding");
}

for my $role ('bob', 'carol', 'erin', undef)
{
	my $who = $role // 'the superuser';
	is(as($role, $both_sql), 'true|true',
		"$who: pg_stat_activity and walload_activity both show bob's transaction");
	is(as($role, $row_sql), $full, "$who: bob's row in full");
	like(
		as($role,
			"SELECT evidence FROM walload_findings_backend($bob_pid) WHERE finding = 'what COMMIT will cost'"
		),
		qr/^COMMIT now would fsync 1 relation file\(s\) \(\d+ blocks\)/,
		"$who: may diagnose bob's backend");
}

# the negative control: alice's own load, in full to alice herself
my $alice = $node->background_psql('postgres', extra_params => [ '-U', 'alice' ]);
my $alice_pid = $alice->query_safe('SELECT pg_backend_pid()');
$alice->query_safe('BEGIN');
$alice->query_safe('CREATE TABLE alice_t AS SELECT g FROM generate_series(1, 10) g');
my $alice_row = "SELECT (to_jsonb(a) - 'total_ms')::text FROM walload_activity a WHERE pid = $alice_pid";
my $alice_full = as(undef, $alice_row);
like($alice_full, qr/"rows": 10,/, 'premise: the superuser sees alice\'s load');
is($alice->query_safe($alice_row), $alice_full, 'alice sees her own row in full');
is( $alice->query_safe(
		"SELECT count(*) FROM walload_diagnose_backend($alice_pid) WHERE finding = 'what COMMIT will cost'"
	),
	'1',
	'and may diagnose her own backend');
$alice->query_safe('COMMIT');
$alice->quit;

# query texts, once bob's statements are written (at his commit): hidden
# from exactly the roles pg_stat_statements hides them from (a member of
# bob is not bob)
$bob->query_safe('COMMIT');
$bob->quit;
my $hidden_sql = q{
SELECT (SELECT bool_and(query = '<insufficient privilege>' AND queryid IS NULL)
        FROM walload_statements WHERE userid = 'bob'::regrole) || '|' ||
       (SELECT bool_and(query = '<insufficient privilege>' AND queryid IS NULL)
        FROM pg_stat_statements WHERE userid = 'bob'::regrole)};
is(as(undef, q{SELECT count(*) FROM walload_statements
	WHERE userid = 'bob'::regrole AND command = 'CREATE TABLE AS'}),
	'1', 'premise: bob\'s CREATE TABLE AS is recorded');
for my $role ('alice', 'carol', 'dave')
{
	is(as($role, $hidden_sql), 'true|true',
		"$role: bob's query texts hidden, in walload_statements as in pg_stat_statements");
}
for my $role ('bob', 'erin', undef)
{
	is(as($role, $hidden_sql), 'false|false',
		($role // 'the superuser') . ": bob's query texts shown, in both");
}

$node->stop;
done_testing();

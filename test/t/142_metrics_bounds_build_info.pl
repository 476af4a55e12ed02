# The exporters' series are bounded, and the build is named (issue 53,
# items 1, 6 and 7).
#
#   - walload_command_totals has at most 1,025 rows whatever runs: 1,024
#     entries (the last 64 kept for the 'other' rows of databases and
#     roles that come after the kinds filled the rest) and the one row of
#     database 0, role 0, 'other' that every further count folds into.
#     560 roles each run CREATE TABLE and DROP TABLE: the table fills, 64
#     roles get an 'other' row, the rest fold into the overflow row, and
#     calls over every row still equal walload_info.statements_recorded
#     (folded, never dropped); 20 more roles add no row;
#   - walload_histograms has exactly 2 metrics x 18 buckets = 36 rows;
#     walload_build_info one;
#   - walload_build_info.version is the library's (the string the loaded
#     walload.so carries, META.json's version) and walload_info's
#     library_version; sql_version is pg_extension's: after CREATE
#     EXTENSION walload VERSION '1.9' there is no walload_build_info, after
#     ALTER EXTENSION walload UPDATE it says the new version; no NULL.
# matrix: once (walload's own bounds on the exporters' series and its build row, the same on every version)
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('walload_metrics_bounds');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'walload'
autovacuum = off
fsync = off
walload.calibration = off
});
$node->start;

# the build: first the SQL of 1.9, then the update
$node->safe_psql('postgres', q{CREATE EXTENSION walload VERSION '1.9'});
my ($rc, $out, $err) = $node->psql('postgres', 'SELECT * FROM walload_build_info');
ok($rc != 0 && $err =~ /does not exist/, 'SQL 1.9 has no walload_build_info');
$node->safe_psql('postgres', 'ALTER EXTENSION walload UPDATE');
my $default = $node->safe_psql('postgres',
	q{SELECT default_version FROM pg_available_extensions WHERE name = 'walload'});
my ($version, $sql_version) = split m{\|},
  $node->safe_psql('postgres', 'SELECT version, sql_version FROM walload_build_info');
is($sql_version, $default, "sql_version follows ALTER EXTENSION UPDATE ($default)");
is($sql_version, $node->safe_psql('postgres', q{SELECT extversion FROM pg_extension WHERE extname = 'walload'}),
	"and is pg_extension's");
like($version, qr/^\d+\.\d+\.\d+$/, "version is a release number ($version)");
my $so = $node->config_data('--pkglibdir') . '/walload.so';
my $bytes = slurp_file($so);
ok(index($bytes, "\0$version\0") >= 0, "the library walload.so carries it");
is($node->safe_psql('postgres', 'SELECT library_version FROM walload_info'), $version,
	'walload_info.library_version is the same');
is( $node->safe_psql('postgres',
		q{SELECT count(*) FROM walload_build_info b WHERE b.version IS NULL OR b.sql_version IS NULL}),
	'0', 'no column of walload_build_info is NULL');
is($node->safe_psql('postgres', 'SELECT count(*) FROM walload_build_info'), '1',
	'walload_build_info: one row');
is($node->safe_psql('postgres', 'SELECT count(*) FROM walload_histograms'), '36',
	'walload_histograms: 2 metrics x 18 buckets');

# fill the command table: 560 roles x 2 kinds (480 roles fill the 960
# entries for kinds, 64 get an 'other' row, 16 fold into the overflow row)
$node->safe_psql('postgres', q{
GRANT CREATE ON SCHEMA public TO PUBLIC;
SELECT format('CREATE ROLE wl_r%s', i) FROM generate_series(1, 580) i \gexec
SELECT walload_reset();
});
my $run = sub {
	my ($lo, $hi) = @_;
	$node->safe_psql('postgres', qq{
SELECT format('SET ROLE wl_r%s', i), format('CREATE TABLE t_%s (a int)', i),
       format('DROP TABLE t_%s', i), 'RESET ROLE'
FROM generate_series($lo, $hi) i \\gexec
});
};
$run->(1, 560);
my $overflow = q{SELECT calls FROM walload_command_totals WHERE rolname = '0'};
my $shape = q{SELECT count(*) || ':' || count(*) FILTER (WHERE command = 'other') || ':' ||
  count(*) FILTER (WHERE datname = '0' AND rolname = '0' AND command = 'other')
FROM walload_command_totals};
is($node->safe_psql('postgres', $overflow), '32', "the last 16 roles' 32 statements fold into the overflow row");
is($node->safe_psql('postgres', $shape), '1025:65:1',
	'1,025 rows: 1,024 entries (64 of them other rows) and the overflow row');
my $all_counted = q{SELECT (SELECT sum(calls) FROM walload_command_totals) = statements_recorded
FROM walload_info};
is($node->safe_psql('postgres', $all_counted), 't',
	'calls over every row equal the statements recorded: folded, none dropped');
is( $node->safe_psql('postgres', q{
SELECT sum(calls) FROM walload_command_totals WHERE rolname LIKE 'wl_r%' OR rolname = '0'}),
	'1120', "the roles' 1,120 statements are all there");
is( $node->safe_psql('postgres', q{
SELECT count(*) FROM walload_command_totals WHERE rolname LIKE 'wl_r%' AND command = 'other' AND calls <> 2}),
	'0', "a role's 'other' row holds both its statements");
my $before = $node->safe_psql('postgres', $overflow);
$run->(561, 580);
is($node->safe_psql('postgres', $shape), '1025:65:1', '20 more roles add no row');
is($node->safe_psql('postgres', $overflow), $before + 40, 'their 40 statements fold into the overflow row');
is($node->safe_psql('postgres', $all_counted), 't', 'and every statement is still counted');

$node->stop;
done_testing();

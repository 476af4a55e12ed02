# A VACUUM that truncates a table's empty tail walks shared_buffers once
# (smgrtruncate -> DropRelFileNodeBuffers, 16+ DropRelationBuffers), and that
# walk invalidates every cached block of the tail: 450-550 ns a buffer as
# the uprobe oracle measured it, 0.3 ms for a 600-block tail at 2GB, part of
# est_scan_ms.  walload samples which blocks shared buffers hold before the
# VACUUM (sizing.c wl_model_sample_tail) and, once it has truncated,
# counts the sampled tail blocks (wl_model_tail_buffers).  This checks the
# count the estimate is made of, as its DEBUG2 line shows it: every block of
# a cached tail, and none of a tail that nothing had read since a restart
# (VACUUM reads it through its ring: at most a few dozen buffers are left
# for the walk, which the estimate leaves out).  How near est_scan_ms comes
# to the real walk is the uprobe oracle's to say (test/oracle, 10_vacuum).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use WalloadTAP;

my $node = PostgreSQL::Test::Cluster->new('walload_vacuum_tail');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'walload'
autovacuum = off
});
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION walload');

# two tables of about 590 blocks whose rows but the first 100 are deleted
for my $t (qw(cached cold))
{
	$node->safe_psql('postgres', qq{
		CREATE TABLE $t (id int, pad text) WITH (autovacuum_enabled = off);
		INSERT INTO $t SELECT g, repeat('v', 200) FROM generate_series(1, 20000) g;
		DELETE FROM $t WHERE id > 100;
	});
}

sub blocks
{
	my ($t) = @_;
	return $node->safe_psql('postgres', "SELECT pg_relation_size('$t') / 8192");
}

# the buffers walload counts for the truncation's walk, from its DEBUG2 line
sub vacuum_invalidated
{
	my ($t) = @_;
	my (undef, $stderr) = debug2_session($node, "VACUUM $t;");
	my @walks = $stderr =~ /walload: 1 walk\(s\) of kind 2 over 1 file\(s\): .*?, (\d+) buffers invalidated/g;
	return @walks;
}

my $before = blocks('cached');
is($node->safe_psql('postgres',
	"CREATE EXTENSION pg_buffercache; SELECT count(*) FROM pg_buffercache
	 WHERE relfilenode = pg_relation_filenode('cached') AND relforknumber = 0"),
	$before, "premise: every block of the first table is in shared buffers ($before)");
my @walks = vacuum_invalidated('cached');
my $after = blocks('cached');
ok($after < $before / 10, "premise: VACUUM truncated the table ($before -> $after blocks)");
is(scalar @walks, 1, 'one walk, the truncation');
is($walks[0], $before - $after, 'it invalidates every block of the cached tail');

# after a restart nothing of the second table is cached
$node->safe_psql('postgres', 'CHECKPOINT');
# the calibration worker times the walks for some seconds after a start:
# the restart waits until it has exited
wait_calibration($node);
$node->restart;
$before = blocks('cold');
is($node->safe_psql('postgres',
	"SELECT count(*) FROM pg_buffercache
	 WHERE relfilenode = pg_relation_filenode('cold') AND relforknumber = 0"),
	0, 'premise: after the restart no block of the second table is in shared buffers');
@walks = vacuum_invalidated('cold');
$after = blocks('cold');
ok($after < $before / 10, "premise: VACUUM truncated it ($before -> $after blocks)");
is(scalar @walks, 1, 'one walk, the truncation');
is($walks[0], 0, 'a tail nothing had cached is not priced as invalidated');

# VACUUM (TRUNCATE false): no walk, so nothing to price
$node->safe_psql('postgres', q{
	CREATE TABLE kept (id int, pad text) WITH (autovacuum_enabled = off);
	INSERT INTO kept SELECT g, repeat('v', 200) FROM generate_series(1, 20000) g;
	DELETE FROM kept WHERE id > 100;
});
my (undef, $stderr) = debug2_session($node, 'VACUUM (TRUNCATE false) kept;');
unlike($stderr, qr/walload: \d+ walk\(s\)/, 'VACUUM (TRUNCATE false) prices no walk');

$node->stop;
done_testing();

# Under wal_level = minimal a commit syncs the new files at or above
# wal_skip_threshold, and core's walk of shared_buffers for it
# (FlushRelationsAllBuffers) writes each dirty buffer of those files it
# finds.  The writes are the sync's; the walk's own work on each such
# buffer (pin, content lock, I/O flags, the WAL check) costs about an
# invalidation, and est_scan_ms prices it (cost.c wl_scan_buffers_ns)
# for the buffers walload expects to be dirty (accumulator.c
# note_dirtied_by_load).  This checks that count, in the walk's DEBUG2
# line, against pg_buffercache's count of the files' dirty buffers read
# just before the COMMIT, within 10%: a table loaded by INSERT (every block
# dirty), a COPY larger than its bulk-write ring (which writes all but the
# ring's last 16 MB itself), a COPY into new partitions of a partitioned
# table; and none where a table was created empty and synced all the same
# (wal_skip_threshold = 0).  What another process writes before the COMMIT
# (a checkpoint, the background writer) walload does not see: see
# docs/limits.md.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use WalloadTAP;

my $node = calibrated_node('walload_sync_written', q{
shared_buffers = 1GB
autovacuum = off
wal_level = minimal
max_wal_senders = 0
});
$node->safe_psql('postgres', 'CREATE EXTENSION pg_buffercache');

# the dirty buffers of the named tables' files, in the running transaction
sub count_dirty
{
	my $rels = join(', ', map { "pg_relation_filenode('$_')" } @_);
	return "SELECT count(*) FROM pg_buffercache WHERE isdirty AND relfilenode IN ($rels);";
}

# the buffers the sync's walk (kind 1) was priced to write
sub sync_walks
{
	my ($stderr) = @_;
	return $stderr =~ /walload: 1 walk\(s\) of kind 1 over \d+ file\(s\): .*?, (\d+) buffers written/g;
}

sub check
{
	my ($what, $min, $load, @rels) = @_;
	my ($out, $err) = debug2_session($node, "BEGIN;\n$load\n" . count_dirty(@rels) . "\nCOMMIT;");
	my $exact = (split /\n/, $out)[0];
	my @w = sync_walks($err);
	cmp_ok($exact, '>=', $min, "premise: $what leaves dirty buffers ($exact)");
	is(scalar @w, 1, "$what: one sync walk");
	cmp_ok(abs(($w[0] // -1) - $exact), '<=', 0.1 * $exact,
		"$what: " . ($w[0] // 'none') . " buffers priced as written, $exact dirty");
}

check('INSERT into a new table', 2000, q{
	CREATE TABLE ins (a int, b text);
	INSERT INTO ins SELECT g, repeat('i', 100) FROM generate_series(1, 200000) g;
}, 'ins');

# 400000 rows of about 130 bytes: 7000 blocks, more than the 2048 of the ring
check('COPY larger than its ring', 1500, q{
	CREATE TABLE cp (a int, b text);
	COPY cp FROM PROGRAM 'seq 1 400000 | sed "s/$/,copy row of some length to fill the blocks quickly enough here ok/"' WITH (FORMAT csv);
}, 'cp');

check('COPY into new partitions', 500, q{
	CREATE TABLE pt (a int, b text) PARTITION BY RANGE (a);
	CREATE TABLE pt_1 PARTITION OF pt FOR VALUES FROM (1) TO (50001);
	CREATE TABLE pt_2 PARTITION OF pt FOR VALUES FROM (50001) TO (MAXVALUE);
	COPY pt FROM PROGRAM 'seq 1 100000 | sed "s/$/,partition row/"' WITH (FORMAT csv);
}, 'pt_1', 'pt_2');

# synced though empty: nothing to write
my (undef, $err) = debug2_session($node, q{
	SET wal_skip_threshold = 0;
	BEGIN;
	CREATE TABLE e (a int);
	COMMIT;
});
my @w = sync_walks($err);
is(scalar @w, 1, 'an empty table synced (wal_skip_threshold = 0): one sync walk');
is($w[0], '0', 'and no buffer priced as written');

$node->stop;
done_testing();

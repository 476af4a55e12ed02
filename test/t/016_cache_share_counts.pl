# A walk of shared_buffers soon after the same backend's previous one finds
# part of the buffer headers still in the CPU cache, and walload prices it so
# (scan_cost.c wl_headers_cached): the share of the last-level cache left to
# the headers by what the backend touched since.  That counts the blocks it
# hit, read or wrote, its time on CPU (wl_touched_since_walk, 4 bytes a ns)
# and the wall time since (kept_after).  This checks, from the shares in
# walload's DEBUG2 lines, the rules that follow from counts alone: the walk
# right after the one that maps a backend's header pages is priced cold,
# whatever the size of the headers; a walk after reading more blocks than
# the cache holds is priced cold; and a DROP TABLE right after a commit
# whose sync walk wrote dirty buffers is priced at most as cached as those
# writes leave room for (core writes them during the walk, after walload
# priced it: scan_cost.c wl_scan_walks_done).  Time on CPU and wall time
# only ever lower a share, so these hold however loaded the machine is.
# How much a walk right after another, or after some time on CPU, is priced
# as cached depends on that time: bench/ (cacheshare) prints those shares
# beside the walks measured; how near the estimates come to the real walks
# is the uprobe oracle's to say (test/oracle).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use WalloadTAP;

# the CPU's last-level cache, read as walload reads it
my $llc = last_level_cache_bytes();
plan skip_all => "a last-level cache of $llc bytes holds too little of 1 MB of headers"
  if $llc < 8 * 1024 * 1024;

my $node = PostgreSQL::Test::Cluster->new('walload_cache_share');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'walload'
shared_buffers = 128MB
autovacuum = off
wal_level = minimal
max_wal_senders = 0
});
$node->start;
# the shares come from the calibration's figures (the last-level cache's
# size among them), which the worker times after the start
wait_calibration($node);
$node->safe_psql('postgres', 'CREATE EXTENSION walload');
$node->safe_psql('postgres', join(' ', map { "CREATE TABLE c$_ (a int);" } 1 .. 7));
$node->safe_psql('postgres', join(' ', map { "CREATE TABLE p$_ (a int);" } 1 .. 5));

# a table of 1024 blocks (8 MB, under a quarter of shared_buffers: read
# through shared buffers, not a ring), read often enough to touch twice the
# cache in blocks alone
$node->safe_psql('postgres', q{
	CREATE TABLE filler (a int, b text);
	INSERT INTO filler SELECT g, repeat('f', 200) FROM generate_series(1, 30000) g;
});
my $filler_blocks = $node->safe_psql('postgres', q{SELECT pg_relation_size('filler') / 8192});
my $reads = int(2 * $llc / ($filler_blocks * 8192)) + 1;
my $touch = "DO \$\$ BEGIN FOR i IN 1 .. $reads LOOP PERFORM count(*) FROM filler; END LOOP; END \$\$;";

# the cache share of each walk of the session's statements, in order
sub shares
{
	my ($sql) = @_;
	my (undef, $stderr) = debug2_session($node, $sql);
	return $stderr =~ /walload: \d+ walk\(s\) of kind \d+ over \d+ file\(s\): \d+ unmapped header pages, cache share ([0-9.]+)/g;
}

# a session's first walk maps the header pages; the second follows it, and
# is priced cold, though 1 MB of headers is little of the cache (on a 300
# MB cache that walk walked cold: scan_cost.c with_mapped)
my @s = shares('DROP TABLE p1; DROP TABLE c1; DROP TABLE c2;');
is(scalar @s, 3, 'three walks, one per DROP TABLE');
is($s[1], '0.00', 'the DROP TABLE right after the one that mapped the headers is priced cold');

# more blocks read than the cache holds, between two walks
@s = shares(qq{
	DROP TABLE p2;
	DROP TABLE p3;
	DROP TABLE c3;
	$touch
	DROP TABLE c4;
});
is(scalar @s, 4, 'four walks');
is($s[3], '0.00',
	"after reading $reads times $filler_blocks blocks (twice the cache) in between, none is priced as cached");

# a table created and filled in one transaction, a quarter of the cache in
# size, all of it dirty in shared_buffers at COMMIT: under minimal the
# commit's sync walk writes it (twice its size through the cache), and the
# DROP TABLE right after is priced as finding at most what is left
my $rows = int($llc / 4 / 8192) * 30;
@s = shares(qq{
	DROP TABLE p4;
	DROP TABLE p5;
	DROP TABLE c5;
	DROP TABLE c6;
	BEGIN;
	CREATE TABLE filled (a int, pad text);
	INSERT INTO filled SELECT g, repeat('f', 200) FROM generate_series(1, $rows) g;
	COMMIT;
	DROP TABLE c7;
});
my ($blocks, $headers) = split /\|/, $node->safe_psql('postgres', q{
	SELECT pg_relation_size('filled') / 8192,
	       (SELECT setting::bigint * 64 FROM pg_settings WHERE name = 'shared_buffers')});
is(scalar @s, 6, 'six walks: four DROPs, the sync at COMMIT, a DROP after it');
my $left = 1 - ($headers + 2 * $blocks * 8192) / $llc;
$left = 0 if $left < 0;
cmp_ok($s[5], '<=', $left + 0.01,
	"after a commit that wrote $blocks blocks, at most the share they leave ($s[5], at most "
	  . sprintf('%.2f', $left) . ')');

$node->stop;

# The walk right after the one that maps a backend's header pages (its
# first) is priced cold: it found none of the headers cached at 2GB on a
# 32 MB cache, nor on a 300 MB one (uprobe oracle).  With headers of 0.55
# of the cache, the second DROP is priced cold as well.
my $sb_mb = int(0.55 * $llc / 64 * 8192 / (1024 * 1024));
SKIP:
{
	skip "headers of 0.55 of a last-level cache of $llc bytes need ${sb_mb}MB of shared_buffers", 3
	  if $sb_mb > 8192;
	my $big = PostgreSQL::Test::Cluster->new('walload_cache_share_mapping');
	$big->init;
	$big->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'walload'
shared_buffers = ${sb_mb}MB
autovacuum = off
});
	$big->start;
	wait_calibration($big);
	$big->safe_psql('postgres', 'CREATE EXTENSION walload');
	$big->safe_psql('postgres', join(' ', map { "CREATE TABLE m$_ (a int);" } 1 .. 3));
	my (undef, $stderr) = debug2_session($big, 'DROP TABLE m1; DROP TABLE m2; DROP TABLE m3;');
	my @w = $stderr =~ /walload: \d+ walk\(s\) of kind \d+ over \d+ file\(s\): (\d+) unmapped header pages, cache share ([0-9.]+)/g;
	is(scalar @w, 6, "three walks at shared_buffers = ${sb_mb}MB");
	cmp_ok($w[0], '>', 0, "the first maps header pages ($w[0])");
	is($w[3], '0.00', 'the walk right after it is priced cold');
	$big->stop;
}
done_testing();

# A walk of shared_buffers soon after the same backend's previous one finds
# part of the buffer headers still in the CPU cache, and walload prices it so
# (scan_cost.c wl_headers_cached): the share of the last-level cache left to
# the headers by what the backend touched since.  That counts the blocks it
# hit, read or wrote, and its time on CPU (wl_touched_since_walk, 4 bytes a
# ns): work that touches few blocks can still fill the cache (DROP DATABASE
# removing a database's directory: 8 ms on CPU, and the next DROP DATABASE
# walked cold where the blocks alone priced it half warm).  This checks the
# share walload gives a walk, from its DEBUG2 line: near 1 for a DROP TABLE
# right after another (shared_buffers=128MB: 1 MB of headers), 0 after 0.2 s
# of work on CPU that reads no block.  The dirty buffers a commit's sync walk
# writes count too, though core writes them during the walk, after walload
# priced it (scan_cost.c wl_scan_walks_done): a DROP TABLE right after such
# a commit is priced at most as cached as those writes leave room for.  And
# the walk right after the one that maps a backend's header pages is priced
# cold, whatever the size of the headers; the one after that partly cached.
# So each session below starts with a DROP that maps the pages and one
# after it.  How
# near the estimates come to the real walks is the uprobe oracle's to say
# (test/oracle).
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
# 0.2 s on CPU moves 800 MB through the cache at 4 bytes a ns
plan skip_all => "a last-level cache of $llc bytes is larger than 0.2 s on CPU fills"
  if $llc >= 800 * 1024 * 1024;

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

# the cache share of each walk of the session's statements, in order
sub shares
{
	my ($sql) = @_;
	my (undef, $stderr) = debug2_session($node, $sql);
	return $stderr =~ /walload: \d+ walk\(s\) of kind \d+ over \d+ file\(s\): \d+ unmapped header pages, cache share ([0-9.]+)/g;
}

# a session's first walk maps the header pages (no share); the second
# follows it, and is priced cold too, though 1 MB of headers is little of
# the cache (on a 300 MB cache that walk walked cold: scan_cost.c
# with_mapped); the third follows the second
my @s = shares('DROP TABLE p1; DROP TABLE c1; DROP TABLE c2;');
is(scalar @s, 3, 'three walks, one per DROP TABLE');
is($s[1], '0.00', 'the DROP TABLE right after the one that mapped the headers is priced cold');
cmp_ok($s[2], '>=', 0.5, "a DROP TABLE right after another finds most headers cached ($s[2])");

# 0.2 s on CPU in between, reading no block: a loop of arithmetic
@s = shares(q{
	DROP TABLE p2;
	DROP TABLE p3;
	DROP TABLE c3;
	DO $$
	DECLARE t0 timestamptz := clock_timestamp(); x float8 := 0;
	BEGIN
	  WHILE clock_timestamp() - t0 < interval '0.2 s' LOOP
	    FOR i IN 1 .. 1000 LOOP x := x + sqrt(i); END LOOP;
	  END LOOP;
	END $$;
	DROP TABLE c4;
});
is(scalar @s, 4, 'four walks');
cmp_ok($s[2], '>=', 0.5, "the walk before the work finds most headers cached ($s[2])");
is($s[3], '0.00', 'after 0.2 s of work on CPU in between, none is priced as cached');

# a table created and filled in one transaction, a quarter of the cache in
# size, all of it dirty in shared_buffers at COMMIT: under minimal the
# commit's sync walk writes it (twice its size through the cache), and the
# DROP TABLE right after is priced as finding at most what is left; the
# same DROP right after a walk that wrote nothing finds much more
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
cmp_ok($s[3], '>', $s[5] + 0.2, "well below the share right after a walk that wrote nothing ($s[3])");

$node->stop;

# The walk right after the one that maps a backend's header pages (its
# first) is priced cold: it found none of the headers cached at 2GB on a
# 32 MB cache, nor on a 300 MB one (uprobe oracle).  With headers of 0.55
# of the cache, the second DROP is priced cold, the third as partly cached.
my $sb_mb = int(0.55 * $llc / 64 * 8192 / (1024 * 1024));
SKIP:
{
	skip "headers of 0.55 of a last-level cache of $llc bytes need ${sb_mb}MB of shared_buffers", 4
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
	cmp_ok($w[5], ">", 0.05, "the walk after that finds part of the headers cached ($w[5])");
	$big->stop;
}
done_testing();

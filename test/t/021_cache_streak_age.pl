# The share of the buffer headers a walk is priced as finding in the CPU
# cache (scan_cost.c) follows two things the calibration worker times at
# start: how much of the headers 1, 2 and 3 walks in a row leave cached
# (streak_kept: a cache that keeps only what is read again keeps little of
# one walk over 16 MB of headers), and how much of them is still cached
# some ms after a walk (kept_after: a cache shared with other guests loses
# them in wall time).  This checks that the estimates take both, as the
# worker timed them on this machine: read from its DEBUG1 lines, set beside
# the shares of walload's DEBUG2 lines, as bounds that hold whatever time
# passed between the walks (time on CPU and wall time only lower a share).
# How much more a walk finds after two walks than after one, or right after
# a walk than 0.1 s later, depends on that time: bench/ (cacheshare) prints
# it.  A session's first walk maps the header pages, and the walk right
# after it is priced cold (scan_cost.c with_mapped): each session here
# starts with one such pair, and the walks in a row are counted from the
# second.  Whether the shares make the estimates right is the uprobe
# oracle's to say.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use WalloadTAP;

# 16 MB of buffer headers, more than a core's own caches
my $node = calibrated_node('walload_cache_streak_age', q{
shared_buffers = 2GB
autovacuum = off
log_min_messages = debug1
});
$node->safe_psql('postgres', join(' ', map { "CREATE TABLE c$_ (a int);" } 1 .. 8));
$node->safe_psql('postgres', join(' ', map { "CREATE TABLE m$_ (a int);" } 1 .. 2));

my $log = slurp_file($node->logfile);
my ($s1, $s2, $s3) =
  $log =~ m{walload calibration: share of the headers a walk finds cached right after 1/2/3 walks in a row: ([0-9.]+)/([0-9.]+)/([0-9.]+)};
my @age = $log =~ m{walload calibration: share of the headers a walk finds cached 2/5/10/20/50 ms after the last: ([0-9.]+)/([0-9.]+)/([0-9.]+)/([0-9.]+)/([0-9.]+)};
ok(defined $s3, 'the worker timed the walks in a row');
is(scalar @age, 5, 'the worker timed the share kept after 2, 5, 10, 20 and 50 ms');
note("in a row: $s1/$s2/$s3; after 2/5/10/20/50 ms: @age");

# the cache share of each walk of one session's statements, in order
sub shares
{
	my ($sql) = @_;
	my (undef, $stderr) = debug2_session($node, $sql);
	return $stderr =~ /walload: \d+ walk\(s\) of kind \d+ over \d+ file\(s\): \d+ unmapped header pages, cache share ([0-9.]+)/g;
}

# four DROP TABLEs in a row: the first maps the header pages, the second
# follows it (both priced cold); the third follows one walk, the fourth two
my @c = shares('DROP TABLE m1; DROP TABLE c1; DROP TABLE c2; DROP TABLE c3;');
is(scalar @c, 4, 'four walks, one per DROP TABLE');
is($c[0], '0.00', 'the first walk of the session is priced cold');
is($c[1], '0.00', 'and the walk right after it');
cmp_ok($c[2], '<=', $s1 + 0.01, "the walk after one walk finds at most what one walk leaves ($c[2], at most $s1)");
# after two: what two leave where the last left at least half the headers
# cached (scan_cost.c streak_prior), else under half of what one leaves
my $two = $s2 > 0.5 * $s1 ? $s2 : 0.5 * $s1;
cmp_ok($c[3], '<=', $two + 0.01,
	"the walk after two finds at most what two leave, or half what one leaves ($c[3], at most $two)");

# a new session: after the pair, two walks in a row, then one at least
# 0.1 s after the last: it finds at most what 50 ms leave (the last point
# timed holds beyond it; more than a second after, none)
@c = shares('DROP TABLE m2; DROP TABLE c5; DROP TABLE c6; DROP TABLE c7; SELECT pg_sleep(0.1); DROP TABLE c8;');
is(scalar @c, 5, 'five walks');
cmp_ok($c[4], '<=', $age[4] + 0.01,
	"a walk 0.1 s or more after the last finds at most what 50 ms leave ($c[4], at most $age[4])");

$node->stop;
done_testing();

# No backend memory grows with the number of transactions or relation
# files, and a large transaction gives its memory back.  Measured in the
# session itself with pg_backend_memory_contexts (bytes, not times):
#
#   - 1,000 TRUNCATE and 1,000 REINDEX transactions, each giving a table or
#     an index a new file, after a warm-up: CacheMemoryContext's used
#     bytes, the used bytes over all contexts and their total bytes grow by
#     at most 2 bytes a transaction (total bytes move by whole blocks, and
#     miss a growth that fits in free space).  walload 1.8.2 looked each new file number up in the
#     syscache as a pg_class OID (model.c's class_pages(), under
#     wal_level = minimal, for the live prediction): a negative catcache
#     entry per file, about 155 bytes each, kept for the backend's life;
#   - the instrument can see such growth: 2,000 lookups of relation names
#     that do not exist (to_regclass(), core's own negative entries) grow
#     CacheMemoryContext by at least 64 bytes each;
#   - a transaction of 1,100 REINDEXes (a new file each; more files than
#     model.c keeps its maps for, WL_MODEL_KEEP_ENTRIES) and then some
#     small ones: the backend's total grows by no more than the same
#     session does with walload.track = none (core keeps some memory of
#     its own after such a transaction: its smgr table), plus 32 kB; and
#     walload's own contexts are back to their size.  walload 1.8.2 kept
#     its late list (room for every statement of the transaction) in
#     TopMemoryContext for the backend's life.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('walload_memory');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'walload'
autovacuum = off
wal_level = minimal
max_wal_senders = 0
walload.calibration = off
});
$node->start;
$node->safe_psql('postgres', q{
CREATE EXTENSION walload;
CREATE TABLE t (a int PRIMARY KEY);
INSERT INTO t VALUES (1);
});

# a measurement: a line "M|label|CacheMemoryContext's used bytes|used
# bytes over all contexts|total bytes over all contexts|walload's contexts'
# total bytes" (used bytes: what is allocated, to the byte; total bytes:
# what the contexts hold, in blocks)
sub measure
{
	my ($label) = @_;
	return "SELECT 'M', '$label',"
	  . " sum(used_bytes) FILTER (WHERE name = 'CacheMemoryContext'),"
	  . " sum(used_bytes),"
	  . " sum(total_bytes),"
	  . " coalesce(sum(total_bytes) FILTER (WHERE name LIKE 'walload%'), 0)"
	  . " FROM pg_catalog.pg_backend_memory_contexts;\n";
}

sub xacts
{
	my ($stmt, $n) = @_;
	return "BEGIN; $stmt; COMMIT;\n" x $n;
}

# run $sql in one session; the measurements it printed, by label
sub session
{
	my ($sql) = @_;
	my ($out, $err) = ('', '');
	$node->psql('postgres', $sql, stdout => \$out, stderr => \$err,
		on_error_die => 1);
	my %m;
	for (split /\n/, $out)
	{
		my @f = split /\|/;
		next unless @f == 6 && $f[0] eq 'M';
		$m{ $f[1] } =
		  { cache => $f[2], used => $f[3], total => $f[4], walload => $f[5] };
	}
	return \%m;
}

# 2,000 transactions that give relations new files
my $m = session(
	xacts('TRUNCATE t', 200)
	  . xacts('REINDEX INDEX t_pkey', 200)
	  . measure('before')
	  . xacts('TRUNCATE t', 1000)
	  . xacts('REINDEX INDEX t_pkey', 1000)
	  . measure('after')
	  . "SELECT count(pg_catalog.to_regclass('walload_nx_' || i)) FROM generate_series(1, 2000) i;\n"
	  . measure('lookups'));
my $cache = $m->{after}{cache} - $m->{before}{cache};
my $used = $m->{after}{used} - $m->{before}{used};
my $total = $m->{after}{total} - $m->{before}{total};
note "2,000 transactions: CacheMemoryContext used +$cache bytes, "
  . "backend used +$used bytes, total +$total bytes";
cmp_ok($cache, '<=', 2 * 2000,
	"CacheMemoryContext is flat over 2,000 TRUNCATE and REINDEX transactions (+$cache bytes)");
cmp_ok($used, '<=', 2 * 2000,
	"the backend's memory in use is flat over 2,000 TRUNCATE and REINDEX transactions (+$used bytes)");
# what the contexts hold is taken in blocks of 8 kB and more: a context of
# core's may take one more as its free space fragments (17 did, once), so
# the total allows two; what walload would keep per transaction (155 bytes
# and more) is 300 kB here
cmp_ok($total, '<=', 2 * 2000 + 2 * 8192,
	"the backend's total is flat over 2,000 TRUNCATE and REINDEX transactions, but for two blocks (+$total bytes)");
my $lookups = $m->{lookups}{cache} - $m->{after}{cache};
cmp_ok($lookups, '>=', 64 * 2000,
	"2,000 negative catalog lookups are seen in CacheMemoryContext (+$lookups bytes)");

# a large transaction, with and without walload tracking it
my $big = xacts('REINDEX INDEX t_pkey', 20)
  . measure('before')
  . "BEGIN;\n"
  . "REINDEX INDEX t_pkey;\n" x 1100
  . "COMMIT;\n"
  . xacts('REINDEX INDEX t_pkey', 20)
  . measure('after');
my $on = session($big);
my $off = session("SET walload.track = none;\n" . $big);
my $grow_on = $on->{after}{total} - $on->{before}{total};
my $grow_off = $off->{after}{total} - $off->{before}{total};
note "after 1,100 REINDEXes in one transaction: backend total +$grow_on bytes tracked, "
  . "+$grow_off bytes with walload.track = none";
cmp_ok($grow_on - $grow_off, '<=', 32768,
	"after a large transaction the backend keeps no more than without walload tracking it, plus 32 kB (+$grow_on, +$grow_off)");
is($on->{after}{walload}, $on->{before}{walload},
	"walload's own contexts are back to their size ($on->{before}{walload} bytes)");

$node->stop;
done_testing();

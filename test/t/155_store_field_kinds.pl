# The stats file's checks are generated from the records' field lists by
# kind (types.h, persist.c): every field of an enumeration is checked,
# including those no check named before, such as backend_kind (walload
# names a record's process by it).  A backend_kind walload could not have
# written, in a transaction or a statement record, makes the whole file
# ignored with a LOG line naming the field; one it could have written
# (an autovacuum worker's) loads, and the views name it.  Each damaged file
# gets a matching CRC-32C, so that what rejects it is the check.
# matrix: once (walload's own file format, the same on every version)
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use WalloadTAP;

my $node = PostgreSQL::Test::Cluster->new('walload_store_kinds');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'walload'
autovacuum = off
});
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION walload; CREATE TABLE k (id int)');
$node->safe_psql('postgres', 'SELECT walload_reset()');
$node->safe_psql('postgres', 'INSERT INTO k SELECT generate_series(1, 4321)');
my ($xid, $xpid) = split /\|/, $node->safe_psql('postgres', 'SELECT xact_id, pid FROM walload_xacts');
my $stmt_no = $node->safe_psql('postgres', "SELECT stmt_no FROM walload_statements WHERE xact_id = $xid");
$node->stop;

my $file = $node->data_dir . '/pg_stat/walload.stat';
my $good = slurp_file($file);
# the records begin with their ids (types.h): a transaction's xact_id and
# pid; a statement's xact_id, stmt_no and pid.  The statement ring is last.
my $xact = index($good, pack('Q<l<', $xid, $xpid));
my $stmt = rindex($good, pack('Q<l<l<', $xid, $stmt_no, $xpid));
ok($xact > 0 && $stmt > $xact, "the transaction record at byte $xact, the statement's at $stmt");
# backend_kind: the transaction record's byte 43 (after outcome, wal_level
# and synchronous_commit), the statement record's byte 35 (after toplevel,
# wal_skipped and status); both 0 (a client's) as saved
is(unpack('c', substr($good, $xact + 43, 1)) . '/' . unpack('c', substr($good, $stmt + 35, 1)),
	'0/0', 'both records say a client backend did the work');

sub round
{
	my ($at, $byte) = @_;
	my $bad = $good;
	substr($bad, $at, 1) = pack('c', $byte);
	open(my $fh, '>:raw', $file) or die "could not write $file: $!";
	print $fh stat_file_with_crc($bad);
	close($fh);
	my $logstart = -s $node->logfile;
	$node->start;
	my $n = $node->safe_psql('postgres', q{SELECT (SELECT count(*) FROM walload_xacts) || '/' ||
		(SELECT count(*) FROM walload_statements) || ':' ||
		coalesce((SELECT string_agg(backend_type, ',') FROM walload_xact_backend_types()), '')});
	$node->stop;
	return (slurp_file($node->logfile, $logstart), $n);
}

for my $c ([ 'the transaction record', $xact + 43, 'transaction record 1' ],
	[ 'the statement record', $stmt + 35, 'statement record 1' ])
{
	my ($what, $at, $where) = @$c;
	for my $v (9, -1)
	{
		my ($log, $n) = round($at, $v);
		like($log, qr/LOG:  ignoring walload statistics file "pg_stat\/walload.stat": $where: backend_kind is (out of range|negative) \($v\)/,
			"$what: backend_kind $v, the file is ignored, the LOG line names the field");
		is($n, '0/0:', "$what: backend_kind $v, the views are empty");
	}
}

# a kind walload writes (an autovacuum worker's): loaded and named
my ($log, $n) = round($xact + 43, 3);
unlike($log, qr/ignoring walload statistics file/, 'backend_kind 3 (autovacuum) is not rejected');
is($n, '1/1:autovacuum worker', 'the records are back, the transaction named as an autovacuum worker\'s');

done_testing();

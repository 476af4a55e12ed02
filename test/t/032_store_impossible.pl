# A pg_stat/walload.stat that holds a value walload could not have written
# is ignored whole (issue 50, item 6): the server starts with empty views, a
# LOG line names the value, and walload_report() works.  Before, a tiny
# positive time (a subnormal double) in a transaction record was loaded,
# and walload_report() failed with "value out of range: underflow" until a
# reset.  Each damaged file below keeps a matching CRC-32C (WalloadTAP's
# stat_file_with_crc), so that what rejects it is the check of the value;
# and a byte changed without mending the CRC is rejected by the CRC alone.
# The intact file loads.
# matrix: once (walload's own file format, the same on every version)
# cassert: no (values in the stats file, as 006: walload's own checks, no Assert())
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use WalloadTAP;

my $node = PostgreSQL::Test::Cluster->new('walload_store_impossible');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'walload'
autovacuum = off
});
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION walload; CREATE TABLE imp (id int)');
$node->safe_psql('postgres', 'SELECT walload_reset()');
# one recorded transaction: one INSERT, the only time of its kind
$node->safe_psql('postgres', 'INSERT INTO imp SELECT generate_series(1, 7777)');
my ($xid, $xpid, $dml_ms, $end_us) = split /\|/, $node->safe_psql('postgres', q{
SELECT xact_id, pid, dml_ms,
       (extract(epoch FROM xact_end) * 1000000)::bigint - 946684800000000
FROM walload_xacts});
my ($elapsed_ms, $rows) = split /\|/, $node->safe_psql('postgres',
	"SELECT elapsed_ms, rows FROM walload_statements WHERE xact_id = $xid");
is($rows, 7777, 'one recorded transaction, its INSERT of 7777 rows');
cmp_ok($dml_ms, '>', 0, 'with DML time');
$node->stop;

my $file = $node->data_dir . '/pg_stat/walload.stat';
my $good = slurp_file($file);
is(stat_file_with_crc($good), $good, 'the file as saved has a matching CRC (or none, before format 9)');

# where the values are, found by content (the views showed them exactly)
my $xact = index($good, pack('Q<l<', $xid, $xpid));
my $dml_at = index($good, pack('d<', $dml_ms), $xact);
my $end_at = index($good, pack('q<', $end_us), $xact);
# the statement ring is last (the aggregate, first, has the text too)
my $stmt = rindex($good, "INSERT INTO imp");
my $elapsed_at = rindex($good, pack('d<', $elapsed_ms), $stmt);
# rows is the first of its counters (wal_records may equal it)
my $rows_at = index($good, pack('q<', 7777), $elapsed_at);
ok($xact > 0 && $dml_at > $xact && $end_at > $xact, "the transaction record at byte $xact: dml_ms at $dml_at, its end at $end_at");
ok($elapsed_at > $dml_at && $rows_at > $elapsed_at && $stmt > $rows_at,
	"the statement's elapsed_ms at $elapsed_at, rows at $rows_at, text at $stmt");

my $counts = q{SELECT (SELECT count(*) FROM walload_xacts) || '/' || (SELECT count(*) FROM walload_statements)
  || '/' || (SELECT count(*) FROM walload_minutes) || '/' || (SELECT count(*) FROM walload_stats)};

# start with $content as the file, read the views and walload_report(),
# stop; returns the log of the round, the counts, walload_report()'s result
# and its error
sub round
{
	my ($content) = @_;
	open(my $fh, '>:raw', $file) or die "could not write $file: $!";
	print $fh $content;
	close($fh);
	my $logstart = -s $node->logfile;
	$node->start;
	my $n = $node->safe_psql('postgres', $counts);
	my ($rc, $report, $err) = $node->psql('postgres',
		q{SELECT count(*) || ':' || coalesce(sum(ms), 0) FROM walload_report()});
	$node->stop;
	return (slurp_file($node->logfile, $logstart), $n, $rc == 0 ? $report : undef, $err);
}

sub with_value
{
	my ($at, $packed) = @_;
	my $bad = $good;
	substr($bad, $at, length($packed)) = $packed;
	return stat_file_with_crc($bad);
}

# the intact file loads
my ($log, $n, $report, $err) = round($good);
unlike($log, qr/ignoring walload statistics file/, 'the intact file is not ignored');
like($n, qr/^1\/1\/1\/[1-9]/, "its records are back: $n");
ok(defined $report && $report =~ /^[1-9]\d*:/, "walload_report() reports them: " . ($report // $err));

my @cases = (
	[ 'a subnormal dml_ms (4.9e-324)', $dml_at, pack('d<', 4.9e-324), qr/kind_ms is out of range/ ],
	[ 'a negative elapsed_ms', $elapsed_at, pack('d<', -1.5), qr/elapsed_ms is negative/ ],
	[ 'an infinite dml_ms', $dml_at, pack('d<', 9**9**9), qr/kind_ms is not a finite number/ ],
	[ 'a dml_ms of 10^15 ms (31,700 years)', $dml_at, pack('d<', 1e15), qr/kind_ms is out of range/ ],
	[ 'an end in 2100', $end_at, pack('q<', 3155760000000000), qr/transaction record 1: end is out of range/ ],
	[ 'an end a second later (total_ms no longer its end less its start)', $end_at,
		pack('q<', $end_us + 1000000), qr/total_ms .* is not its end less its start/ ],
	[ 'a row count of 2^62 + 1', $rows_at, pack('q<', 4611686018427387905), qr/statement record 1: rows is out of range/ ],
);
for my $c (@cases)
{
	my ($what, $at, $packed, $why) = @$c;
	($log, $n, $report, $err) = round(with_value($at, $packed));
	like($log, qr/LOG:  ignoring walload statistics file "pg_stat\/walload.stat": .*$why/,
		"$what: the file is ignored, the LOG line says why");
	is($n, '0/0/0/0', "$what: the views are empty");
	is($report, '0:0', "$what: walload_report() works (and reports nothing)") or diag($err);
}

# a changed byte of a query text (a value walload could have written):
# the CRC alone rejects it, and with the CRC mended the file loads
my $renamed = $good;
substr($renamed, $stmt, 6) = 'insert';
SKIP:
{
	skip 'a file of format 8 has no CRC', 4 if unpack('L<', substr($good, 4, 4)) < 9;
	($log, $n) = round($renamed);
	like($log, qr/ignoring walload statistics file .*: its CRC does not match its contents/,
		'a byte changed after the shutdown: the CRC rejects the file');
	is($n, '0/0/0/0', 'the views are empty');
	($log, $n) = round(stat_file_with_crc($renamed));
	unlike($log, qr/ignoring walload statistics file/, 'the same change with its CRC mended loads');
	$node->start;
	is($node->safe_psql('postgres', "SELECT query FROM walload_statements"),
		'insert INTO imp SELECT generate_series(1, 7777)', 'with the changed text');
	$node->stop;
}

done_testing();

# A damaged pg_stat/walload.stat: whatever a field of the file says, the
# server starts, every view reads, and a file with an impossible value is
# ignored as a whole with a LOG line naming the problem.
#
# The file is saved once by a clean shutdown; each round writes one 4-byte
# word of a copy of it (0x7fffffff or 0xffffffff), starts the server, reads
# every view as text and stops it again.  The words swept: the header, the
# first statistics entry up to its query text, the first transaction and
# statement records up to theirs, and the first 96 bytes of a per-minute
# sum (walload_minutes: the session, its times, the first sums).  Each
# damaged copy gets a CRC-32C that matches it (WalloadTAP's
# stat_file_with_crc): what is swept is the checks of the values, which a
# CRC cannot replace (a value may be written wrong); the CRC itself is
# test/t/032_store_impossible.pl's.
# matrix: once (walload's own file format, the same on every version)
# cassert: no (the stats file's checks: walload's own parsing, no Assert(); the load at start runs with assertions in 001)
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use WalloadTAP;

my $node = PostgreSQL::Test::Cluster->new('walload_store_file');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'walload'
autovacuum = off
walload.max_stats = 100
walload.max_xacts = 10
walload.max_statements = 100
});
$node->start;
$node->safe_psql('postgres', q{
CREATE EXTENSION walload;
CREATE TABLE f (id int);
INSERT INTO f SELECT generate_series(1, 10);
VACUUM f;
BEGIN; CREATE TABLE f2 (id int); DROP TABLE f2; COMMIT;
});
my $dboid = $node->safe_psql('postgres', q{SELECT oid FROM pg_database WHERE datname = 'postgres'});
my ($xid, $xpid) = split /\|/, $node->safe_psql('postgres',
	q{SELECT xact_id, pid FROM walload_xacts ORDER BY xact_id LIMIT 1});
my ($sxid, $sno, $spid) = split /\|/, $node->safe_psql('postgres',
	q{SELECT xact_id, stmt_no, pid FROM walload_statements ORDER BY xact_id, stmt_no LIMIT 1});
my $super = $node->safe_psql('postgres', q{SELECT oid FROM pg_roles WHERE rolname = current_user});

# every view, every column as text (output functions included), the diagnosis
my $read_sql = q{
SELECT (SELECT count(*) || ':' || md5(coalesce(string_agg(t::text, ','), '')) FROM walload_stats t)
  || ' ' || (SELECT count(*) || ':' || md5(coalesce(string_agg(t::text, ','), '')) FROM walload_xacts t)
  || ' ' || (SELECT count(*) || ':' || md5(coalesce(string_agg(t::text, ','), '')) FROM walload_statements t)
  || ' ' || (SELECT count(*) || ':' || md5(coalesce(string_agg(t::text, ','), '')) FROM walload_minutes t)
  || ' ' || (SELECT md5(t::text) FROM walload_info t)
  || ' ' || (SELECT count(*) || ':' || md5(coalesce(string_agg(t::text, ','), '')) FROM walload_diagnose() t)};

$node->stop;
my $file = $node->data_dir . '/pg_stat/walload.stat';
ok(-e $file, 'a clean shutdown saves pg_stat/walload.stat');
my $good = slurp_file($file);

# where the parts are: found by content, so that the test follows the layout
my $entry = index($good, pack('L<L<', $super, $dboid));
my $xact = index($good, pack('Q<l<L<', $xid, $xpid, $super));
my $stmt = index($good, pack('Q<l<l<L<', $sxid, $sno, $spid, $super));
# the per-minute sums lie between the transactions and the statements; the
# first session's starts with its pid, role and database
my $minute = rindex($good, pack('l<L<L<', $xpid, $super, $dboid), $stmt);
ok($entry > 0 && $entry < 256, "the first statistics entry starts at byte $entry (after the header)");
ok($xact > $entry, "the first transaction record starts at byte $xact");
ok($stmt > $xact, "the first statement record starts at byte $stmt");
ok($minute > $xact + 400 && $minute < $stmt, "a per-minute sum starts at byte $minute");

sub write_file
{
	my ($content) = @_;
	open(my $fh, '>:raw', $file) or die "could not write $file: $!";
	print $fh $content;
	close($fh);
}

# one round: start with the given file (its CRC mended, unless $raw), read
# everything, stop; returns (the server log of the round, whether every
# read worked)
sub round
{
	my ($content, $raw) = @_;
	write_file($raw ? $content : stat_file_with_crc($content));
	my $logstart = -s $node->logfile;
	$node->start(fail_ok => 1) or return (slurp_file($node->logfile, $logstart), 0, 'did not start');
	my ($rc, $out, $err) = $node->psql('postgres', $read_sql);
	$node->stop('fast', fail_ok => 1);
	my $log = slurp_file($node->logfile, $logstart);
	return ($log, $rc == 0 && $log !~ /terminated by signal|was terminated|PANIC/, $err, $out);
}

# the unchanged file loads
my ($log, $ok, $err, $out) = round($good, 'unchanged');
ok($ok, 'the unchanged file loads and every view reads') or diag($err, $log);
unlike($log, qr/ignoring walload statistics file/, 'and it is not ignored');
like($out, qr/^[1-9]\d*:\w+ [1-9]\d*:\w+ [1-9]\d*:\w+ /, "the saved rows are back: $out");

# the command tag of the first aggregate (issue 11: reading walload_stats
# crashed in GetCommandTagName)
my $tagoff = $entry + 16;
my $bad = $good;
substr($bad, $tagoff, 4) = pack('L<', 0x7fffffff);
($log, $ok, $err, $out) = round($bad);
ok($ok, "command tag 0x7fffffff at byte $tagoff: the server starts and every view reads")
  or diag("error: $err\nlog:\n$log");
like($log, qr/LOG:  ignoring walload statistics file "pg_stat\/walload.stat": .*command tag/,
	'the file is ignored, the LOG line names the command tag');
like($out, qr/^0:\w+ 0:\w+ 0:\w+ /, "and the store starts empty: $out");

# a transaction's start time far beyond what timestamptz can show (reading
# walload_xacts failed with "timestamp out of range"), and a negative row
# count of the first statement (bytes 24 and 88 of their records)
$bad = $good;
substr($bad, $xact + 28, 4) = pack('L<', 0x7fffffff);
($log, $ok, $err) = round($bad);
ok($ok && $log =~ /ignoring walload statistics file .*: .*start/,
	'a transaction start time out of range: the file is ignored') or diag("error: $err\nlog:\n$log");
$bad = $good;
substr($bad, $stmt + 92, 4) = pack('L<', 0xffffffff);
($log, $ok, $err) = round($bad);
ok($ok && $log =~ /ignoring walload statistics file .*: .*negative/,
	'a negative row count of a statement: the file is ignored') or diag("error: $err\nlog:\n$log");

# the sweep
my @offsets;
push @offsets, grep { $_ != $tagoff } map { 4 * $_ } 0 .. ($entry + 24 + 160) / 4;
push @offsets, map { $xact + 4 * $_ } 0 .. 160 / 4 - 1;
push @offsets, map { $stmt + 4 * $_ } 0 .. 120 / 4 - 1;
push @offsets, map { $minute + 4 * $_ } 0 .. 96 / 4 - 1;
my ($rounds, $ignored, $failed) = (0, 0, 0);
my $t0 = time;
for my $i (0 .. $#offsets)
{
	my $off = $offsets[$i];
	# both words of an 8-byte field get the same value, the next field the
	# other one: negative and too large, NaN for doubles
	my $word = ($off >> 3) % 2 ? 0xffffffff : 0x7fffffff;
	$bad = $good;
	substr($bad, $off, 4) = pack('L<', $word);
	next if $bad eq $good;
	($log, $ok, $err) = round($bad);
	$rounds++;
	$ignored++ if $log =~ /ignoring walload statistics file/;
	if (!$ok)
	{
		$failed++;
		diag(sprintf("byte %d = 0x%08x: %s\n%s", $off, $word, $err, $log));
	}
}
is($failed, 0, sprintf('%d damaged files (bytes 0-%d, %d-%d, %d-%d, %d-%d): the server started and every view read each time; %d ignored with a LOG line (%ds)',
	$rounds, $entry + 24 + 160, $xact, $xact + 160, $stmt, $stmt + 120, $minute, $minute + 96,
	$ignored, time - $t0));

# a file cut short, and one with bytes after its end
($log, $ok) = round(substr($good, 0, length($good) - 7), 1);
ok($ok && $log =~ /ignoring walload statistics file .*: it is truncated/, 'a truncated file is ignored');
($log, $ok) = round($good . "xyz", 1);
ok($ok && $log =~ /ignoring walload statistics file/, 'a file with bytes after its end is ignored');

done_testing();

# A walk of shared_buffers at a commit or an abort keeps the estimate it was
# counted with (at XACT_EVENT_PRE_COMMIT, or at the abort), in the
# transaction's record, the statement's that caused it and that statement's
# aggregate: nothing restates it from the time its phase took, which stays
# in the measured columns (commit_ms, commit_sync_ms, commit_cleanup_ms).
# Each record is written once: read again after later commits and aborts,
# it is unchanged.  Whether the statement's record was still queued in the
# backend (autocommit) or already in the store (a transaction block), and
# for an abort at a ROLLBACK, a ROLLBACK TO, a PL/pgSQL exception block, and
# after an error inside a transaction block or a savepoint (whose cleanup
# waits for the client's ROLLBACK (TO)).  What each walk was estimated at is
# read from walload's DEBUG2 lines.  And what walload_diagnose() says one
# transaction instead of several DROPs would save is made of those recorded
# walks, less their page faults.  How near the estimates come to the real
# walks is the uprobe oracle's to say (test/oracle), not this test's.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use WalloadTAP;

my $node = calibrated_node('walload_walk_estimate_kept', q{
shared_buffers = 2GB
wal_level = minimal
max_wal_senders = 0
autovacuum = off
});
$node->safe_psql('postgres',
	'CREATE TABLE d1 (a int); CREATE TABLE d2 (a int); CREATE TABLE r (a int)');

# runs the script in one session at DEBUG2; returns the walks estimated
# (kind, ms) and the session's DEBUG2 output
sub session
{
	my ($sql, $errors_expected) = @_;
	my (undef, $stderr) = debug2_session($node, "$sql\nSELECT 1;", $errors_expected);
	my @est = $stderr =~ /walload: 1 walk\(s\) of kind (\d) over \d+ file\(s\): [^\n]*: ([\d.]+) ms/g;
	return (\@est, $stderr);
}

sub near
{
	my ($x, $y) = @_;
	return abs($x - $y) <= 0.002;
}

# est_scan_ms of the transaction, the statement and its aggregate, and the
# sum of est_scan_ms over the transaction's statements
sub recorded
{
	my ($stmt) = @_;
	return split /\|/, $node->safe_psql('postgres', qq{
		SELECT x.est_scan_ms, s.est_scan_ms, st.est_scan_ms,
			(SELECT sum(s2.est_scan_ms) FROM walload_statements s2 WHERE s2.xact_id = x.xact_id)
		FROM walload_statements s JOIN walload_xacts x USING (xact_id)
		JOIN walload_stats st USING (queryid)
		WHERE s.query = '$stmt'});
}

# each case's records as first read, read again at the end
my %first;
sub remember
{
	my ($stmt) = @_;
	$first{$stmt} = $node->safe_psql('postgres', qq{
		SELECT x.xact_id, x.outcome, x.est_scan_ms, x.full_scans, x.commit_ms,
			x.commit_cleanup_ms, s.stmt_no, s.est_scan_ms, s.full_scans
		FROM walload_statements s JOIN walload_xacts x USING (xact_id)
		WHERE s.query = '$stmt'});
}

# no DEBUG2 line restates a walk any more
sub not_restated
{
	my ($what, $stderr) = @_;
	unlike($stderr, qr/walk of kind \d measured/, "$what: no walk is restated");
}

# 1. autocommit: the DROP's record waits in the backend until the commit ends
my ($est, $stderr) = session('DROP TABLE d1;');
is(scalar @$est, 2, 'DROP TABLE d1 estimated one walk');
is($est->[0], 3, 'of the deletion');
not_restated('DROP TABLE d1', $stderr);
my @rec = recorded('DROP TABLE d1');
ok(near($rec[0], $est->[1]), "the transaction's record has the walk's estimate ($rec[0] ms, counted $est->[1])");
ok(near($rec[1], $est->[1]), "so has the statement's ($rec[1] ms)");
ok(near($rec[2], $est->[1]), "and the statement's aggregate ($rec[2] ms)");
ok(near($rec[0], $rec[3]), "the transaction's is the sum of its statements' ($rec[3] ms)");
remember('DROP TABLE d1');

# 2. a transaction block: the DROP's record is stored before the COMMIT's
# walk is counted
($est, $stderr) = session("BEGIN;\nDROP TABLE d2;\nSELECT 2;\nCOMMIT;");
my %est = @$est;
ok(exists $est{3}, 'a DROP TABLE in a transaction block: its commit walks');
not_restated('DROP TABLE d2', $stderr);
@rec = recorded('DROP TABLE d2');
ok(near($rec[0], $est{3}), "the transaction's record has the walk's estimate ($rec[0] ms)");
ok(near($rec[1], $est{3}), "so has the statement's record ($rec[1] ms)");
ok(near($rec[2], $est{3}), "and its aggregate ($rec[2] ms)");
ok(near($rec[0], $rec[3]), "the transaction's is the sum of its statements' ($rec[3] ms)");
remember('DROP TABLE d2');

# 3. the sync's walk
($est, $stderr) = session(q{
	BEGIN;
	CREATE TABLE big (a int, b text);
	INSERT INTO big SELECT g, repeat('s', 60) FROM generate_series(1, 750000) g;
	COMMIT;});
%est = @$est;
ok(exists $est{1}, 'the load was synced at commit, with a walk');
@rec = recorded('CREATE TABLE big (a int, b text)');
ok(near($rec[0], $est{1}), "the transaction keeps the walk's estimate ($rec[0] ms)");
ok(near($rec[1], $est{1}), "so does the statement ($rec[1] ms)");
remember('CREATE TABLE big (a int, b text)');

# 4. a deletion whose files take long to delete
($est, $stderr) = session('DROP TABLE big;');
%est = @$est;
ok(exists $est{3}, 'DROP TABLE big walks');
@rec = recorded('DROP TABLE big');
ok(near($rec[0], $est{3}), "the transaction keeps the walk's estimate ($rec[0] ms)");
remember('DROP TABLE big');

# 5. an abort's walk: a ROLLBACK, a ROLLBACK TO, a PL/pgSQL exception
# block, and after an error inside a transaction block or a savepoint:
# core's abort runs at the error, its cleanup only at the client's ROLLBACK
# (TO)
sub abort_kept
{
	my ($what, $sql, $stmt, $errors_expected) = @_;
	my ($est, $stderr) = session($sql, $errors_expected);
	my %est = @$est;
	ok(exists $est{3}, "$what: the abort of a created table walks to delete its file");
	not_restated($what, $stderr);
	my @rec = recorded($stmt);
	ok(near($rec[0], $est{3} // -1), "$what: the transaction's record has the walk's estimate ($rec[0] ms)");
	ok(near($rec[1], $est{3} // -1), "$what: so has the statement's ($rec[1] ms)");
	ok(near($rec[0], $rec[3]), "$what: the transaction's is the sum of its statements' ($rec[3] ms)");
	remember($stmt);
}
abort_kept('ROLLBACK', "BEGIN;\nCREATE TABLE gone (a int);\nROLLBACK;", 'CREATE TABLE gone (a int)');
abort_kept('ROLLBACK TO', "BEGIN;\nSAVEPOINT s;\nCREATE TABLE gone2 (a int);\nROLLBACK TO s;\nCOMMIT;",
	'CREATE TABLE gone2 (a int)');
my $do = 'DO $$BEGIN CREATE TABLE gone3 (a int); PERFORM 1 / 0; '
  . 'EXCEPTION WHEN division_by_zero THEN NULL; END$$';
abort_kept('an exception block', "$do;", $do);
abort_kept('an error in a transaction block',
	"BEGIN;\nCREATE TABLE gone4 (a int);\nSELECT 1 / 0;\nROLLBACK;", 'CREATE TABLE gone4 (a int)', 1);
abort_kept('an error in a savepoint',
	"BEGIN;\nSAVEPOINT s;\nCREATE TABLE gone5 (a int);\nSELECT 1 / 0;\nROLLBACK TO s;\nCOMMIT;",
	'CREATE TABLE gone5 (a int)', 1);

# 6. written once: each record read again, after the later commits and
# aborts above, is as first read
for my $stmt (sort keys %first)
{
	my $again = $node->safe_psql('postgres', qq{
		SELECT x.xact_id, x.outcome, x.est_scan_ms, x.full_scans, x.commit_ms,
			x.commit_cleanup_ms, s.stmt_no, s.est_scan_ms, s.full_scans
		FROM walload_statements s JOIN walload_xacts x USING (xact_id)
		WHERE s.query = '$stmt'});
	is($again, $first{$stmt}, "$stmt: its records are unchanged by later transactions");
}

# 7. what one transaction instead of five DROPs in autocommit would save
# (whatif.c one_walk_saving_ms): the walks as recorded (their estimates,
# the first one with its page faults), less those faults (the one
# transaction's walk pays them too, if it is its backend's first), less one
# cold walk over the five files; plus four of the five commit records'
# flushes.  The session prices with fixed unit costs (walload.unit_costs):
# whether the first walk's page faults cost anything was the calibration's
# to say, which a busy machine can time at 0.
$node->safe_psql('postgres', join(' ', map { "CREATE TABLE f$_ (a int);" } 1 .. 5));
$node->safe_psql('postgres', 'SELECT walload_reset()');
my $stdout;
($stdout, $stderr) = debug2_session($node,
	"SET walload.unit_costs = 'walk_ns_per_buffer=1, drop_walk_ns_per_buffer_1=2, "
	  . "drop_walk_ns_per_buffer_8=3, fault_ns_per_page=1000';\n" .
	join("\n", map { "DROP TABLE f$_;" } 1 .. 5) .
	"\nSELECT detail FROM walload_findings() WHERE finding LIKE 'file deletion%';");
my @faults = $stderr =~ /walload: 1 walk\(s\) of kind 3 over 1 file\(s\): [^\n]*, page faults ([\d.]+) ms/g;
my @est5 = $stderr =~ /walload: 1 walk\(s\) of kind 3 over 1 file\(s\): [^\n]*: ([\d.]+) ms/g;
is(scalar @faults, 5, 'five walks estimated');
ok($faults[0] > 0, "premise: the session's first walk maps the header pages ($faults[0] ms of page faults)");
is(scalar(grep { $_ > 0 } @faults[1 .. 4]), 0, 'the later ones do not');
# every walk is priced cold, as calibrated: nothing a walk before it left in
# the CPU cache, nothing learned from the commits (the ablation in
# docs/benchmarks.md)
ok((grep { abs($_ - $est5[1]) < 0.0005 } @est5[2 .. 4]) == 3,
	"the later four walks are priced alike (@est5[1 .. 4] ms)");
ok(abs($est5[0] - $faults[0] - $est5[1]) < 0.002,
	"the first is priced as the others plus its page faults ($est5[0] ms)");
is($node->safe_psql('postgres', 'SELECT scan_time_ratio, scan_time_commits FROM walload_info'),
	'1|0', 'walload_info: walks priced as calibrated, no commit taught them');
my ($kind6, $files6, $n6, $rec6, $f6, $one6, $saves6) = $stderr =~
  /walload: what-if of one walk of kind (\d) over (\d+) file\(s\) for (\d+): recorded ([\d.]+) ms, page faults ([\d.]+) ms, one walk ([\d.]+) ms: saves ([\d.]+) ms/;
ok(defined $saves6 && $files6 == 5 && $n6 == 5, 'the what-if prices one walk over the five files');
my $counted = 0;
$counted += $_ for @est5;
my ($est_sum, $sync_sum) = split /\|/, $node->safe_psql('postgres',
	'SELECT sum(est_scan_ms), sum(commit_sync_ms) FROM walload_xacts WHERE scans_drop_pending > 0');
ok(abs($est_sum - $counted) < 0.01, "the five transactions keep the walks' estimates ($est_sum ms, counted $counted)");
ok(abs($rec6 - $est_sum) < 0.005, "the what-if starts from the walks as recorded ($rec6 ms)");
ok(near($f6, $faults[0]), "less the first walk's page faults as priced ($f6 ms)");
my $expect6 = $rec6 - $f6 - $one6;
$expect6 = 0 if $expect6 < 0;
ok(near($saves6, $expect6), "less one walk over the five files ($one6 ms): $saves6 ms saved");
my ($hint_ms) = $stdout =~ /instead of these 5: 4 walks and 4 WAL flushes fewer, about ([\d.]+) ms/;
ok(defined $hint_ms && abs($hint_ms - ($sync_sum * 4 / 5 + $saves6)) <= 0.051,
	"the hint adds four of the five commit records' flushes ($hint_ms ms)");

$node->stop;
done_testing();

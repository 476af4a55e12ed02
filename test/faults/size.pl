# Size (issue 15, part 4): one transaction of 1,000,000 tracked statements
# (a DO loop, walload.track = all) and one that creates 40,000 tables.
#
# Pass / fail, nothing here depends on time:
#   - per-backend memory (pg_backend_memory_contexts), sampled inside the
#     transaction at every tenth of it:
#       1,000,000 statements: the backend's total does not grow from the
#       first tenth to the end by more than 1 MB (walload keeps nothing per
#       statement in the backend: a statement's record goes to the shared
#       ring when it ends), and walload's own contexts stay under 1 MB;
#       40,000 tables: walload's own contexts stay under 1 MB + 640 bytes
#       per relation file the transaction created (it remembers, per file,
#       which statement created it, for the commit and abort scans, and
#       per statement that created one its entry in the record's list of
#       storage statements and the room reserved for what may reach it
#       late, both grown by doubling: about 105 + 2 x 216 bytes at most;
#       accumulator.c's context "walload statement refs", which until 1.8.2
#       was TopMemoryContext and not counted here);
#     the bounds are stated in docs/guarantees.md;
#   - the rings and the statistics table keep their bounds (rows in the
#     views <= walload.max_*), every statement was counted
#     (statements_recorded) and the overflow overwritten
#     (statements_overwritten), the transaction row counts them all;
#   - the server and walload's views answer afterwards.
# The time per statement (first and last tenth) is printed as a note, not
# judged: timings are bench/size.sh's.
#
# Environment: WALLOAD_SIZE_STATEMENTS (default 1000000), WALLOAD_SIZE_TABLES
# (default 40000).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $nstmt = $ENV{WALLOAD_SIZE_STATEMENTS} // 1000000;
my $ntab = $ENV{WALLOAD_SIZE_TABLES} // 40000;

my $node = PostgreSQL::Test::Cluster->new('walload_size');
$node->init;
# 40,000 new relations hold 40,000 locks: the shared lock table is
# max_locks_per_transaction x (max_connections + max_prepared_transactions
# + the other processes); 19 no longer lets it borrow spare shared memory
# (600 was enough up to 18, not there), so room for all of them
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'walload'
autovacuum = off
max_locks_per_transaction = 4000
walload.max_xacts = 100
walload.max_statements = 10000
walload.max_stats = 100
});
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION walload; CREATE TABLE sink (a int)');
my %max = map { $_ => $node->safe_psql('postgres', "SHOW walload.$_") } qw(max_xacts max_statements max_stats);

# walload's own memory contexts
my $ours = q{(SELECT coalesce(sum(total_bytes), 0) FROM pg_backend_memory_contexts
               WHERE name ~* 'walload' OR ident ~* 'walload')};
my $all = q{(SELECT sum(total_bytes) FROM pg_backend_memory_contexts)};

# $body runs $n times in one DO block; at every tenth: elapsed ms, the
# backend's total memory, walload's.  Returns the samples.
sub run_loop
{
	my ($n, $body) = @_;
	my $step = int($n / 10);
	my ($rc, $out, $err) = $node->psql('postgres', qq{
SET walload.track = 'all';
SELECT walload_reset();
DO \$\$
DECLARE t0 timestamptz := clock_timestamp(); marks text := '';
BEGIN
  FOR i IN 1..$n LOOP
    $body
    IF i % $step = 0 THEN
      marks := marks || format('%s %s %s %s;', i, extract(epoch from clock_timestamp() - t0) * 1000, $all, $ours);
    END IF;
  END LOOP;
  RAISE WARNING 'marks:%', marks;
END
\$\$;
});
	die "the loop failed: $err" if $rc != 0;
	my ($marks) = $err =~ /marks:(.*)/;
	die "no samples: $err" unless $marks;
	return map { [ split / / ] } grep { /\S/ } split /;/, $marks;
}

sub timing_note
{
	my ($what, @s) = @_;
	my $first = $s[0][1];
	my $last = $s[-1][1] - $s[-2][1];
	note(sprintf('%s: %.0f ms in all; first tenth %.0f ms, last tenth %.0f ms (ratio %.2f; not judged here: bench/size.sh)',
		$what, $s[-1][1], $first, $last, $last / $first));
}

# ------------------------------------------------ 1,000,000 statements
my @s = run_loop($nstmt, 'INSERT INTO sink VALUES (i);');
is(scalar(@s), 10, "$nstmt statements: ten samples");
note("$nstmt statements, memory at each tenth (backend total / walload's, bytes): "
	  . join(' ', map { "$_->[2]/$_->[3]" } @s));
my ($min_all, $max_all) = (1e18, 0);
my $max_ours = 0;
for (@s)
{
	$min_all = $_->[2] if $_->[2] < $min_all;
	$max_all = $_->[2] if $_->[2] > $max_all;
	$max_ours = $_->[3] if $_->[3] > $max_ours;
}
ok($s[0][3] > 0, "$nstmt statements: walload's memory contexts are found (by name) ($s[0][3] bytes)");
cmp_ok($max_all - $s[0][2], '<=', 1024 * 1024,
	"$nstmt statements: the backend's memory grew by at most 1 MB from the first tenth to the end ("
	  . ($max_all - $s[0][2]) . ' bytes)');
cmp_ok($max_ours, '<=', 1024 * 1024, "$nstmt statements: walload's memory under 1 MB ($max_ours bytes)");
timing_note("$nstmt statements", @s);

my $info = $node->safe_psql('postgres',
	'SELECT statements_recorded, statements_overwritten, xacts_recorded FROM walload_info');
my ($rec, $over, $xrec) = split /\|/, $info;
# the DO and its statements: every INSERT, the sampling SELECTs are not
# recorded (a plain SELECT that wrote nothing)
cmp_ok($rec, '>=', $nstmt + 1, "$nstmt statements: every one recorded ($rec)");
is($over, $rec - $node->safe_psql('postgres', 'SELECT count(*) FROM walload_statements'),
	"$nstmt statements: all but the ring's last overwritten ($over)");
is($node->safe_psql('postgres', qq{
SELECT (SELECT count(*) FROM walload_statements) <= $max{max_statements},
       (SELECT count(*) FROM walload_xacts) <= $max{max_xacts},
       (SELECT count(*) FROM walload_stats) <= $max{max_stats},
       (SELECT stats_entries FROM walload_info) <= $max{max_stats}}),
	't|t|t|t', "$nstmt statements: rings and statistics table within their bounds");
is($node->safe_psql('postgres', q{
SELECT statements || ' ' || outcome FROM walload_xacts ORDER BY xact_id DESC LIMIT 1}),
	'1 commit', "$nstmt statements: one transaction, one top-level statement (the DO)");
is($node->safe_psql('postgres', q{SELECT sum(calls) FROM walload_stats WHERE command = 'INSERT'}),
	$nstmt, "$nstmt statements: walload_stats counted every INSERT");

# ------------------------------------------------ 40,000 tables
@s = run_loop($ntab, q{EXECUTE format('CREATE TABLE many_%s (a int)', i);});
is(scalar(@s), 10, "$ntab tables: ten samples");
note("$ntab tables, memory at each tenth (backend total / walload's, bytes): "
	  . join(' ', map { "$_->[2]/$_->[3]" } @s));
my $ok = 1;
for (@s)
{
	my $bound = 1024 * 1024 + 640 * $_->[0];
	if ($_->[3] > $bound)
	{
		$ok = 0;
		diag("after $_->[0] tables walload's memory is $_->[3] bytes, above $bound");
	}
}
ok($ok, "$ntab tables: walload's memory under 1 MB + 640 bytes per created file at every tenth (at the end $s[-1][3] bytes)");
timing_note("$ntab tables", @s);
is($node->safe_psql('postgres', qq{
SELECT (SELECT count(*) FROM walload_statements) <= $max{max_statements},
       (SELECT count(*) FROM walload_xacts) <= $max{max_xacts},
       (SELECT count(*) FROM walload_stats) <= $max{max_stats},
       (SELECT statements_recorded FROM walload_info) >= $ntab}),
	't|t|t|t', "$ntab tables: rings and statistics table within their bounds, every CREATE TABLE recorded");
is($node->safe_psql('postgres', q{SELECT count(*) FROM pg_class WHERE relname LIKE 'many\_%'}),
	$ntab, "$ntab tables: they exist (committed)");
my ($rc) = $node->psql('postgres', 'SELECT count(*) FROM walload_diagnose()');
is($rc, 0, 'walload_diagnose() runs afterwards');

$node->stop('immediate');
done_testing();

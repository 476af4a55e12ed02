# A disk that fills up in the middle of a bulk load (issue 15, part 3).
#
# A tablespace on a small filesystem made for the test (test/faults/
# run-diskfull.sh mounts a tmpfs and passes it as WALLOAD_SMALLFS) fills up
# during a COPY into a table created in the same transaction, and during a
# CREATE INDEX, under wal_level = minimal and replica.  For each:
#   - the statement fails with core's error (SQLSTATE 53100, "could not
#     extend file ...: No space left on device"), nothing else;
#   - walload records the transaction as aborted, the failed statement with
#     status error, and the abort's scan: the abort deletes the files the
#     transaction created, one DropRelationsAllBuffers / DropRelFileNodes-
#     AllBuffers walk (smgrDoPendingDeletes -> smgrdounlinkall), attributed
#     to the statement that created the first of them;
#   - the files are gone (the tablespace is empty again);
#   - nothing leaks into the next transaction of the same session: its row
#     has only its own statement and no scan, no dropped file;
#   - the server keeps running (same postmaster start time, no PANIC, no
#     backend terminated by a signal).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $fs = $ENV{WALLOAD_SMALLFS};
plan skip_all => 'WALLOAD_SMALLFS (a small filesystem for the tablespace) is not set: run test/faults/run-diskfull.sh'
  unless $fs && -d $fs && -w $fs;

for my $level (qw(minimal replica))
{
	my $node = PostgreSQL::Test::Cluster->new("walload_diskfull_$level");
	$node->init;
	$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'walload'
wal_level = $level
max_wal_senders = 0
autovacuum = off
log_min_messages = warning
});
	$node->start;
	my $ts = "$fs/$level";
	mkdir $ts or die "mkdir $ts: $!";
	$node->safe_psql('postgres', "CREATE EXTENSION walload");
	$node->safe_psql('postgres', "CREATE TABLESPACE small LOCATION '$ts'");
	$node->safe_psql('postgres',
		"CREATE TABLE idx_src AS SELECT g AS id, md5(g::text) AS v FROM generate_series(1, 300000) g");
	my $start = $node->safe_psql('postgres', 'SELECT pg_postmaster_start_time()');

	# one session: the failing transaction, then the next one
	my %case = (
		copy => {
			sql => "BEGIN;\n"
			  . "CREATE TABLE full_copy (id int, v text) TABLESPACE small;\n"
			  . "COPY full_copy (v) FROM PROGRAM 'yes 0123456789abcdef0123456789abcdef0123456789abcdef | head -n 2000000';\n"
			  . "ROLLBACK;\n",
			failing => 'COPY',
			creator => 'CREATE TABLE',
		},
		index => {
			sql => "CREATE INDEX full_idx ON idx_src (v) TABLESPACE small;\n",
			failing => 'CREATE INDEX',
			creator => 'CREATE INDEX',
		},
	);
	for my $what (qw(copy index))
	{
		my $c = $case{$what};
		my $d = "$level/$what";
		$node->safe_psql('postgres', 'SELECT walload_reset()');
		my ($rc, $out, $err) = $node->psql('postgres',
			"\\set VERBOSITY verbose\n"
			  . "SELECT 'pid=' || pg_backend_pid();\n"
			  . $c->{sql}
			  . "CREATE TABLE after_$what (a int);\n"
			  . "SELECT 'next=' || count(*) FROM after_$what;\n",
			on_error_stop => 0);
		my ($pid) = $out =~ /pid=(\d+)/;
		my @errors = ($err =~ /^.*ERROR:.*$/mg);
		is(scalar(@errors), 1, "$d: one error") or diag($err);
		like($errors[0] // '', qr/ERROR:  53100: could not extend file .*No space left on device/,
			"$d: core's disk-full error (53100, could not extend file)");
		like($out, qr/next=0/, "$d: the session goes on after the error");

		my $x = $node->safe_psql('postgres', qq{
SELECT outcome, full_scans, scans_drop_pending, dropped_rels > 0, statements
FROM walload_xacts WHERE pid = $pid ORDER BY xact_id});
		my @x = split /\n/, $x;
		is(scalar(@x), 2, "$d: walload recorded two transactions of the session") or diag($x);
		# the failed transaction: aborted, the abort's one walk over the pool,
		# and its files deleted
		my $nstmt = $what eq 'copy' ? 2 : 1;
		is($x[0], "abort|1|1|t|$nstmt",
			"$d: aborted, with the abort's drop scan and its deleted files ($nstmt statement(s))");
		# a statement that fails after creating the file the abort deletes
		# gets the abort's scan (test/t/012_abort_attribution_failed_statement.pl)
		is($node->safe_psql('postgres', qq{
SELECT string_agg(command || ':' || status || ':' || scans_drop_pending, ' ' ORDER BY stmt_no)
FROM walload_statements WHERE xact_id = (SELECT min(xact_id) FROM walload_xacts WHERE pid = $pid)}),
			join(' ', $what eq 'copy'
				? ('CREATE TABLE:ok:1', 'COPY:error:0')
				: ('CREATE INDEX:error:1')),
			"$d: the $c->{failing} recorded as failed, the scan attributed to the $c->{creator}");
		# the next transaction: its own statement only, no scan
		is($x[1], 'commit|0|0|f|1', "$d: the next transaction has its own statement only, no scan, no dropped file");
		is($node->safe_psql('postgres', qq{
SELECT string_agg(command || ':' || status || ':' || full_scans, ' ')
FROM walload_statements WHERE xact_id = (SELECT max(xact_id) FROM walload_xacts WHERE pid = $pid)}),
			'CREATE TABLE:ok:0', "$d: the next transaction's statement is whole");
		is($node->safe_psql('postgres', q{
SELECT (SELECT full_scans FROM walload_info) = (SELECT sum(full_scans) FROM walload_xacts)}),
			't', "$d: walload_info's scans are the transactions' (nothing counted outside them)");
		# core: the files are gone, the space is back
		is($node->safe_psql('postgres', "SELECT pg_tablespace_size('small') < 1024 * 1024"), 't',
			"$d: the aborted transaction's files were deleted from the full tablespace");
	}

	is($node->safe_psql('postgres', 'SELECT pg_postmaster_start_time()'), $start,
		"$level: the server kept running (not restarted)");
	my $log = slurp_file($node->logfile);
	ok($log !~ /PANIC|terminated by signal/, "$level: no PANIC, no backend terminated by a signal")
	  or diag(join "\n", grep { /PANIC|terminated by signal/ } split /\n/, $log);
	$node->safe_psql('postgres', 'DROP TABLESPACE small');
	$node->stop;
}

done_testing();

# A FATAL exit in the middle of a load records what a cancel records: the
# statements in progress as errors, measured to the moment of exit (their
# WAL, their time), and the transaction as an abort with its WAL.  On a
# FATAL core does not unwind the stack: no error handler of walload's runs,
# and core aborts the transaction from its exit callback (ShutdownPostgres),
# after walload's statements had no end.
#
#   - pg_terminate_backend during a COPY in a transaction block (also in a
#     savepoint), during an INSERT ... SELECT, during a SELECT that writes
#     through a function, each at walload.track = top and all;
#   - a lost client: its COPY FROM STDIN fails on the EOF (an ERROR), its
#     INSERT is ended by client_connection_check_interval (a FATAL);
#   - idle_in_transaction_session_timeout: the open transaction is an
#     abort, with its finished statements;
#   - what must not change: a cancel records the same as before, a SELECT
#     that only read and is terminated is not recorded, and an exit with no
#     transaction open (terminated while idle, or a clean disconnect)
#     records nothing.
#
# No sleeps and no timed assertions: a session is terminated once
# pg_stat_activity shows it waiting (for an advisory lock the test holds,
# or for its client's next rows, with pg_stat_progress_copy's count of the
# rows it has loaded), and a figure asserted is a count (WAL records, rows)
# or whether a statement was timed at all (before this, a terminated
# statement was recorded with 0 ms, or not at all).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use IPC::Run;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('walload_fatal');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'walload'
autovacuum = off
max_parallel_workers_per_gather = 0
walload.calibration = off
});
$node->start;
$node->safe_psql('postgres', q{
CREATE EXTENSION walload;
CREATE TABLE t_copy (id int, t text);
CREATE TABLE t_exec (id int);
CREATE TABLE t_fn (id int);
CREATE TABLE t_idle (id int);
-- writes n rows, then waits for the advisory lock 4242
CREATE FUNCTION load_then_wait(n int) RETURNS int LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO t_fn SELECT generate_series(1, n);
  PERFORM pg_advisory_lock(4242);
  RETURN n;
END $$;
-- reads, then waits for the advisory lock 4242
CREATE FUNCTION read_then_wait() RETURNS bigint LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_lock(4242);
  RETURN (SELECT count(*) FROM t_exec);
END $$;
SELECT walload_reset();
});

my $timeout = $PostgreSQL::Test::Utils::timeout_default;

# a psql session fed through a pipe, and its backend's pid; $track, if
# given, is its walload.track, set and seen set
sub session
{
	my ($track) = @_;
	my %s = (in => '', out => '', err => '');
	$s{timer} = IPC::Run::timeout($timeout);
	$s{h} = IPC::Run::start(
		[ 'psql', '-X', '-q', '-d', $node->connstr('postgres') ],
		'<', \$s{in}, '>', \$s{out}, '2>', \$s{err}, $s{timer});
	$s{in} .= "SELECT 'pid=' || pg_backend_pid();\n";
	$s{h}->pump until $s{out} =~ /pid=(\d+)/ || $s{timer}->is_expired;
	($s{pid}) = $s{out} =~ /pid=(\d+)/;
	die 'no session' unless $s{pid};
	if (defined $track)
	{
		$s{in} .= "SET walload.track = '$track';\n"
		  . "SELECT 'track=' || current_setting('walload.track');\n";
		$s{h}->pump until $s{out} =~ /track=$track/ || $s{timer}->is_expired;
		die "walload.track = $track could not be set" unless $s{out} =~ /track=$track/;
	}
	return \%s;
}

sub send_all
{
	my ($s, $text) = @_;
	$s->{in} .= $text;
	$s->{h}->pump_nb while length $s->{in};
	return;
}

# the session's backend has exited (its records are written by then:
# walload writes them before core takes the backend out of
# pg_stat_activity)
sub wait_gone
{
	my ($pid, $what) = @_;
	ok($node->poll_query_until('postgres',
		"SELECT count(*) = 0 FROM pg_stat_activity WHERE pid = $pid"),
		"$what: the backend has exited");
	return;
}

sub wait_until
{
	my ($sql, $what) = @_;
	ok($node->poll_query_until('postgres', $sql), $what);
	return;
}

sub finish_psql
{
	my ($s) = @_;
	$s->{h}->finish;
	return;
}

# a session's statements: command, status, WAL written or not, timed or not
sub statements_of
{
	my ($pid) = @_;
	return $node->safe_psql('postgres', qq{
SELECT string_agg(format('%s:%s:%s:%s', s.command, s.status, s.wal_records > 0,
                         s.elapsed_ms > 0), ',' ORDER BY s.xact_id, s.stmt_no)
FROM walload_statements s JOIN walload_xacts x USING (xact_id)
WHERE x.pid = $pid});
}

# a session's transactions: outcome, statements, WAL written or not
sub xacts_of
{
	my ($pid) = @_;
	return $node->safe_psql('postgres', qq{
SELECT string_agg(format('%s/%s/%s', outcome, statements, wal_records > 0), ','
                  ORDER BY xact_id)
FROM walload_xacts WHERE pid = $pid});
}

sub rows_of
{
	my ($pid, $what) = @_;
	return $node->safe_psql('postgres',
		"SELECT count(*) FROM walload_$what WHERE pid = $pid");
}

# a COPY in a transaction block, after an INSERT, has loaded at least 1000
# rows and waits for its client's next ones (its multi-insert buffer is
# flushed when it holds 1000 rows: it has written WAL; psql keeps the last
# part of what it read until it has more); $savepoint puts it in a savepoint,
# $before runs before the transaction
sub copy_waiting
{
	my ($track, $savepoint, $before) = @_;
	my $s = session($track);
	send_all($s, ($before // '') . "BEGIN;\n"
		  . "INSERT INTO t_copy VALUES (0, 'first');\n"
		  . ($savepoint ? "SAVEPOINT s;\n" : '')
		  . "COPY t_copy FROM STDIN;\n"
		  . join('', map { "$_\trow $_\n" } 1 .. 20000));
	wait_until(qq{
SELECT a.wait_event = 'ClientRead' AND p.tuples_processed >= 1000
FROM pg_stat_activity a JOIN pg_stat_progress_copy p USING (pid)
WHERE a.pid = $s->{pid}}, "track = $track: the COPY has loaded rows and waits for more");
	return $s;
}

# an INSERT ... SELECT that has written 50000 rows and waits for the
# advisory lock 4242, which the caller holds
sub insert_waiting
{
	my ($track, $extra) = @_;
	my $s = session($track);
	send_all($s, ($extra // '')
		  . "INSERT INTO t_exec SELECT g FROM generate_series(1, 50000) g\n"
		  . "  UNION ALL SELECT 0 FROM pg_advisory_lock(4242);\n");
	wait_until(qq{
SELECT wait_event_type = 'Lock' AND wait_event = 'advisory'
FROM pg_stat_activity WHERE pid = $s->{pid}},
		"track = $track: the INSERT has written its rows and waits for the lock");
	return $s;
}

# the controller: holds the advisory lock 4242 while the others wait for it
my $ctl = session();
send_all($ctl, "SELECT pg_advisory_lock(4242);\n");
wait_until(qq{SELECT count(*) = 1 FROM pg_locks
WHERE locktype = 'advisory' AND objid = 4242 AND granted AND pid = $ctl->{pid}},
	'the controller holds the advisory lock');

for my $track ('top', 'all')
{
	# ---- terminated during a COPY in a transaction block
	my $s = copy_waiting($track, 0);
	$node->safe_psql('postgres', "SELECT pg_terminate_backend($s->{pid})");
	wait_gone($s->{pid}, "track = $track, COPY terminated");
	finish_psql($s);
	is(statements_of($s->{pid}), 'INSERT:ok:t:t,COPY:error:t:t',
		"track = $track: a terminated COPY is recorded as an error, with its WAL and its time");
	is(xacts_of($s->{pid}), 'abort/2/t',
		"track = $track: its transaction as an abort of both statements");
	is($node->safe_psql('postgres', qq{
SELECT copy_ms > 0 AND dml_ms > 0 FROM walload_xacts WHERE pid = $s->{pid}}),
		't', "track = $track: the COPY's time is in its transaction's copy_ms");

	# ---- the same in a savepoint: the subtransaction's abort ends the COPY
	$s = copy_waiting($track, 1);
	$node->safe_psql('postgres', "SELECT pg_terminate_backend($s->{pid})");
	wait_gone($s->{pid}, "track = $track, COPY in a savepoint terminated");
	finish_psql($s);
	is(statements_of($s->{pid}), 'INSERT:ok:t:t,COPY:error:t:t',
		"track = $track: a terminated COPY in a savepoint is recorded as an error");
	is(xacts_of($s->{pid}), 'abort/2/t', "track = $track: its transaction as an abort");

	# ---- terminated during an executor statement (its own transaction)
	$s = insert_waiting($track);
	$node->safe_psql('postgres', "SELECT pg_terminate_backend($s->{pid})");
	wait_gone($s->{pid}, "track = $track, INSERT terminated");
	finish_psql($s);
	is(statements_of($s->{pid}), 'INSERT:error:t:t',
		"track = $track: a terminated INSERT is recorded as an error, with its WAL and its time");
	is(xacts_of($s->{pid}), 'abort/1/t', "track = $track: its transaction as an abort");
	is($node->safe_psql('postgres', qq{
SELECT s.wal_records <= x.wal_records AND s.rows = 0 AND x.rows = 0
FROM walload_statements s JOIN walload_xacts x USING (xact_id) WHERE x.pid = $s->{pid}}),
		't', "track = $track: its WAL is within its transaction's; no rows, as for a cancel");

	# ---- terminated during a SELECT that writes through a function
	$s = session($track);
	send_all($s, "SELECT load_then_wait(20000);\n");
	wait_until(qq{
SELECT wait_event_type = 'Lock' AND wait_event = 'advisory'
FROM pg_stat_activity WHERE pid = $s->{pid}},
		"track = $track: the SELECT has written through its function and waits for the lock");
	$node->safe_psql('postgres', "SELECT pg_terminate_backend($s->{pid})");
	wait_gone($s->{pid}, "track = $track, writing SELECT terminated");
	finish_psql($s);
	is(statements_of($s->{pid}),
		$track eq 'all'
		? 'SELECT:error:t:t,INSERT:ok:t:t'
		: 'SELECT:error:t:t',
		"track = $track: a terminated SELECT that wrote is recorded as an error, with its WAL"
		  . ($track eq 'all' ? ', beside its nested INSERT' : ''));
	is(xacts_of($s->{pid}), 'abort/1/t', "track = $track: its transaction as an abort");

	# ---- not recorded: a terminated SELECT that only read
	$s = session($track);
	send_all($s, "SELECT read_then_wait();\n");
	wait_until(qq{
SELECT wait_event_type = 'Lock' AND wait_event = 'advisory'
FROM pg_stat_activity WHERE pid = $s->{pid}},
		"track = $track: a reading SELECT waits for the lock");
	$node->safe_psql('postgres', "SELECT pg_terminate_backend($s->{pid})");
	wait_gone($s->{pid}, "track = $track, reading SELECT terminated");
	finish_psql($s);
	is(rows_of($s->{pid}, 'xacts') . '/' . rows_of($s->{pid}, 'statements'), '0/0',
		"track = $track: a terminated SELECT that only read is not recorded");
}

# ---- a session with a temporary table: core's exit callback that drops it,
# registered after walload's, aborts the open transaction before walload's
# runs
{
	my $s = copy_waiting('top', 0, "CREATE TEMP TABLE tmp (id int);\n");
	$node->safe_psql('postgres', "SELECT pg_terminate_backend($s->{pid})");
	wait_gone($s->{pid}, 'COPY terminated in a session with a temporary table');
	finish_psql($s);
	is(statements_of($s->{pid}), 'CREATE TABLE:ok:t:t,INSERT:ok:t:t,COPY:error:t:t',
		'with a temporary table: the terminated COPY is recorded as an error');
	is(xacts_of($s->{pid}), 'commit/1/t,abort/2/t',
		'its transaction as an abort, the exit\'s drop of the temporary table not at all');
}

# ---- a lost client during an executor statement: client_connection_check_interval
# finds the socket closed, a FATAL
{
	my $s = insert_waiting('top', "SET client_connection_check_interval = '10ms';\n");
	$s->{h}->kill_kill;
	wait_gone($s->{pid}, 'INSERT of a lost client');
	is(statements_of($s->{pid}), 'INSERT:error:t:t',
		"a lost client's INSERT is recorded as an error, with its WAL");
	is(xacts_of($s->{pid}), 'abort/1/t', 'its transaction as an abort');
	ok($node->log_contains("FATAL:  connection to client lost"), 'it was a FATAL');
}

# ---- a lost client during a COPY FROM STDIN in a transaction block: the
# COPY fails on the EOF, the transaction ends at the exit
{
	my $s = copy_waiting('top', 0);
	$s->{h}->kill_kill;
	wait_gone($s->{pid}, 'COPY of a lost client');
	is(statements_of($s->{pid}), 'INSERT:ok:t:t,COPY:error:t:t',
		"a lost client's COPY is recorded as an error");
	is(xacts_of($s->{pid}), 'abort/2/t', 'its transaction as an abort');
}

# ---- idle_in_transaction_session_timeout: between statements, in a block
{
	my $s = session();
	# one message (psql's \;): the session is not idle between BEGIN and INSERT
	send_all($s, "SET idle_in_transaction_session_timeout = '10ms';\n"
		  . "BEGIN \\; INSERT INTO t_idle SELECT generate_series(1, 1000);\n");
	# psql stays connected, idle, until the server ends the session
	wait_gone($s->{pid}, 'idle in transaction');
	finish_psql($s);
	ok($node->log_contains('FATAL:  terminating connection due to idle-in-transaction timeout'),
		'the session was ended by idle_in_transaction_session_timeout');
	is(statements_of($s->{pid}), 'INSERT:ok:t:t', 'the INSERT is recorded as done');
	is(xacts_of($s->{pid}), 'abort/1/t', 'the open transaction as an abort');
}

# ---- what must not change: a cancel records what it recorded before
{
	my $s = copy_waiting('top', 0);
	$node->safe_psql('postgres', "SELECT pg_cancel_backend($s->{pid})");
	send_all($s, "1\tone more\n\\.\nROLLBACK;\nSELECT 'after';\n");
	$s->{h}->pump until $s->{out} =~ /after/ || $s->{timer}->is_expired;
	like($s->{err}, qr/ERROR:  canceling statement due to user request/, 'the COPY was cancelled');
	is(statements_of($s->{pid}), 'INSERT:ok:t:t,COPY:error:t:t',
		'a cancelled COPY is recorded as an error, as a terminated one');
	is(xacts_of($s->{pid}), 'abort/2/t', 'its transaction as an abort');

	# ... and a clean disconnect without a transaction open adds nothing
	send_all($s, "INSERT INTO t_idle VALUES (1);\n\\q\n");
	wait_gone($s->{pid}, 'clean disconnect');
	finish_psql($s);
	is(xacts_of($s->{pid}), 'abort/2/t,commit/1/t', 'a clean disconnect records nothing more');
	is(rows_of($s->{pid}, 'statements'), '3', 'nor any statement');
}

# ---- nor does a backend terminated while idle, outside a transaction
{
	my $s = session();
	send_all($s, "INSERT INTO t_idle VALUES (2);\nSELECT 'done';\n");
	$s->{h}->pump until $s->{out} =~ /done/ || $s->{timer}->is_expired;
	wait_until(qq{SELECT state = 'idle' FROM pg_stat_activity WHERE pid = $s->{pid}},
		'the session is idle');
	$node->safe_psql('postgres', "SELECT pg_terminate_backend($s->{pid})");
	wait_gone($s->{pid}, 'terminated while idle');
	finish_psql($s);
	is(xacts_of($s->{pid}), 'commit/1/t', 'terminated while idle: only its committed transaction');
}

# the controller, never terminated, is recorded for nothing it did not do
send_all($ctl, "\\q\n");
finish_psql($ctl);
is(rows_of($ctl->{pid}, 'statements'), '0', 'the controller ran nothing walload records');

$node->stop;
done_testing();

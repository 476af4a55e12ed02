# SQLsmith (Debian package sqlsmith) against a server with walload and
# pg_stat_statements preloaded and walload.track = all (issue 15, part 2).
#
# SQLsmith generates random queries (SELECT, and INSERT / UPDATE / DELETE /
# MERGE with data-modifying WITH) from the catalog.  Alone it hardly reaches
# walload's paths, which are about DDL and bulk loads, so the database gets
# tables of a non-superuser role "smith" and plpgsql functions of its own
# that run DDL and loads (CREATE TABLE, INSERT ... SELECT, CREATE INDEX,
# TRUNCATE, ALTER TABLE rewrites, DROP; with EXCEPTION blocks, so errors and
# subtransactions too), which SQLsmith calls with random arguments, nested in
# random queries.  walload_reset() and walload_calibrate() are granted to
# smith: SQLsmith calls them too, while the other functions are recording.
# SQLsmith runs as smith (a superuser's random function calls could
# terminate backends or write files), with statement_timeout = 1s.
#
# Passes when: no backend was terminated by a signal, no PANIC, no internal
# error (XX000) raised from walload's code (its source files are the ones
# named in walload.so: elog records __FILE__), the server is still the same
# server (postmaster start time unchanged), and afterwards every view of
# walload is readable and within its bounds.
#
# Environment: SQLSMITH_QUERIES (default 3000), SQLSMITH_SEED (default 1),
# SQLSMITH_TIMEOUT (seconds SQLsmith may run, default 240).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use IPC::Run;
use Test::More;

my ($smith) = grep { -x $_ } map { "$_/sqlsmith" } split /:/, $ENV{PATH};
plan skip_all => 'sqlsmith is not installed (Debian package sqlsmith)' unless $smith;

my $queries = $ENV{SQLSMITH_QUERIES} // 3000;
my $seed = $ENV{SQLSMITH_SEED} // 1;
my $limit = $ENV{SQLSMITH_TIMEOUT} // 240;

my $node = PostgreSQL::Test::Cluster->new('walload_sqlsmith');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'walload,pg_stat_statements'
walload.track = all
pg_stat_statements.track = all
autovacuum = off
max_prepared_transactions = 5
log_error_verbosity = verbose
log_statement = none
log_min_messages = warning
walload.max_xacts = 200
walload.max_statements = 1000
walload.max_stats = 300
});
$node->start;

my $libdir = $node->config_data('--pkglibdir');
open my $so, '<:raw', "$libdir/walload.so" or die "cannot read $libdir/walload.so: $!";
my $bin = do { local $/; <$so> };
close $so;
my %walload_files = map { $_ => 1 } grep { $_ ne 'crtstuff.c' } ($bin =~ /([A-Za-z0-9_]+\.c)\0/g);
ok(scalar(keys %walload_files) > 0,
	'walload.so names its source files: ' . join(' ', sort keys %walload_files));

$node->safe_psql('postgres', q{
CREATE EXTENSION walload;
CREATE EXTENSION pg_stat_statements;
CREATE ROLE smith LOGIN;
GRANT pg_read_all_stats TO smith;
GRANT EXECUTE ON FUNCTION walload_reset() TO smith;
GRANT EXECUTE ON FUNCTION walload_calibrate(integer) TO smith;
ALTER ROLE smith SET statement_timeout = '1s';
CREATE SCHEMA smith AUTHORIZATION smith;
});
$node->safe_psql('postgres', q{
SET ROLE smith;
SET search_path = smith;
CREATE TABLE load_a (id int PRIMARY KEY, v text, n numeric);
INSERT INTO load_a SELECT g, md5(g::text), g / 7.0 FROM generate_series(1, 2000) g;
CREATE TABLE load_b (id int, a_id int REFERENCES load_a, t timestamptz DEFAULT now());
INSERT INTO load_b SELECT g, 1 + g % 2000 FROM generate_series(1, 3000) g;
CREATE INDEX ON load_b (a_id);
CREATE UNLOGGED TABLE load_u AS SELECT g AS id, repeat('x', g % 50) AS v FROM generate_series(1, 1000) g;
CREATE MATERIALIZED VIEW load_mv AS SELECT a_id, count(*) AS n FROM load_b GROUP BY a_id;
CREATE SEQUENCE load_seq;

-- a table made, loaded, indexed, truncated and dropped in one call
CREATE FUNCTION churn(n int) RETURNS int LANGUAGE plpgsql AS $$
DECLARE m int := least(abs(coalesce(n, 0)), 5000); t text := 'churn_' || txid_current();
BEGIN
  EXECUTE format('CREATE TABLE %I (id int, v text)', t);
  EXECUTE format('INSERT INTO %I SELECT g, md5(g::text) FROM generate_series(1, %s) g', t, m);
  EXECUTE format('CREATE INDEX ON %I (id)', t);
  IF m % 2 = 0 THEN EXECUTE format('TRUNCATE %I', t); END IF;
  EXECUTE format('ALTER TABLE %I ADD COLUMN r float8 DEFAULT random()', t);
  EXECUTE format('DROP TABLE %I', t);
  RETURN m;
END $$;
-- the same, failing half way, caught in an EXCEPTION block
CREATE FUNCTION churn_fail(n int) RETURNS int LANGUAGE plpgsql AS $$
BEGIN
  BEGIN
    PERFORM churn(n);
    CREATE TABLE churn_failing (id int);
    INSERT INTO churn_failing VALUES (1 / (coalesce(n, 0) % 3));
    DROP TABLE churn_failing;
  EXCEPTION WHEN division_by_zero THEN
    RETURN -1;
  END;
  RETURN 1;
END $$;
-- loads into the shared tables, rewrites and refreshes them
CREATE FUNCTION load_more(n int) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE m int := least(abs(coalesce(n, 0)), 2000); r bigint;
BEGIN
  INSERT INTO load_u SELECT g, md5(g::text) FROM generate_series(1, m) g;
  DELETE FROM load_u WHERE id > 5000;
  REFRESH MATERIALIZED VIEW load_mv;
  SELECT count(*) INTO r FROM load_u;
  RETURN r;
END $$;
CREATE TABLE smith_rw (id int PRIMARY KEY);
INSERT INTO smith_rw SELECT generate_series(1, 500);
CREATE FUNCTION rewrite(n int) RETURNS int LANGUAGE plpgsql AS $$
BEGIN
  IF coalesce(n, 0) % 2 = 0 THEN
    CREATE TEMP TABLE IF NOT EXISTS smith_tmp (id int);
    INSERT INTO smith_tmp SELECT generate_series(1, 100);
    TRUNCATE smith_tmp;
  ELSE
    ALTER TABLE smith_rw ALTER COLUMN id TYPE bigint;
    ALTER TABLE smith_rw ALTER COLUMN id TYPE int;
    CLUSTER smith_rw USING smith_rw_pkey;
  END IF;
  RETURN n;
END $$;
CREATE FUNCTION sql_load(n int) RETURNS bigint LANGUAGE sql AS $$
  INSERT INTO load_b (id, a_id) SELECT g, 1 + g % 2000 FROM generate_series(1, least(abs(coalesce(n, 0)), 500)) g;
  DELETE FROM load_b WHERE id > 3000;
  SELECT count(*) FROM load_b;
$$;
-- what SQLsmith reaches by itself: relations.  Views that run the loads
-- when read, and statement triggers that run them under its INSERT /
-- UPDATE / DELETE / MERGE (nested DDL under DML, aborted with it when the
-- statement fails or times out)
CREATE VIEW churn_view AS SELECT g AS n, churn(g * 37) AS churned FROM generate_series(1, 2) g;
CREATE VIEW churn_fail_view AS SELECT churn_fail(g) AS r FROM generate_series(1, 3) g;
CREATE VIEW load_view AS SELECT load_more(300) AS n, rewrite(1) AS r1, rewrite(2) AS r2, sql_load(50) AS l;
CREATE FUNCTION trg_load() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM churn(TG_NARGS + 40);
  IF TG_OP = 'DELETE' THEN PERFORM rewrite(1); ELSE PERFORM churn_fail(3); END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER load_a_stmt AFTER INSERT OR UPDATE OR DELETE ON load_a FOR EACH STATEMENT EXECUTE FUNCTION trg_load();
CREATE TRIGGER load_b_stmt AFTER INSERT OR UPDATE OR DELETE ON load_b FOR EACH STATEMENT EXECUTE FUNCTION trg_load();
CREATE TRIGGER load_u_stmt BEFORE INSERT OR UPDATE OR DELETE ON load_u FOR EACH STATEMENT EXECUTE FUNCTION trg_load();
});

my $start_time = $node->safe_psql('postgres', 'SELECT pg_postmaster_start_time()');
# the functions work (so that what SQLsmith reaches is the load, not errors)
is($node->safe_psql('postgres', 'SET ROLE smith; SET search_path = smith;
	SELECT churn(10), churn_fail(3), churn_fail(4), load_more(5), rewrite(1), rewrite(1), rewrite(2), sql_load(3)'),
	'10|-1|1|1005|1|1|2|3003', 'the DDL functions SQLsmith can call run');
$node->safe_psql('postgres', 'SELECT walload_reset(); SELECT pg_stat_statements_reset()');

my $connstr = $node->connstr('postgres') . ' user=smith options=--search_path=smith,public';
my ($out, $err) = ('', '');
my $timer = IPC::Run::timer($limit);
my $t0 = time;
my $h = IPC::Run::start([ $smith, "--target=$connstr", "--seed=$seed", "--max-queries=$queries", '--exclude-catalog', '--verbose' ],
	'>', \$out, '2>', \$err, $timer);
eval { $h->finish; };
my $timed_out = $timer->is_expired;
if ($timed_out) { $h->kill_kill; }
my $secs = time - $t0;
my $rc = $h->result(0);
note("sqlsmith --seed=$seed --max-queries=$queries: exit status " . ($rc // 'none') . ", ${secs}s");
# its last progress report and error summary
my @tail = (split /\n/, $err)[-12 .. -1];
note($_) for grep { defined } @tail;
ok(!$timed_out, "sqlsmith ran its $queries queries within ${limit}s (${secs}s)");
ok(defined $rc && $rc == 0, 'sqlsmith exited normally (it stops on a broken connection)');

# the server: the same one, alive
is($node->safe_psql('postgres', 'SELECT pg_postmaster_start_time()'), $start_time,
	'the server was not restarted (no crash and reinitialisation)');
# the log, line by line (a regular expression over the whole of a long
# run's log backtracks for minutes)
my (@signal, @panic, @internal, @ours);
my $pending;
open my $lf, '<', $node->logfile or die "cannot read the server log: $!";
while (my $line = <$lf>)
{
	push @signal, $line if $line =~ /terminated by signal/;
	push @panic, $line if $line =~ /PANIC:/;
	if ($line =~ /ERROR:  XX000: (.*)/)
	{
		$pending = $1;
	}
	elsif (defined $pending && $line =~ /LOCATION:  (\S+), ([A-Za-z0-9_]+\.c):\d+/)
	{
		push @internal, "$pending ($1, $2)";
		push @ours, "$pending ($1, $2)" if $walload_files{$2};
		undef $pending;
	}
}
close $lf;
ok(!@signal, 'no backend terminated by a signal') or diag(join '', @signal);
ok(!@panic, 'no PANIC') or diag(join '', @panic);
note('internal errors (XX000) in the log: ' . scalar(@internal) . ', of them from walload: ' . scalar(@ours));
note($_) for @internal[0 .. ($#internal < 9 ? $#internal : 9)];
ok(!@ours, 'no internal error raised from walload\'s code') or diag(join "\n", @ours);

# what SQLsmith made walload record
my $info = $node->safe_psql('postgres',
	'SELECT xacts_recorded, statements_recorded, stats_entries, stats_evicted, full_scans FROM walload_info');
note("walload_info after the run: xacts_recorded|statements_recorded|stats_entries|stats_evicted|full_scans = $info");
my ($xr, $sr) = split /\|/, $info;
note('calls of the DDL functions and of walload\'s (pg_stat_statements, successful): ' . $node->safe_psql('postgres', q{
SELECT string_agg(f || '=' || n, ' ') FROM (
  SELECT f, coalesce(sum(p.calls) FILTER (WHERE p.query ~ ('\\m' || f || '\\M')), 0) AS n
  FROM unnest(ARRAY['churn', 'churn_fail', 'load_more', 'rewrite', 'sql_load', 'churn_view', 'load_view', 'walload_reset', 'walload_calibrate']) f
  CROSS JOIN pg_stat_statements p WHERE p.toplevel GROUP BY f ORDER BY f) s}));
note('statements recorded, by command (walload_stats): ' . $node->safe_psql('postgres',
	q{SELECT string_agg(command || '=' || n, ' ' ORDER BY n DESC) FROM (SELECT command, sum(calls) AS n FROM walload_stats GROUP BY 1) s}));
ok($sr > 0, "walload recorded statements during the run ($sr)");

# the views, readable and within their bounds
my %max = map { $_ => $node->safe_psql('postgres', "SHOW walload.$_") } qw(max_xacts max_statements max_stats);
is($node->safe_psql('postgres', qq{
SELECT (SELECT count(*) FROM walload_xacts) <= $max{max_xacts},
       (SELECT count(*) FROM walload_statements) <= $max{max_statements},
       (SELECT count(*) FROM walload_stats) <= $max{max_stats},
       (SELECT stats_entries FROM walload_info) <= $max{max_stats},
       (SELECT count(*) FROM walload_xacts) <= (SELECT xacts_recorded FROM walload_info),
       (SELECT count(*) FROM walload_statements) <= (SELECT statements_recorded FROM walload_info)}),
	't|t|t|t|t|t', 'rings and statistics table within their bounds, and within what was recorded');
is($node->safe_psql('postgres', q{
SELECT count(*) FILTER (WHERE total_ms < 0 OR commit_ms < 0 OR full_scans < 0 OR statements < 0 OR rows < 0
                               OR full_scans <> scans_flush_rel + scans_flush_pending + scans_drop_rel
                                                + scans_drop_pending + scans_db
                               OR xact_end < xact_start OR outcome NOT IN ('commit', 'abort', 'prepare'))
FROM walload_xacts}), '0', 'walload_xacts: no negative figure, scans add up, known outcomes');
is($node->safe_psql('postgres', q{
SELECT count(*) FILTER (WHERE elapsed_ms < 0 OR rows < 0 OR full_scans < 0 OR nest_level < 0
                               OR status NOT IN ('ok', 'error') OR (nest_level = 0) <> toplevel)
FROM walload_statements}), '0', 'walload_statements: no negative figure, nesting and toplevel agree');
is($node->safe_psql('postgres', q{
SELECT count(*) FILTER (WHERE calls < 1 OR errors > calls OR min_ms > max_ms OR total_ms < 0 OR rows < 0)
FROM walload_stats}), '0', 'walload_stats: calls, errors, times consistent');
my ($drc, $dout, $derr) = $node->psql('postgres', 'SELECT count(*) >= 0 FROM walload_diagnose()');
is($drc, 0, 'walload_diagnose() runs') or diag($derr);
# pg_stat_statements beside it: no walload aggregate has more successful
# calls than pg_stat_statements' for the same statement (walload_reset()
# only lowers walload's side).  Nested utility statements are left out:
# pg_stat_statements (15 to 17 at least) zeroes the queryId of the cached
# PlannedStmt after a utility statement's first run (pgss_ProcessUtility:
# "pstmt->queryId = UINT64CONST(0)"), so a plpgsql function's CLUSTER run
# three times in a session is counted once there, three times by walload.
is($node->safe_psql('postgres', q{
SELECT count(*) FROM walload_stats w JOIN pg_stat_statements p USING (userid, dbid, queryid, toplevel)
WHERE w.calls - w.errors > p.calls
  AND (w.toplevel OR w.command IN ('SELECT', 'INSERT', 'UPDATE', 'DELETE', 'MERGE'))}), '0',
	'no walload aggregate counts more successful calls than pg_stat_statements for the same statement');

$node->stop;
done_testing();

# An abort deletes the files its transaction (or subtransaction) created,
# and core's walk of shared_buffers invalidates each of their buffers
# (DropRelFileNodesAllBuffers): a rolled-back load leaves thousands.
# walload cannot size the files on the abort path (that is file I/O), so it
# counts their buffers in the pool as it counts a dropped database's
# (model.c wl_model_abort_drop_scan), when the transaction dirtied or
# read enough blocks for them to matter (accumulator.c abort_buffers_bound).
# This checks the count in the walk's DEBUG2 line against pg_buffercache's
# exact one, read just before the ROLLBACK: for a transaction and for a
# savepoint, within 10%; for a table created empty, none; and none either
# where the files the transaction created hold none while it dirtied
# thousands of another table's blocks.
#
# A prepared transaction's files are deleted by COMMIT PREPARED (what it
# dropped) or ROLLBACK PREPARED (what it created), in another transaction
# that cannot see them: walload sizes them at PREPARE (model.c
# wl_model_commit) and prices the walk with their buffers then.  Checked the
# same way for both, and where the finishing deletes nothing (a table
# dropped, then ROLLBACK PREPARED; a table created, then COMMIT PREPARED),
# that no walk is priced.
#
# And the count where the files' buffers lie in two places far apart in the
# pool (a load, another table's load, a load again): the sample's hits span
# more than the 192 stretches the count covers whole, so only the stretches
# it hit and their neighbours are counted, which still finds every buffer
# of two dense runs.  And where the files' buffers are spread in small runs
# over more than 64 of the sample's stretches: each stretch is priced from
# its run's hits, scaled to the stretch.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use WalloadTAP;

my $node = calibrated_node('walload_abort_buffers', q{
shared_buffers = 1GB
autovacuum = off
max_prepared_transactions = 4
});
$node->safe_psql('postgres', 'CREATE EXTENSION pg_buffercache');
$node->safe_psql('postgres', q{
	CREATE TABLE old_big (a int, b text);
	INSERT INTO old_big SELECT g, repeat('o', 100) FROM generate_series(1, 200000) g;
});

# the buffers of table t, counted exactly in the running transaction
my $count_t = q{SELECT count(*) FROM pg_buffercache WHERE relfilenode = pg_relation_filenode('t');};

# the buffers the abort's walk (kind 3) was priced to invalidate
sub abort_walks
{
	my ($stderr) = @_;
	return $stderr =~ /walload: 1 walk\(s\) of kind 3 over \d+ file\(s\): .*?, (\d+) buffers invalidated/g;
}

# A session whose first output line is pg_buffercache's count of the
# buffers that its one walk to delete files finds (at least $min): the walk
# priced within 10% of it.  Returns the session's output lines.
sub priced_as_counted
{
	my ($what, $min, $sql) = @_;
	my ($out, $err) = debug2_session($node, $sql);
	my @lines = split /\n/, $out;
	my @w = abort_walks($err);
	cmp_ok($lines[0], '>=', $min, "premise: $what: the files deleted hold buffers ($lines[0])");
	is(scalar @w, 1, "$what: one walk to delete the files");
	cmp_ok(abs(($w[0] // -1) - $lines[0]), '<=', 0.1 * $lines[0],
		"$what: " . ($w[0] // 'none') . " buffers priced, $lines[0] in the pool");
	return @lines;
}

# a load rolled back: INSERT keeps its pages in shared buffers
priced_as_counted('ROLLBACK', 2000, qq{
	BEGIN;
	CREATE TABLE t (a int, b text);
	INSERT INTO t SELECT g, repeat('x', 100) FROM generate_series(1, 200000) g;
	$count_t
	ROLLBACK;
});

# the same in a savepoint rolled back (the subtransaction's abort)
priced_as_counted('ROLLBACK TO SAVEPOINT', 1500, qq{
	BEGIN;
	SAVEPOINT s;
	CREATE TABLE t (a int, b text);
	INSERT INTO t SELECT g, repeat('y', 100) FROM generate_series(1, 150000) g;
	$count_t
	ROLLBACK TO SAVEPOINT s;
	COMMIT;
});

# a table created empty: nothing to invalidate
my (undef, $err) = debug2_session($node, 'BEGIN; CREATE TABLE e (a int); ROLLBACK;');
my @w = abort_walks($err);
is(scalar @w, 1, 'an empty table rolled back: one walk');
is($w[0], '0', 'and no buffer priced');

# many blocks of another table dirtied (all of old_big: the bound on what
# the files can hold is large, so they are counted), but the table created
# holds none
(undef, $err) = debug2_session($node, q{
	BEGIN;
	CREATE TABLE e (a int);
	UPDATE old_big SET a = a + 1;
	ROLLBACK;
});
@w = abort_walks($err);
is(scalar @w, 1, 'a rolled-back transaction that dirtied much: one walk');
is($w[0], '0', 'and no buffer priced where the files it deletes hold none');

# ROLLBACK PREPARED deletes the files the prepared transaction created
priced_as_counted('ROLLBACK PREPARED', 2000, qq{
	BEGIN;
	CREATE TABLE t (a int, b text);
	INSERT INTO t SELECT g, repeat('p', 100) FROM generate_series(1, 200000) g;
	$count_t
	PREPARE TRANSACTION 'created';
	ROLLBACK PREPARED 'created';
});

# COMMIT PREPARED deletes the files of the table it dropped
$node->safe_psql('postgres', q{
	CREATE TABLE dropped (a int, b text);
	INSERT INTO dropped SELECT g, repeat('d', 100) FROM generate_series(1, 150000) g;
});
priced_as_counted('COMMIT PREPARED of a DROP TABLE', 1500, q{
	SELECT count(*) FROM pg_buffercache WHERE relfilenode = pg_relation_filenode('dropped');
	BEGIN;
	DROP TABLE dropped;
	PREPARE TRANSACTION 'dropped';
	COMMIT PREPARED 'dropped';
});

# the other way round, neither deletes anything: no walk, nothing priced
(undef, $err) = debug2_session($node, q{
	BEGIN;
	DROP TABLE old_big;
	PREPARE TRANSACTION 'kept';
	ROLLBACK PREPARED 'kept';
	BEGIN;
	CREATE TABLE c (a int, b text);
	INSERT INTO c SELECT g, repeat('c', 100) FROM generate_series(1, 200000) g;
	PREPARE TRANSACTION 'made';
	COMMIT PREPARED 'made';
});
@w = abort_walks($err);
is(scalar @w, 0,
	'ROLLBACK PREPARED of a DROP TABLE and COMMIT PREPARED of a new table: no walk priced');
is($node->safe_psql('postgres',
		q{SELECT count(*) > 2000 FROM pg_buffercache WHERE relfilenode IN
			(pg_relation_filenode('old_big'), pg_relation_filenode('c'))}),
	't', 'premise: both tables kept their buffers');

# two runs of the new table's buffers, 31000 buffers of another table
# between them (more than 192 of the sample's 1024 stretches of 128 apart)
$node->safe_psql('postgres', 'CREATE TABLE filler (a int, b text)');
my @lines = priced_as_counted('two runs apart', 600, qq{
	BEGIN;
	CREATE TABLE t (a int, b text);
	INSERT INTO t SELECT g, repeat('x', 100) FROM generate_series(1, 20000) g;
	INSERT INTO filler SELECT g, repeat('f', 100) FROM generate_series(1, 1800000) g;
	INSERT INTO t SELECT g, repeat('x', 100) FROM generate_series(1, 20000) g;
	$count_t
	SELECT max(bufferid) - min(bufferid) > 192 * (SELECT count(*) FROM pg_buffercache) / 1024,
	       count(DISTINCT bufferid / ((SELECT count(*) FROM pg_buffercache) / 1024)) <= 64
	  FROM pg_buffercache WHERE relfilenode = pg_relation_filenode('t');
	ROLLBACK;
});
is($lines[1], 't|t', 'premise: two runs more than 192 stretches apart, in at most 64 stretches');

# the new table's buffers spread over the pool in small runs, another
# table's between them: the sample finds it in more than 64 stretches, too
# many to count, so each stretch is priced from its run's hits alone
$node->safe_psql('postgres', 'CREATE TABLE filler2 (a int, b text)');
@lines = priced_as_counted('spread over the pool', 3000, qq{
	BEGIN;
	CREATE TABLE t (a int, b text);
	DO \$\$
	BEGIN
		FOR i IN 1..1500 LOOP
			INSERT INTO t SELECT g, repeat('x', 100) FROM generate_series(1, 230) g;
			INSERT INTO filler2 SELECT g, repeat('f', 100) FROM generate_series(1, 230) g;
		END LOOP;
	END
	\$\$;
	$count_t
	WITH n(n) AS (SELECT count(*) FROM pg_buffercache),
	  s AS (SELECT (bufferid - 1) / (n / 1024) AS s, count(*) AS c, n / 1024 AS len
			  FROM pg_buffercache, n WHERE relfilenode = pg_relation_filenode('t') GROUP BY 1, 3)
	SELECT count(*) FILTER (WHERE c * 4 >= len) > 80 FROM s;
	ROLLBACK;
});
is($lines[1], 't', 'premise: a quarter or more of the buffers of more than 80 stretches');

$node->stop;
done_testing();

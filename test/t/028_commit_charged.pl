# walload_stats.commit_ms: the measured commit (or abort) phase of a
# transaction charged to the statements whose files that phase acted on,
# split equally per file (docs/reference.md, walload_stats):
#
#   - under wal_level = minimal with wal_skip_threshold = 0 every file
#     created in the transaction is synced at commit: the sync phase goes
#     to the statements that created them (CREATE TABLE, CREATE TABLE AS),
#     none to the COPY that loaded one of them or to an UPDATE of an older
#     table; every pending sync has its creator, so the shares add up to
#     the sync phase;
#   - the commit of two DROP TABLEs: the cleanup phase goes to the DROPs,
#     adding up to it, none to the UPDATE beside them;
#   - a rolled-back CREATE TABLE: the abort phase goes to it, none to the
#     INSERT into its table;
#   - a transaction that creates and deletes no file, and under
#     wal_level = replica a CREATE TABLE + COPY (no pending sync): nothing
#     is charged;
#   - the charged time survives a clean restart (the stats file);
#   - under wal_level = replica a lone DROP TABLE's cleanup phase goes to it
#     (its commit reads which files it doomed); in a pipeline (statements
#     in one implicit transaction, no Sync between them) each statement
#     keeps its files: the DROP TABLE's deleted file is charged to it, not
#     to the CREATE TABLE after it, and at an abort the file a CREATE TABLE
#     created is charged to it, not to the DROP TABLE after it.
#
# Only > 0, = 0 and sums are asserted: no duration's size.
# matrix: once (walload's own split of a measured phase among the statements, the same on every version)
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

# per command: calls and commit_ms > 0, 0 or absent
sub charged
{
	my ($node) = @_;
	return $node->safe_psql('postgres', q{
SELECT string_agg(command || ':' || CASE WHEN commit_ms > 0 THEN 'charged' WHEN commit_ms = 0 THEN '0' ELSE 'bad' END,
                  ' ' ORDER BY command)
FROM (SELECT command, sum(commit_ms) AS commit_ms FROM walload_stats GROUP BY command) s});
}

# the shares charged add up to what the phase took (to rounding: each share
# is the phase times a fraction)
sub adds_up
{
	my ($node, $phase) = @_;
	return $node->safe_psql('postgres', qq{
SELECT abs(s.charged - x.phase) <= 1e-9 * x.phase AND x.phase > 0
FROM (SELECT sum(commit_ms) AS charged FROM walload_stats) s,
     (SELECT sum($phase) AS phase FROM walload_xacts) x});
}

my $node = PostgreSQL::Test::Cluster->new('walload_commit_charged');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'walload'
wal_level = minimal
max_wal_senders = 0
wal_skip_threshold = 0
autovacuum = off
});
$node->start;
$node->safe_psql('postgres', q{
CREATE EXTENSION walload;
CREATE TABLE old (id int);
INSERT INTO old VALUES (1);
});

# the sync phase: to the creators
$node->safe_psql('postgres', 'SELECT walload_reset()');
$node->safe_psql('postgres', qq{
BEGIN;
CREATE TABLE a (id int);
COPY a FROM STDIN;
1
2
3
\\.
CREATE TABLE b AS SELECT generate_series(1, 1000) AS id;
SELECT count(*) FROM a;
UPDATE old SET id = id + 1;
COMMIT;
});
is($node->safe_psql('postgres', 'SELECT synced_rels || \':\' || (commit_sync_ms > 0) FROM walload_xacts'),
	'2:true', 'the commit synced the two new files');
is(charged($node), 'COPY:0 CREATE TABLE:charged CREATE TABLE AS:charged UPDATE:0',
	'the sync phase is charged to CREATE TABLE and CREATE TABLE AS, not to the COPY or the UPDATE');
is(adds_up($node, 'commit_sync_ms'), 't',
	'each synced file had its creator: the shares add up to the sync phase');
is($node->safe_psql('postgres', q{
SELECT (SELECT sum(commit_ms) FROM walload_stats) <= (SELECT sum(commit_ms) FROM walload_xacts)}),
	't', 'and no more than the commit phase is charged');

# the cleanup phase: to the DROPs
$node->safe_psql('postgres', 'SELECT walload_reset()');
$node->safe_psql('postgres', q{
BEGIN;
DROP TABLE a;
UPDATE old SET id = id + 1;
DROP TABLE b;
COMMIT;
});
is($node->safe_psql('postgres', 'SELECT dropped_rels || \':\' || (commit_cleanup_ms > 0) FROM walload_xacts'),
	'2:true', 'the commit deleted the two files');
is(charged($node), 'DROP TABLE:charged UPDATE:0',
	'the cleanup phase is charged to the DROPs, not to the UPDATE');
is(adds_up($node, 'commit_cleanup_ms'), 't',
	'each deleted file had its DROP: the shares add up to the cleanup phase');

# an abort: to the statement that created what it deletes
$node->safe_psql('postgres', 'SELECT walload_reset()');
$node->safe_psql('postgres', q{
BEGIN;
CREATE TABLE c (id int);
INSERT INTO c VALUES (1);
ROLLBACK;
});
is($node->safe_psql('postgres', 'SELECT outcome || \':\' || dropped_rels FROM walload_xacts'),
	'abort:1', 'the abort deleted the new file');
is(charged($node), 'CREATE TABLE:charged INSERT:0',
	'the abort phase is charged to the CREATE TABLE, not to the INSERT');
is(adds_up($node, 'commit_cleanup_ms'), 't', 'all of it');

# no file: nothing charged
$node->safe_psql('postgres', 'SELECT walload_reset()');
$node->safe_psql('postgres', 'BEGIN; UPDATE old SET id = id + 1; UPDATE old SET id = id + 1; COMMIT;');
is($node->safe_psql('postgres', 'SELECT (commit_ms > 0) FROM walload_xacts'), 't',
	'a transaction without files has a commit phase');
is(charged($node), 'UPDATE:0', 'which is charged to no statement');

# kept across a clean restart
$node->safe_psql('postgres', 'SELECT walload_reset()');
$node->safe_psql('postgres', 'BEGIN; CREATE TABLE d (id int); UPDATE old SET id = id + 1; COMMIT;');
my $before = $node->safe_psql('postgres',
	q{SELECT string_agg(command || '=' || commit_ms::text, ' ' ORDER BY command) FROM walload_stats});
$node->restart;
is($node->safe_psql('postgres',
	q{SELECT string_agg(command || '=' || commit_ms::text, ' ' ORDER BY command) FROM walload_stats}),
	$before, 'the charged time is kept across a clean restart');
is($node->safe_psql('postgres',
	q{SELECT string_agg(command || ':' || (commit_ms > 0), ' ' ORDER BY command) FROM walload_stats}),
	'CREATE TABLE:true UPDATE:false', 'what was kept is the CREATE TABLE\'s charge');
$node->stop;

# wal_level = replica: no pending sync, nothing to charge at commit
my $rep = PostgreSQL::Test::Cluster->new('walload_commit_charged_replica');
$rep->init;
$rep->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'walload'
wal_level = replica
wal_skip_threshold = 0
autovacuum = off
});
$rep->start;
$rep->safe_psql('postgres', 'CREATE EXTENSION walload');
$rep->safe_psql('postgres', 'SELECT walload_reset()');
$rep->safe_psql('postgres', qq{
BEGIN;
CREATE TABLE a (id int);
COPY a FROM STDIN;
1
2
\\.
COMMIT;
});
is($rep->safe_psql('postgres', 'SELECT wal_skipped_rels || \':\' || (commit_sync_ms > 0) FROM walload_xacts'),
	'0:true', 'wal_level = replica: the commit has a sync phase and no pending sync');
is(charged($rep), 'COPY:0 CREATE TABLE:0', 'which is charged to no statement');

$rep->safe_psql('postgres', 'CREATE TABLE p0 (id int); CREATE TABLE p2 (id int); SELECT walload_reset()');
$rep->safe_psql('postgres', 'DROP TABLE a');
is($rep->safe_psql('postgres', 'SELECT dropped_rels || \':\' || (commit_cleanup_ms > 0) FROM walload_xacts'),
	'1:true', 'a lone DROP TABLE: the commit deleted its file');
is(charged($rep), 'DROP TABLE:charged', 'the cleanup phase is charged to it');
is(adds_up($rep, 'commit_cleanup_ms'), 't', 'all of it');

$rep->safe_psql('postgres', 'SELECT walload_reset()');
$rep->pgbench('--no-vacuum -M extended --transactions=1', 0, [qr{processed: 1/1}], [qr{^$}],
	'a pipeline: DROP TABLE, then CREATE TABLE, in one implicit transaction',
	{ 'walload_pipeline_commit' => "\\startpipeline\nDROP TABLE p0;\nCREATE TABLE p1 (id int);\n\\endpipeline\n" });
is($rep->safe_psql('postgres', 'SELECT count(*) || \':\' || sum(dropped_rels) FROM walload_xacts'),
	'1:1', 'one transaction, which deleted one file');
is(charged($rep), 'CREATE TABLE:0 DROP TABLE:charged',
	'the cleanup phase is charged to the DROP TABLE, not to the CREATE TABLE after it');
is(adds_up($rep, 'commit_cleanup_ms'), 't', 'all of it');

$rep->safe_psql('postgres', 'SELECT walload_reset()');
$rep->pgbench('--no-vacuum -M extended --transactions=1', 2, [qr{}], [qr{division by zero}],
	'a pipeline: CREATE TABLE, DROP TABLE, then an error: one aborted transaction',
	{ 'walload_pipeline_abort' => "\\startpipeline\nCREATE TABLE p3 (id int);\nDROP TABLE p2;\nSELECT 1 / 0;\n\\endpipeline\n" });
is($rep->safe_psql('postgres', 'SELECT outcome || \':\' || dropped_rels FROM walload_xacts'),
	'abort:1', 'the abort deleted the new file');
is(charged($rep), 'CREATE TABLE:charged DROP TABLE:0',
	'the abort phase is charged to the CREATE TABLE, not to the DROP TABLE after it');
$rep->stop;

done_testing();

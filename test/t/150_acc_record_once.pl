# A statement's record is written once, final (issue 54, item 2): a
# statement the commit or abort may charge (one that created files or
# scheduled their deletion) is held in its backend until the end of its
# transaction and stored then, with its share of the commit phase
# (commit_ms) and the commit's walks in it; nothing is added to a stored
# row or aggregate afterwards.  A commit is held open between its start and
# its end by a synchronous standby that does not exist (the commit waits
# in SyncRepWaitForLSN), and the store is read from another session.  The
# standby is named in postgresql.conf from the start, with
# synchronous_commit = local for every other transaction: a name set by
# ALTER SYSTEM and a reload reaches the committing backends only when the
# checkpointer has processed the reload, which a busy machine delays past
# the commit (the commit then does not wait).  Removing the name releases
# the waiting commit whenever the checkpointer gets to it.
#
#
#   - during the wait, the DROP TABLE of the committing transaction is in
#     neither walload_statements nor walload_stats (walload 1.10 stored it
#     at the commit's start with commit_ms 0, and added its share to the
#     stored row and aggregate at the commit's end);
#   - must still appear during the wait: the UPDATE beside it, which the
#     commit cannot charge, stored final at the commit's start;
#   - once the wait is released: the DROP TABLE's row, once, and its
#     aggregate with its share of the cleanup phase, all of it;
#   - past the backend's bound of WL_HELD_BOUND (1024) held statements,
#     the held statements are stored before the commit without a share
#     (docs/architecture.md): of 1030 DROP TABLEs in one transaction, the
#     last 6 are charged, the first 1024 are not, and what is charged is
#     6 of the phase's 1030 equal shares; past WL_QUEUE_BOUND (64), all
#     1024 were still held (a bound of 64 held statements would charge 6
#     of 70 DROP TABLEs, 1.11's first draft).
#
# Only counts, > 0 and sums are asserted: no duration's size.
# matrix: once (walload's own route of a held statement to the store, the same on every version)
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('walload_record_once');
$node->init(allows_streaming => 1);
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'walload'
walload.calibration = off
autovacuum = off
synchronous_standby_names = 'walload_absent'
synchronous_commit = local
});
$node->start;
$node->safe_psql('postgres', q{
CREATE EXTENSION walload;
CREATE TABLE old (id int);
INSERT INTO old VALUES (1);
CREATE TABLE a (id int);
SELECT walload_reset();
});

my $b = $node->background_psql('postgres');
my $pid = $b->query_safe('SELECT pg_backend_pid()');
$b->query_until(qr/committing/, q{
BEGIN;
SET LOCAL synchronous_commit = on;
UPDATE old SET id = id + 1;
DROP TABLE a;
\echo committing
COMMIT;
});
ok($node->poll_query_until('postgres',
		"SELECT wait_event = 'SyncRep' FROM pg_stat_activity WHERE pid = $pid"),
	'the commit waits for the absent standby');

my $rows = qq{SELECT coalesce(string_agg(command, ',' ORDER BY stmt_no), '')
FROM walload_statements WHERE pid = $pid AND command IN ('DROP TABLE', 'UPDATE')};
my $aggs = q{SELECT coalesce(string_agg(command || ':' || calls, ',' ORDER BY command), '')
FROM walload_stats WHERE command IN ('DROP TABLE', 'UPDATE')};
is($node->safe_psql('postgres', $rows), 'UPDATE',
	'during the commit: the UPDATE is stored, the DROP TABLE is not');
is($node->safe_psql('postgres', $aggs), 'UPDATE:1',
	'nor is the DROP TABLE in walload_stats');

$node->safe_psql('postgres', q{
ALTER SYSTEM SET synchronous_standby_names = '';
SELECT pg_reload_conf();
});
ok($node->poll_query_until('postgres',
		"SELECT count(*) = 1 FROM walload_xacts WHERE pid = $pid"),
	'the commit ended');
is($node->safe_psql('postgres', $rows), 'UPDATE,DROP TABLE',
	'after it, the DROP TABLE is stored, once');
is($node->safe_psql('postgres', $aggs), 'DROP TABLE:1,UPDATE:1',
	'and its aggregate');
is($node->safe_psql('postgres', qq{
SELECT d.commit_ms > 0 AND abs(d.commit_ms - x.commit_cleanup_ms) <= 1e-9 * x.commit_cleanup_ms
       AND u.commit_ms = 0
FROM walload_stats d, walload_stats u, walload_xacts x
WHERE d.command = 'DROP TABLE' AND u.command = 'UPDATE' AND x.pid = $pid}),
	't', 'with the whole cleanup phase as its share, none for the UPDATE');

# the bound: 1030 DROP TABLEs in one transaction
$node->safe_psql('postgres', q{
SELECT format('CREATE TABLE d%s (id int)', i) FROM generate_series(1, 1030) i \gexec
SELECT walload_reset();
});
$b->query_safe("BEGIN;\n"
	  . join('', map { "DROP TABLE d$_;\n" } 1 .. 1030)
	  . "COMMIT;\n");
is($node->safe_psql('postgres', q{
SELECT count(*) || ':' || count(*) FILTER (WHERE commit_ms > 0)
       || ':' || count(*) FILTER (WHERE commit_ms > 0 AND query ~ '^DROP TABLE d10(2[5-9]|30)$')
FROM walload_stats WHERE command = 'DROP TABLE'}),
	'1030:6:6', 'past the bound: the 6 statements held to the commit are charged, the first 1024 are not');
is($node->safe_psql('postgres', qq{
SELECT abs(s.charged - x.commit_cleanup_ms * 6 / 1030) <= 1e-9 * x.commit_cleanup_ms
FROM (SELECT sum(commit_ms) AS charged FROM walload_stats) s, walload_xacts x
WHERE x.pid = $pid AND x.statements = 1030}),
	't', 'and they are charged their 6 shares of the 1030 files deleted, not the whole phase');

# the bound crossed by a statement with subcommands (CREATE TABLE with a
# serial column runs CREATE SEQUENCE inside): the store empties the queue
# at its start, and its subcommands start with the queue empty and the
# record open
$node->safe_psql('postgres', 'SELECT walload_reset()');
$b->query_safe("BEGIN;\n"
	  . join('', map { "CREATE TABLE s$_ (a serial);\n" } 1 .. 1030)
	  . "COMMIT;\n");
is($node->safe_psql('postgres', q{
SELECT count(*) FROM walload_stats WHERE command = 'CREATE TABLE' AND query ~ '^CREATE TABLE s[0-9]+ '}),
	'1030', 'the 1030 CREATE TABLEs with a serial column in one transaction are all recorded');

$b->quit;
$node->stop;
done_testing();

# What walload.commit_strategy did, as each commit records it, and when it
# stands aside (issue 37, items 2-4):
#  - a transaction's own SET LOCAL wal_skip_threshold wins: the strategy
#    stands aside, core decides by it, and the record says so; a session's
#    SET does not (the strategy is as much the session's);
#  - walload_xacts.wal_skip_threshold_kb is the transaction's, read at its
#    commit (not after SET LOCAL was undone), and walload_diagnose() counts
#    what the commits recorded, not a comparison of settings;
#  - a statement that commits inside itself counts the commits changed;
#  - auto acts only on figures timed since the server's last start or
#    crash-restart: after a crash-restart the calibration worker runs
#    again, and auto decides once it is done; with walload.calibration =
#    off (no worker, no figures) it stands aside and core decides; wal and
#    sync, which need no figures, still act; walload_info.calibration says
#    which.
# Every assertion is on what core did (files fsynced or WAL-logged) and on
# what walload recorded, never on a duration.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use WalloadTAP;

my $node = PostgreSQL::Test::Cluster->new('walload_strategy_record');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'walload'
autovacuum = off
wal_level = minimal
max_wal_senders = 0
restart_after_crash = on
});
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION walload');

ok($node->poll_query_until('postgres', 'SELECT calibration FROM walload_info', 'done'),
	'the calibration of this start is done');

# one table of 100000 rows (443 blocks, 3.5 MB: above the default
# wal_skip_threshold of 2 MB) created in a transaction; returns the record
my $n = 0;
sub load
{
	my ($setup, $before_commit) = @_;
	$n++;
	$node->safe_psql('postgres', qq{
$setup
BEGIN;
$before_commit
CREATE TABLE t$n AS SELECT g FROM generate_series(1, 100000) g;
COMMIT;
});
	return $node->safe_psql('postgres', qq{
SELECT concat_ws('|', wal_skip_threshold_kb, commit_threshold_kb, coalesce(strategy_action, 'null'),
                 strategy_changed_commits, synced_rels, wal_logged_rels)
FROM walload_xacts
WHERE xact_id = (SELECT max(xact_id) FROM walload_statements WHERE query LIKE 'CREATE TABLE t$n %')});
}

# columns: the transaction's threshold, the one core used, the action, the
# commits changed, files fsynced, files WAL-logged
is(load("SET walload.commit_strategy = off;", ""), '2048|2048|null|0|1|0',
	'off: core fsyncs the file; nothing recorded of a strategy');
like(load("SET walload.commit_strategy = wal;", ""), qr/^2048\|35\d\d\|changed\|1\|0\|1$/,
	'wal: the threshold raised above the file, which is WAL-logged; the record says changed');
is(load("SET walload.commit_strategy = wal;", "SET LOCAL wal_skip_threshold = '64kB';"),
	'64|64|stood aside: SET LOCAL|0|1|0',
	"wal under the transaction's SET LOCAL wal_skip_threshold: the strategy stands aside, core fsyncs by 64 kB, read at the commit");
is(load("SET walload.commit_strategy = sync;",
		"SAVEPOINT s; SET LOCAL wal_skip_threshold = '8MB'; RELEASE s;"),
	'8192|8192|stood aside: SET LOCAL|0|0|1',
	'sync under a SET LOCAL made in a released savepoint: it stands aside, core WAL-logs by 8 MB');
like(load("SET walload.commit_strategy = wal; SET wal_skip_threshold = '64kB';", ""),
	qr/^64\|35\d\d\|changed\|1\|0\|1$/,
	"a session's SET wal_skip_threshold does not stop the strategy");
is(load("SET walload.commit_strategy = sync; SET wal_skip_threshold = 0;", ""),
	'0|0|kept|0|1|0',
	'sync where the threshold is 0 already: kept, nothing changed');
isnt(load("SET walload.commit_strategy = auto;", ""), undef, 'auto, calibrated: a load');
like($node->safe_psql('postgres', qq{
SELECT strategy_action FROM walload_xacts
WHERE xact_id = (SELECT max(xact_id) FROM walload_statements WHERE query LIKE 'CREATE TABLE t$n %')}),
	qr/^(kept|changed)$/, 'auto, calibrated: it decides (kept or changed), it does not stand aside');

# a statement that commits inside itself: VACUUM FULL of three tables under
# sync, one transaction per table, each with a new file to sync
$node->safe_psql('postgres', qq{
CREATE TABLE v1 AS SELECT g FROM generate_series(1, 1000) g;
CREATE TABLE v2 AS SELECT g FROM generate_series(1, 1000) g;
CREATE TABLE v3 AS SELECT g FROM generate_series(1, 1000) g;
});
$node->safe_psql('postgres', "SET walload.commit_strategy = sync; VACUUM FULL v1, v2, v3;");
# (inner_xacts also counts the transaction VACUUM commits before the first
# table, which has nothing to sync)
like($node->safe_psql('postgres', qq{
SELECT inner_xacts || '|' || strategy_changed_commits || '|' || strategy_action FROM walload_xacts
WHERE xact_id = (SELECT max(xact_id) FROM walload_statements WHERE command = 'VACUUM')}),
	qr/^[34]\|3\|changed$/, 'VACUUM FULL of three tables under sync: each of its three tables\' commits changed');

# walload_diagnose() counts what the commits recorded
$node->safe_psql('postgres', 'SELECT walload_reset()');
load("SET walload.commit_strategy = wal;", "SET LOCAL wal_skip_threshold = '64kB';");
my $ev = $node->safe_psql('postgres', qq{
SELECT detail FROM walload_findings() WHERE finding = 'walload chose how new files reach disk'});
like($ev, qr/set wal_skip_threshold for 0 of them/,
	'diagnose: a commit whose transaction set its own threshold is not counted as the strategy acting');
like($ev, qr/stood aside for 1 whose transaction set wal_skip_threshold itself/,
	'diagnose: ... and is counted as the strategy standing aside');
load("SET walload.commit_strategy = wal;", "");
$ev = $node->safe_psql('postgres', qq{
SELECT detail FROM walload_findings() WHERE finding = 'walload chose how new files reach disk'});
like($ev, qr/set wal_skip_threshold for 1 of them/, 'diagnose: the strategy acting is counted');
unlike($ev, qr/not timed since/, 'diagnose: no word of a missing calibration while it is done');

# a crash-restart: kill the WAL writer; the postmaster reinitializes
# shared memory (the figures are gone) and starts the calibration worker
# again, which calibrates anew
my $calibrated_before = $node->safe_psql('postgres', 'SELECT calibrated_at FROM walload_info');
my $walwriter = $node->safe_psql('postgres',
	"SELECT pid FROM pg_stat_activity WHERE backend_type = 'walwriter'");
ok($walwriter =~ /^\d+$/, "the WAL writer's pid ($walwriter)");
my $log_offset = -s $node->logfile;
kill 'KILL', $walwriter;
wait_crash_restart($node, $log_offset);
ok($node->poll_query_until('postgres', qq{
SELECT calibration = 'done' AND calibrated_at > '$calibrated_before' FROM walload_info}),
	'after a crash-restart, the worker calibrates again: done, and later than before the crash');
isnt(load("SET walload.commit_strategy = auto;", ""), undef, 'auto after the crash-restart: a load');
like($node->safe_psql('postgres', qq{
SELECT strategy_action FROM walload_xacts
WHERE xact_id = (SELECT max(xact_id) FROM walload_statements WHERE query LIKE 'CREATE TABLE t$n %')}),
	qr/^(kept|changed)$/, 'auto, calibrated again after the crash-restart: it decides');
$node->stop;

# no calibration at all (walload.calibration = off): no figures
$node = PostgreSQL::Test::Cluster->new('walload_strategy_uncalibrated');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'walload'
walload.calibration = off
autovacuum = off
wal_level = minimal
max_wal_senders = 0
});
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION walload');
is($node->safe_psql('postgres', 'SELECT calibration FROM walload_info'), 'off',
	'walload.calibration = off: walload_info says so');

is(load("SET walload.commit_strategy = auto;", ""), '2048|2048|stood aside: not calibrated|0|1|0',
	'auto without figures: it stands aside, core decides (fsyncs the file)');
like(load("SET walload.commit_strategy = wal;", ""), qr/^2048\|35\d\d\|changed\|1\|0\|1$/,
	'wal needs no figures: it still acts without a calibration');
$ev = $node->safe_psql('postgres', qq{
SELECT detail FROM walload_findings() WHERE finding = 'walload chose how new files reach disk'});
like($ev, qr/auto stood aside for 1, its figures not timed since/,
	'diagnose: auto standing aside for want of a calibration is said');

$node->stop;
done_testing();

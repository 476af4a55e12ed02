# What the server's own commits teach walload of its walks of shared_buffers
# (accumulator.c learn_from_commit, store.c wl_store_note_scan_time): a
# commit whose deletion's walk is most of what follows core's COMMIT
# callback, and at least 0.5 ms as the calibration estimates it, moves
# walload_info.scan_time_ratio; every estimate of a walk (est_scan_ms, the
# commit predictions) is the calibration's times that ratio, except the
# page faults of a backend's first walk, which are priced apart and neither
# scaled nor taught.  So the walks that teach are a session's later ones:
# at shared_buffers=8GB a cold walk takes about 2 ms here, and from 2GB on
# no header stays in this machine's CPU cache from one walk to the next (at
# 128MB, the pgTAP clusters', a walk is too short to teach).  Whether the
# learned ratio brings est_scan_ms nearer the real walks is the uprobe
# oracle's to say (test/oracle); this checks which commits teach, that the
# ratio is applied, and that walload_calibrate() starts it again.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('walload_scan_learning');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'walload'
shared_buffers = 8GB
wal_level = minimal
max_wal_senders = 0
autovacuum = off
});
$node->start;
# the calibration worker times the walks after the start, and a new
# calibration starts the learned ratio again: wait until it has exited (it
# has no row in pg_stat_activity; it is one of the postmaster's children)
my ($pm) = split /\n/, slurp_file($node->data_dir . '/postmaster.pid');
my $deadline = time + $PostgreSQL::Test::Utils::timeout_default;
while (`ps -o args= --ppid $pm` =~ /walload calibration/)
{
	die 'the calibration worker did not finish' if time > $deadline;
	select(undef, undef, undef, 0.1);
}
$node->safe_psql('postgres', 'CREATE EXTENSION walload');
$node->safe_psql('postgres',
	'CREATE TABLE d0 (a int); CREATE TABLE d1 (a int); CREATE TABLE d2 (a int)');

sub info
{
	return split /\|/, $node->safe_psql('postgres',
		'SELECT scan_time_ratio, scan_time_commits, file_commit_commits FROM walload_info');
}

my ($r0, $n0) = info();
is($n0, 0, 'no commit has taught the walks yet');
is($r0, 1, 'the ratio starts at 1');

# one session: DROP d0's walk maps the header pages (its page faults are
# most of it); those of d1 and d2 find them mapped, and no header cached
my @seen = split /\n/, $node->safe_psql('postgres', q{
	DROP TABLE d0;
	SELECT scan_time_ratio || '|' || scan_time_commits FROM walload_info;
	DROP TABLE d1;
	SELECT scan_time_ratio || '|' || scan_time_commits FROM walload_info;
	DROP TABLE d2;
	SELECT scan_time_ratio || '|' || scan_time_commits FROM walload_info;
});
my ($rw, $nw) = split /\|/, $seen[0];
my ($r1, $n1) = split /\|/, $seen[1];
my ($r2, $n2) = split /\|/, $seen[2];
is($nw, 0, 'the first walk of a session, most of it page faults, teaches nothing');
is($n1, $nw + 1, 'a DROP TABLE whose walk is most of its commit cleanup teaches once');
ok($r1 >= 0.25 && $r1 <= 4, "the ratio is within its bounds ($r1)");
is($n2, $n1 + 1, 'the next one teaches too');

my ($e1, $e2) = split /\n/, $node->safe_psql('postgres', q{
	SELECT x.est_scan_ms FROM walload_xacts x JOIN walload_statements s USING (xact_id)
	WHERE s.query ~ '^\s*DROP TABLE d[12]\M' ORDER BY x.xact_id});
ok(abs($e2 / $e1 - $r1 / $rw) < 1e-6,
	"the second walk's estimate is the first one's times the ratio learned in between ($e1 -> $e2 ms, ratio $rw -> $r1)");

# a commit whose walk is a small part of it: an fsync of about 24 MB
$node->safe_psql('postgres', q{
	BEGIN;
	CREATE TABLE big (a int, b text);
	INSERT INTO big SELECT g, repeat('s', 60) FROM generate_series(1, 250000) g;
	COMMIT;
});
my ($r3, $n3, $f3) = info();
is($node->safe_psql('postgres',
	q{SELECT x.scans_flush_pending FROM walload_xacts x JOIN walload_statements s USING (xact_id)
	  WHERE s.query LIKE 'CREATE TABLE big%'}), 1, 'the load was synced at commit, with a walk');
is($n3, $n2, 'a commit whose walk is a small part of it does not teach the walks');

# eight small new files WAL-logged at commit teach core's per-file work
$node->safe_psql('postgres',
	'BEGIN; ' . join(' ', map { "CREATE TABLE s$_ (a int); INSERT INTO s$_ VALUES (1);" } 1 .. 8) . ' COMMIT;');
my ($r5, $n5, $f5) = info();
is($f5, $f3 + 1, 'a commit of eight small new files teaches the per-file work');
is($n5, $n3, 'but not the walks (it walks nothing)');

# a new calibration of the walks starts the ratio again; the rest stays
$node->safe_psql('postgres', 'SELECT walload_calibrate(3)');
my ($r4, $n4, $f4) = info();
is("$r4 $n4", '1 0', 'walload_calibrate() starts the learned ratio of the walks again');
is($f4, $f5, 'and keeps what the commits taught of the storage and the per-file work');

$node->stop;
done_testing();

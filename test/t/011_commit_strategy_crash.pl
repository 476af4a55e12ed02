# walload.commit_strategy never changes what survives a crash: under
# wal_level=minimal, load tables under each strategy, check from
# walload_xacts that the commit really took the path the strategy names
# (fsync or WAL), crash the server (immediate stop: no shutdown checkpoint,
# no stats file), restart, and find every committed row, with the indexes
# valid (amcheck, heap and index together).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('walload_strategy');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'walload'
autovacuum = off
wal_level = minimal
max_wal_senders = 0
fsync = on
});
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION walload; CREATE EXTENSION amcheck');

# one large table (past wal_skip_threshold) and one small, in one
# transaction per strategy; 'off' is core's own choice
my %rows = (big => 60000, small => 10);
for my $s (qw(off wal sync auto))
{
	$node->safe_psql('postgres', qq{
SET walload.commit_strategy = '$s';
BEGIN;
CREATE TABLE big_$s (id int PRIMARY KEY, pad text);
INSERT INTO big_$s SELECT g, repeat('p', 60) FROM generate_series(1, $rows{big}) g;
CREATE TABLE small_$s (id int PRIMARY KEY);
INSERT INTO small_$s SELECT generate_series(1, $rows{small});
COMMIT;
});
	my ($synced, $logged, $threshold) = split /\|/, $node->safe_psql('postgres', qq{
SELECT synced_rels, wal_logged_rels, commit_threshold_kb FROM walload_xacts
WHERE xact_id = (SELECT max(xact_id) FROM walload_statements WHERE query LIKE 'CREATE TABLE big_$s%')});
	if ($s eq 'off')
	{
		ok($synced >= 1 && $logged >= 1 && $threshold == 2048,
			"off: core fsynced the large files and WAL-logged the small ones ($synced synced, $logged WAL-logged)");
	}
	elsif ($s eq 'wal')
	{
		ok($synced == 0 && $logged >= 4,
			"wal: every file WAL-logged ($logged), none fsynced, threshold $threshold kB");
	}
	elsif ($s eq 'sync')
	{
		ok($synced >= 4 && $logged == 0 && $threshold == 0,
			"sync: every file fsynced ($synced), none WAL-logged");
	}
	else
	{
		ok($synced + $logged >= 4, "auto: $synced fsynced, $logged WAL-logged, threshold $threshold kB");
	}
}

# the crash: no shutdown checkpoint; recovery replays the WAL of 'wal' and
# relies on the fsyncs of 'sync'
$node->stop('immediate');
$node->start;

for my $s (qw(off wal sync auto))
{
	is($node->safe_psql('postgres', "SELECT count(*) FROM big_$s"), $rows{big},
		"$s: every row of the large table after the crash");
	is($node->safe_psql('postgres', "SELECT count(*) FROM small_$s"), $rows{small},
		"$s: every row of the small table after the crash");
	my ($ok, $err) = $node->psql('postgres', qq{
SELECT bt_index_check('big_${s}_pkey', true), bt_index_check('small_${s}_pkey', true)});
	is($ok, 0, "$s: both primary keys valid against their heaps (amcheck)") or diag($err);
}

$node->stop;
done_testing();

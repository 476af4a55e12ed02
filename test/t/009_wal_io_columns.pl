# The WAL I/O columns (wal_writes, wal_syncs, wal_sync_ms) are filled on
# every version (15-17: the backend's pending WAL statistics; 18+: its own
# I/O statistics, pg_stat_get_backend_io()): in every session, including one
# that has recorded no statement of its own.  On 18+, a reset of the
# backend's statistics in the middle of a transaction loses none of its
# counts.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('walload_wal_io');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'walload'
autovacuum = off
# the backend, not the WAL writer, writes the INSERTs' WAL: a few WAL
# buffers fill at once, and the WAL writer sleeps between its rounds
# (otherwise whether the backend writes any depends on the machine's pace)
wal_buffers = 64kB
wal_writer_delay = 10s
});
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION walload; CREATE TABLE c1 (id int)');

# the WAL I/O columns are filled whether or not this session has recorded a
# statement of its own before
my $pgver = $node->safe_psql('postgres', q{SELECT current_setting('server_version_num')::int / 10000});
$node->safe_psql('postgres', 'INSERT INTO c1 SELECT generate_series(1, 1000)');
# (a session that records nothing: walload.track = none)
my $fresh = $node->safe_psql('postgres', q{SET walload.track = none;
SELECT count(*) FILTER (WHERE wal_syncs IS NULL) || '/' || count(*) FROM walload_xacts});
my $fresh_stmt = $node->safe_psql('postgres', q{SET walload.track = none;
SELECT count(*) FILTER (WHERE wal_writes IS NULL) || '/' || count(*) FROM walload_statements});
my $fresh_stats = $node->safe_psql('postgres', q{SET walload.track = none;
SELECT count(*) FILTER (WHERE wal_sync_ms IS NULL) || '/' || count(*) FROM walload_stats});
like($fresh, qr{^0/[1-9]}, "a session that has recorded nothing (walload.track = none): walload_xacts.wal_syncs is never NULL on $pgver (NULL/rows $fresh)");
like($fresh_stmt, qr{^0/[1-9]}, "nor walload_statements.wal_writes (NULL/rows $fresh_stmt)");
like($fresh_stats, qr{^0/[1-9]}, "nor walload_stats.wal_sync_ms (NULL/rows $fresh_stats)");

# 18+: pg_stat_reset_backend_stats() zeroes the entry walload reads; the
# counts read after it are added to those before
SKIP:
{
	skip "pg_stat_reset_backend_stats() is new in 18", 2 if $pgver < 18;
	my $r = $node->safe_psql('postgres', q{
SELECT walload_reset();
CREATE TABLE c2 (id int, t text);
BEGIN;
INSERT INTO c2 SELECT g, md5(g::text) FROM generate_series(1, 100000) g;
SELECT pg_stat_reset_backend_stats(pg_backend_pid());
INSERT INTO c2 SELECT g, md5(g::text) FROM generate_series(1, 100000) g;
COMMIT;
SELECT (SELECT string_agg(wal_writes::text, ',' ORDER BY stmt_no) FROM walload_statements
        WHERE query LIKE 'INSERT INTO c2%')
       || ' ' || x.wal_writes
FROM walload_xacts x
WHERE EXISTS (SELECT FROM walload_statements s WHERE s.xact_id = x.xact_id AND s.query LIKE 'INSERT INTO c2%')});
	$r = (split /\n/, $r)[-1];
	my ($w1, $w2, $xw) = $r =~ /^(\d+),(\d+) (\d+)$/;
	ok(defined $w1 && $w1 > 0 && $w2 > 0, "both INSERTs wrote WAL themselves ($r)");
	ok(defined $xw && $xw >= $w1 + $w2,
	   "the transaction's WAL writes include both, across the reset of the backend's statistics ($r)");
}

$node->stop;
done_testing();

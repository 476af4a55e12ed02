# The WAL I/O columns (wal_writes, wal_syncs, wal_sync_ms) are filled
# wherever the PostgreSQL version counts WAL I/O (15-17) and NULL where it
# does not (18+): in every session, including one that has recorded no
# statement of its own.
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
});
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION walload; CREATE TABLE c1 (id int)');

# the WAL I/O columns: a property of the version (on 15-17 filled), not of
# whether this session has recorded a statement of its own before
my $pgver = $node->safe_psql('postgres', q{SELECT current_setting('server_version_num')::int / 10000});
$node->safe_psql('postgres', 'INSERT INTO c1 SELECT generate_series(1, 1000)');
# (a session that records nothing: walload.track = none)
my $fresh = $node->safe_psql('postgres', q{SET walload.track = none;
SELECT count(*) FILTER (WHERE wal_syncs IS NULL) || '/' || count(*) FROM walload_xacts});
my $fresh_stmt = $node->safe_psql('postgres', q{SET walload.track = none;
SELECT count(*) FILTER (WHERE wal_writes IS NULL) || '/' || count(*) FROM walload_statements});
my $fresh_stats = $node->safe_psql('postgres', q{SET walload.track = none;
SELECT count(*) FILTER (WHERE wal_sync_ms IS NULL) || '/' || count(*) FROM walload_stats});
if ($pgver < 18)
{
	like($fresh, qr{^0/[1-9]}, "a session that has recorded nothing (walload.track = none): walload_xacts.wal_syncs is never NULL on $pgver (NULL/rows $fresh)");
	like($fresh_stmt, qr{^0/[1-9]}, "nor walload_statements.wal_writes (NULL/rows $fresh_stmt)");
	like($fresh_stats, qr{^0/[1-9]}, "nor walload_stats.wal_sync_ms (NULL/rows $fresh_stats)");
}
else
{
	like($fresh, qr{^(\d+)/\1$}, "walload_xacts.wal_syncs is NULL on $pgver ($fresh)");
	like($fresh_stmt, qr{^(\d+)/\1$}, "walload_statements.wal_writes is NULL on $pgver ($fresh_stmt)");
	like($fresh_stats, qr{^(\d+)/\1$}, "walload_stats.wal_sync_ms is NULL on $pgver ($fresh_stats)");
}

$node->stop;
done_testing();

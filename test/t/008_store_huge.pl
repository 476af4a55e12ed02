# walload.max_statements above what one palloc can copy: 2,500,000 slots of
# a statement record are more than 1 GB.  The readers of the ring
# (walload_statements, walload_diagnose) used to allocate the whole ring
# and failed with "invalid memory alloc request size".  About 1.2 GB of
# shared memory.
# matrix: once (walload's own ring readers, the same on every version)
# cassert: no (the ring's size only: its readers' code is the one 034 and the views' tests run with assertions)
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('walload_store_huge');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'walload'
autovacuum = off
walload.max_statements = 2500000
walload.max_xacts = 1000000
walload.track = all
});
$node->start;
$node->safe_psql('postgres', q{
CREATE EXTENSION walload;
CREATE TABLE h (id int);
VACUUM h;
INSERT INTO h VALUES (1);
});
like($node->safe_psql('postgres', q{SELECT shmem_bytes > 1024 * 1024 * 1024 FROM walload_info}),
	qr/^t$/, 'walload uses more than 1 GB of shared memory');

my ($rc, $out, $err) = $node->psql('postgres',
	q{SELECT count(*) FILTER (WHERE command = 'VACUUM') || '/' || count(*) FROM walload_statements});
is($rc, 0, 'walload_statements reads') or diag($err);
like($out, qr{^1/([2-9]|[1-9]\d+)$}, "with the recorded statements (VACUUM/all: $out)");

($rc, $out, $err) = $node->psql('postgres',
	q{SELECT count(*) FROM walload_diagnose() WHERE finding IN ('WAL written',
	  'full-page images of new files', 'full-page images after checkpoints')});
is($rc, 0, 'walload_diagnose() reads') or diag($err);
is($out, '1', 'and names the WAL written (one of its three WAL findings: which one depends on the version\'s page images)');
($rc, $out, $err) = $node->psql('postgres', q{SELECT count(*) FROM walload_xacts});
is($rc, 0, 'walload_xacts reads (max_xacts 1000000)') or diag($err);

# more than 1 GB of records copied at once: fill the ring with nested
# statements (a DO block of 2,300,000 statements, track = all; about 30 s,
# WALLOAD_HUGE_FILL=0 skips it)
if (($ENV{WALLOAD_HUGE_FILL} // '1') ne '0')
{
	my $t0 = time;
	$node->safe_psql('postgres', q{
DO $$ BEGIN FOR i IN 1 .. 2300000 LOOP INSERT INTO h VALUES (i); END LOOP; END $$});
	my $t1 = time;
	($rc, $out, $err) = $node->psql('postgres',
		q{SELECT count(*) FROM walload_statements});
	is($rc, 0, sprintf('walload_statements reads a ring of more than 1 GB (filled in %ds, read in %ds)',
		$t1 - $t0, time - $t1)) or diag($err);
	cmp_ok($out, '>=', 2300000, "all of it: $out rows");
	($rc, $out, $err) = $node->psql('postgres', q{SELECT count(*) FROM walload_diagnose()});
	is($rc, 0, 'walload_diagnose() too') or diag($err);
}

$node->stop;
done_testing();

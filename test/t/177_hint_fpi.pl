# With data checksums (or wal_log_hints), the first backend to set a hint bit
# on a page after a checkpoint logs a full-page image of it (FPI_FOR_HINT).
# Before DROP DATABASE and ALTER DATABASE ... SET TABLESPACE walload looks up
# the database's pg_database row (observe.c, observe_before): that look-up
# sets the row's hint bit, so the image core's own look-up would have logged
# is logged by walload's, before core's call.  The statement's WAL is taken
# from before walload's look-ups to after them (accumulator.c), so the
# statement keeps that image: its full-page images are all of its
# transaction's, its records all but the commit record if it is after it.  Without checksums and wal_log_hints no such image is logged
# and the figures are the same.  No timed figure is judged.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Cwd qw(abs_path);
use FindBin;
use lib $FindBin::RealBin;
use WalloadTAP;

# a node with walload, data checksums on or off (initdb's default is off
# before 18, on from 18: be explicit where initdb can be)
sub checksums_node
{
	my ($name, $checksums) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	my @extra;
	if ($checksums)
	{
		@extra = ('--data-checksums');
	}
	elsif ($node->pg_version >= 18)
	{
		@extra = ('--no-data-checksums');
	}
	$node->init(extra => \@extra);
	$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'walload'
autovacuum = off
wal_log_hints = off
walload.track = all
});
	$node->start;
	wait_calibration($node);
	$node->safe_psql('postgres', 'CREATE EXTENSION walload; CREATE EXTENSION pg_walinspect');
	is($node->safe_psql('postgres', 'SHOW data_checksums'), $checksums ? 'on' : 'off',
		"$name: data_checksums is " . ($checksums ? 'on' : 'off'));
	return $node;
}

# run $sql (one statement, $command) right after a checkpoint; returns its
# statement's and its transaction's "wal_fpi|wal_records", and the number of
# FPI_FOR_HINT records logged meanwhile
sub after_checkpoint
{
	my ($node, $sql, $command) = @_;
	$node->safe_psql('postgres', 'SELECT walload_reset(); CHECKPOINT');
	my $lsn = $node->safe_psql('postgres', 'SELECT pg_current_wal_insert_lsn()');
	$node->safe_psql('postgres', $sql);
	my $hint_fpis = $node->safe_psql('postgres', qq{
		SELECT count(*) FROM pg_get_wal_records_info('$lsn', pg_current_wal_flush_lsn())
		WHERE resource_manager = 'XLOG' AND record_type = 'FPI_FOR_HINT'});
	my $rows = $node->safe_psql('postgres', qq{
		SELECT s.wal_fpi || '|' || s.wal_records || ' ' || x.wal_fpi || '|' || x.wal_records
		FROM walload_statements s JOIN walload_xacts x USING (xact_id)
		WHERE s.command = '$command'});
	my @rows = split /\n/, $rows;
	is(scalar @rows, 1, "$command: one statement record");
	my ($stmt, $xact) = split / /, $rows[0] // '';
	return ($stmt, $xact, $hint_fpis);
}

for my $checksums (1, 0)
{
	my $name = $checksums ? 'walload_hint_fpi_on' : 'walload_hint_fpi_off';
	my $node = checksums_node($name, $checksums);
	# absolute: from 17 on a test's directories may be relative
	my $ts = abs_path(PostgreSQL::Test::Utils::tempdir());
	$node->safe_psql('postgres', "CREATE TABLESPACE ts LOCATION '$ts'");

	# the records of the transaction outside the statement: DROP DATABASE's
	# commit; none for ALTER DATABASE ... SET TABLESPACE, which commits inside
	# (movedb) and writes nothing after
	for my $case (
		[ 'CREATE DATABASE d_drop', 'DROP DATABASE d_drop', 'DROP DATABASE', 1 ],
		[ 'CREATE DATABASE d_move', 'ALTER DATABASE d_move SET TABLESPACE ts', 'ALTER DATABASE', 0 ],
		[ 'CREATE TABLE t_unlogged (i int)', 'ALTER TABLE t_unlogged SET UNLOGGED', 'ALTER TABLE', 1 ])
	{
		my ($create, $sql, $command, $outside) = @$case;
		$node->safe_psql('postgres', $create);
		my ($stmt, $xact, $hint_fpis) = after_checkpoint($node, $sql, $command);
		my ($s_fpi, $s_records) = split /\|/, $stmt // '';
		my ($x_fpi, $x_records) = split /\|/, $xact // '';
		note "$name, $command: statement $stmt, transaction $xact (wal_fpi|wal_records), $hint_fpis FPI_FOR_HINT";
		if ($checksums)
		{
			cmp_ok($hint_fpis, '>', 0, "$name, $command: premise: a hint bit's image was logged");
		}
		else
		{
			is($hint_fpis, '0', "$name, $command: no hint bit's image");
		}
		cmp_ok($s_fpi, '>', 0, "$name, $command: the statement logged full-page images");
		is($s_fpi, $x_fpi, "$name, $command: the statement's full-page images are its transaction's");
		is($s_records, $x_records - $outside,
			"$name, $command: the statement's records are its transaction's less the $outside after it");
	}
	$node->stop;
}

done_testing();

# Savings that do not overlap (issue 51, item 1): a commit that deletes
# files always flushes its record (xact.c RecordTransactionCommit), and
# with a synchronous standby it also waits for the standby.  That wait is
# the standby finding's (synchronous_commit = local spares all of it), so
# drop_in_one_transaction prices only the local part of the DROPs' commits:
# all but one of their sync parts less their waits, plus the walks it
# removes, never more than the recorded walks.  Here five DROPs, each its
# own transaction under remote_apply with a standby applying 20 ms late:
# the waits are counted by the standby finding and not again by the
# deletion's.  Unit costs fixed; only rules on the recorded figures are
# asserted, never a duration.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use WalloadTAP;

my $primary = PostgreSQL::Test::Cluster->new('walload_dropwait_primary');
$primary->init(allows_streaming => 1);
$primary->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'walload'
walload.calibration = off
walload.unit_costs = 'others=100'
autovacuum = off
track_wal_io_timing = on
});
$primary->start;
$primary->safe_psql('postgres', 'CREATE EXTENSION walload');
$primary->safe_psql('postgres', "CREATE TABLE d$_ (a int)") for 1 .. 5;
my $standby = sync_standby($primary, 'walload_dropwait_standby', '20ms');

$primary->safe_psql('postgres', "SELECT walload_reset()");
$primary->safe_psql('postgres',
	"SET application_name = 'drops';\nSET synchronous_commit = remote_apply;\n"
	  . join('', map { "DROP TABLE d$_;\n" } 1 .. 5));

is($primary->safe_psql('postgres', qq{
SELECT count(*) FROM walload_xacts WHERE application_name = 'drops' AND outcome = 'commit'
AND dropped_rels > 0 AND commit_standby_wait AND commit_standby_ms > 0}),
	'5', 'each DROP committed alone and waited for the standby');

my $bound = qq{
(SELECT round((4.0 / 5 * sum(commit_sync_ms - commit_standby_ms) + sum(est_scan_ms))::numeric, 1) + 0.1
 FROM walload_xacts WHERE application_name = 'drops' AND outcome = 'commit' AND dropped_rels > 0)};
is($primary->safe_psql('postgres', qq{
SELECT saving_ms > 0 AND saving_ms <= $bound FROM walload_findings(application_name => 'drops')
WHERE shape = 'drop_in_one_transaction'}),
	't', 'drop_in_one_transaction prices the local flushes and the walks, not the standby\'s waits');
is($primary->safe_psql('postgres', qq{
SELECT count(*) FROM walload_findings(application_name => 'drops')
WHERE finding = 'commits waited for a standby' AND saving_ms > 0}),
	'1', 'the waits are the standby finding\'s');

$standby->stop;
$primary->stop;
done_testing();

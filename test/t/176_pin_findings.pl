# walload_findings()'s texts under wal_level=minimal, pinned whole (issue
# 54): the commit-time sync of new files (by size, by truncation in
# place), load in many transactions, walload.commit_strategy's record
# (acting, standing aside for SET LOCAL, auto standing aside uncalibrated)
# and the WAL written under minimal.  sql/walload_findings.sql pins the
# others on one server of wal_level=replica.
#
# Each case shows every row of the session's findings, so that a finding
# the case must not make would show too: a load below wal_skip_threshold
# makes no sync finding, one transaction no "load in many transactions",
# walload.commit_strategy = off no record of a choice.  Every number is
# masked (#): durations and estimates from them.  So is the severity where
# a timed share decides it ("(timed)").  The what-ifs are priced at unit
# costs of 10 ns (walload.unit_costs) and a fsync ratio of 1, so that
# which change is priced, and which saves more, follows the counts on any
# machine.  Left out: the commit phase's and the small commits' findings,
# made by a timed share alone.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use WalloadTAP;

my $node = calibrated_node('walload_pin_findings', qq{
autovacuum = off
wal_level = minimal
max_wal_senders = 0
});
$node->safe_psql('postgres', q{
CREATE FUNCTION m(t text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT regexp_replace(t, '[0-9]+', '#', 'g')
$$});

# the case's statements after a checkpoint (the WAL's images the same on
# every run) and a reset, then its findings, every column, masked
sub findings
{
	my ($load) = @_;
	my $out = $node->safe_psql('postgres', qq{
SET walload.unit_costs = 'others=10, fsync_time_ratio=1';
CHECKPOINT;
SELECT walload_reset();
$load
} . q{
SELECT string_agg(format(E'severity: %s\nfinding: %s\nchange: %s\nevidence: %s\nhint: %s\nsetting: %s\nvalue: %s\nshape: %s\ndetail: %s\npriced: %s',
         CASE WHEN f.saving_ms IS NOT NULL
                OR (f.finding LIKE 'verdict: %' AND f.finding <> 'verdict: nothing avoidable found')
                OR f.finding IN ('full scans of shared buffers', 'commit-time sync of new files',
                                 'file deletion at commit/abort', 'in-place truncation')
              THEN '(timed)' ELSE f.severity END,
         f.finding, m(f.change), m(f.evidence), m(f.hint), f.setting, m(f.value), f.shape, m(f.detail),
         f.saving_ms IS NOT NULL), E'\n\n' ORDER BY f.finding)
FROM walload_findings(pid => pg_backend_pid()) f
WHERE f.finding NOT IN ('the commit phase dominates', 'many small synchronous commits')});
	$out =~ s/^\n+//;
	return "$out\n";
}

# PIN_PRINT=1 prints what each case gives (to write the texts below)
sub pin
{
	my ($name, $load, $want) = @_;
	my $got = findings($load);
	if ($ENV{PIN_PRINT})
	{
		diag("=== $name\n$got");
		return;
	}
	is($got, $want, $name);
}

my $WAL_MINIMAL = <<'EOT';
severity: info
finding: WAL written
change: 
evidence: #.# MB of WAL in # records, # page images
hint: a fact: tables created in the loading transaction skip WAL
setting: 
value: 
shape: 
EOT
my $WAL_MINIMAL_TAIL = 'Under wal_level=minimal, tables created or truncated in the loading transaction skip WAL; at commit, files below wal_skip_threshold are WAL-logged whole and larger ones are fsynced after a full scan of shared_buffers.';
my $SCANS = <<'EOT';
severity: (timed)
finding: full scans of shared buffers
change: 
evidence: # walk%s of # buffers, about #.# ms (#%)
hint: the causes follow
setting: 
value: 
shape: 
detail: # full scans of shared_buffers (# buffers each), an estimated #.# ms = #% of #.# ms in # transaction(s); commit-time sync #, file deletion #, truncation #, flush of one relation #, database #. Each scan walks every buffer header, so its cost grows with shared_buffers, not with the data. The findings below name the causes.
priced: f
EOT
my $SYNC_EVIDENCE = '# commit(s) synced # relation file(s) of # blocks (#.# MB) created in the same transaction under wal_level=minimal (# of them truncated in place, synced whatever the threshold); # smaller file(s) (# blocks) were WAL-logged instead; wal_skip_threshold = # kB. Relations created (or truncated) in the loading transaction skip WAL and are fsynced at commit after a scan of all shared buffers';
my $THRESHOLD = 'wal_skip_threshold = #kB (above the largest file not truncated in place) would WAL-log # file(s) at commit instead of syncing them, about #.# ms less.';
sub verdict
{
	my ($finding, $act) = @_;
	return <<"EOT";
severity: (timed)
finding: verdict: $finding
change: 
evidence: #.# ms of #.# ms (#%) avoidable; all #: #.# ms
hint: $act
setting: 
value: 
shape: 
detail: the largest avoidable cost: about #.# ms of the load's #.# ms (#%); # priced change together, about #.# ms. $act.
priced: f
EOT
}
my $NOTHING = <<'EOT';
severity: info
finding: verdict: nothing avoidable found
change: 
evidence: no priced change would save time
hint: see the facts below
setting: 
value: 
shape: 
detail: no change priced by the what-if engine would save time on this load. The rows below are facts about where the time went.
priced: f
EOT
sub scans { my ($s) = @_; (my $t = $SCANS) =~ s/walk%s/walk$s/; return $t; }

# a file above wal_skip_threshold: synced at commit after a walk; raising
# the threshold is priced
pin('one file above the threshold: synced at commit, the threshold priced',
	'BEGIN; CREATE TABLE big1 AS SELECT g FROM generate_series(1, 100000) g; COMMIT;',
	$WAL_MINIMAL . "detail: #.# MB of WAL in # records with # full-page images; # first changes of a page after a checkpoint (CREATE TABLE AS #). $WAL_MINIMAL_TAIL\npriced: f\n\n"
	  . <<"EOT" . "\n" . scans('') . "\n" . verdict('commit-time sync of new files', 'wal_skip_threshold = #kB'));
severity: (timed)
finding: commit-time sync of new files
change: wal_skip_threshold = '#kB'
evidence: # commit synced # file, #.# MB, a walk each
hint: wal_skip_threshold = #kB
setting: wal_skip_threshold
value: #kB
shape: 
detail: $SYNC_EVIDENCE. $THRESHOLD
priced: t
EOT

# below the threshold: WAL-logged at commit, no sync, no walk
pin('one file below the threshold: WAL-logged at commit, no sync finding',
	'BEGIN; CREATE TABLE small1 AS SELECT g FROM generate_series(1, 1000) g; COMMIT;',
	$WAL_MINIMAL . "detail: #.# MB of WAL in # records with # full-page images; # first changes of a page after a checkpoint (CREATE TABLE AS #); # (#.# MB) logged at commit the # new file(s) below wal_skip_threshold (# kB). $WAL_MINIMAL_TAIL\npriced: f\n\n"
	  . $NOTHING);

# three such transactions: one transaction is priced too, below the threshold
pin('three files above the threshold in three transactions: both changes named',
	join(' ', map { "BEGIN; CREATE TABLE big_m$_ AS SELECT g FROM generate_series(1, 100000) g; COMMIT;" } 1 .. 3),
	$WAL_MINIMAL . "detail: #.# MB of WAL in # records with # full-page images; # first changes of a page after a checkpoint (CREATE TABLE AS #). $WAL_MINIMAL_TAIL\npriced: f\n\n"
	  . <<"EOT" . "\n" . scans('s') . "\n" . verdict('commit-time sync of new files', 'wal_skip_threshold = #kB'));
severity: (timed)
finding: commit-time sync of new files
change: wal_skip_threshold = '#kB'
evidence: # commits synced # files, #.# MB, a walk each
hint: wal_skip_threshold = #kB
setting: wal_skip_threshold
value: #kB
shape: 
detail: $SYNC_EVIDENCE. Loading in one transaction instead of these # would save # walks and # commit flushes, about #.# ms. $THRESHOLD
priced: t
EOT

# three small files in three transactions: nothing synced, one
# transaction saves the commit flushes
pin('three files below the threshold in three transactions: load in one transaction',
	join(' ', map { "BEGIN; CREATE TABLE small_m$_ AS SELECT g FROM generate_series(1, 1000) g; COMMIT;" } 1 .. 3),
	$WAL_MINIMAL . "detail: #.# MB of WAL in # records with # full-page images; # first changes of a page after a checkpoint (CREATE TABLE AS #); # (#.# MB) logged at commit the # new file(s) below wal_skip_threshold (# kB). $WAL_MINIMAL_TAIL\npriced: f\n\n"
	  . <<"EOT" . "\n" . verdict('load in many transactions', 'load in one transaction: # walks fewer'));
severity: (timed)
finding: load in many transactions
change: one_transaction
evidence: # commits, each syncing or WAL-logging new files or loading them
hint: load in one transaction: # walks fewer
setting: 
value: 
shape: one_transaction
detail: # commits synced or WAL-logged the files their transaction created, each with its own commit record and flush. Their commit-time work, replayed as one commit over all their files (each file synced or WAL-logged as core decides it per file, one walk of the pool if any is synced, one commit record and flush), costs about #.# ms less: load in one transaction (psql --single-transaction, or BEGIN ... COMMIT around the load); # walks and # commit flushes fewer.
priced: t
EOT

# TRUNCATE after CREATE in one transaction: truncated in place, synced by force
pin('a table truncated in place: synced whatever the threshold',
	'BEGIN; CREATE TABLE tr1 (g int); INSERT INTO tr1 SELECT generate_series(1, 1000); TRUNCATE tr1; '
	  . 'INSERT INTO tr1 SELECT generate_series(1, 100000); COMMIT;',
	$WAL_MINIMAL . "detail: #.# MB of WAL in # records with # full-page images; # first changes of a page after a checkpoint (CREATE TABLE #). $WAL_MINIMAL_TAIL\npriced: f\n\n"
	  . <<"EOT" . "\n" . scans('s') . "\n" . <<'EOT2' . "\n" . verdict('in-place truncation', 'load each table once: no TRUNCATE after CREATE'));
severity: (timed)
finding: commit-time sync of new files
change: 
evidence: # commit synced # file, #.# MB, a walk each
hint: load each table once: no TRUNCATE after CREATE
setting: 
value: 
shape: 
detail: $SYNC_EVIDENCE. # file(s) were truncated in place in the transaction that created them: core syncs those whatever wal_skip_threshold says; load them once instead.
priced: f
EOT
severity: (timed)
finding: in-place truncation
change: no_truncate_reload
evidence: # in-place truncation, a walk each, forced fsyncs
hint: load each table once: no TRUNCATE after CREATE
setting: 
value: 
shape: no_truncate_reload
detail: # in-place truncation(s), one scan each; # truncated file(s) fsynced at commit by force. TRUNCATE of a table created or truncated earlier in the same subtransaction truncates the heap, every index and the TOAST table in place, one scan each, and under wal_level=minimal core then fsyncs the table at commit whatever its size: load such a table once instead of truncating and loading it again: # walks fewer, the TRUNCATEs and the loads they discard (#.# ms as recorded), no forced fsync of small tables, about #.# ms. VACUUM scans once per truncation of a table's empty tail; the vacuum_truncate storage parameter turns that off for a table.
priced: t
EOT2

# walload.commit_strategy = wal: it set the threshold for one commit and
# stood aside for one whose transaction set its own
my $CHOSE_TAIL = 'Per commit, walload WAL-logged the new files it predicted cheaper to WAL-log and fsynced the others (walload_xacts.commit_threshold_kb is the wal_skip_threshold core used). Both keep every committed row across a crash. Set walload.commit_strategy = off to let core decide.';
my $chose = findings(
	"SET walload.commit_strategy = 'wal'; "
	  . 'BEGIN; CREATE TABLE s1 AS SELECT g FROM generate_series(1, 100000) g; COMMIT; '
	  . "BEGIN; SET LOCAL wal_skip_threshold = '1MB'; CREATE TABLE s2 AS SELECT g FROM generate_series(1, 100000) g; COMMIT;");
my ($chose_row) = grep { /^finding: walload chose/m } split /\n\n/, $chose;
$chose_row =~ s/\n+$//;
diag("=== commit_strategy = wal\n$chose") if $ENV{PIN_PRINT};
is("$chose_row\n", <<"EOT", 'walload.commit_strategy = wal: what it set, where it stood aside') unless $ENV{PIN_PRINT};
severity: info
finding: walload chose how new files reach disk
change: 
evidence: on for # commits, changed the threshold for #
hint: walload.commit_strategy = off lets core decide
setting: 
value: 
shape: 
detail: walload.commit_strategy was on for # commit(s) and set wal_skip_threshold for # of them: their commits were predicted at #.# ms as chosen against #.# ms as core would have done them, and took #.# ms; it stood aside for # whose transaction set wal_skip_threshold itself. $CHOSE_TAIL
priced: f
EOT

# auto, with no figures timed since the start (walload.calibration = off):
# it stands aside, and says why
$node->append_conf('postgresql.conf', 'walload.calibration = off');
$node->restart;
my $aside = findings(
	"SET walload.commit_strategy = 'auto'; "
	  . 'BEGIN; CREATE TABLE a1 AS SELECT g FROM generate_series(1, 100000) g; COMMIT;');
my ($aside_row) = grep { /^finding: walload chose/m } split /\n\n/, $aside;
$aside_row =~ s/\n+$//;
diag("=== commit_strategy = auto, uncalibrated\n$aside") if $ENV{PIN_PRINT};
is("$aside_row\n", <<"EOT", 'walload.commit_strategy = auto uncalibrated: it stood aside, and why') unless $ENV{PIN_PRINT};
severity: info
finding: walload chose how new files reach disk
change: 
evidence: on for # commit, changed the threshold for #
hint: walload.commit_strategy = off lets core decide
setting: 
value: 
shape: 
detail: walload.commit_strategy was on for # commit(s) and set wal_skip_threshold for # of them; auto stood aside for #, its figures not timed since the server's last start or crash-restart (walload_info.calibration). $CHOSE_TAIL
priced: f
EOT

$node->stop;
done_testing();

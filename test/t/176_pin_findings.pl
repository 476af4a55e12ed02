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
# matrix: once (the diagnosis' own rules over counts that pg_regress, pgTAP and the oracle check on every version)
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
  SELECT regexp_replace(regexp_replace(t, '[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:.]+[-+][0-9:]+', 'TIMESTAMP', 'g'),
                        '[0-9]+', '#', 'g')
$$;
CREATE TABLE ring (id int)});

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
         f.saving_ms IS NOT NULL), E'\n\n' ORDER BY f.finding COLLATE "C")
FROM walload_findings(pid => pg_backend_pid()) f
WHERE f.finding NOT IN ('the commit phase dominates', 'many small synchronous commits')});
	$out =~ s/^\n+//;
	return "$out\n";
}

# one finding's row of findings()'s text, with its newline ('' if none)
sub row_of
{
	my ($text, $finding) = @_;
	my ($row) = grep { /^finding: \Q$finding\E$/m } split /\n\n/, $text;
	return '' unless defined $row;
	$row =~ s/\n+$//;
	return "$row\n";
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
diag("=== commit_strategy = wal\n$chose") if $ENV{PIN_PRINT};
is(row_of($chose, 'walload chose how new files reach disk'), <<"EOT", 'walload.commit_strategy = wal: what it set, where it stood aside') unless $ENV{PIN_PRINT};
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

# a running load (walload_findings_backend): its walks so far, what
# COMMIT and ROLLBACK will cost, the threshold for this transaction; the
# load's session prices at the same unit costs as the diagnosing one
sub backend_findings
{
	my ($pid) = @_;
	my $out = $node->safe_psql('postgres', qq{
SET walload.unit_costs = 'others=10, fsync_time_ratio=1';
SELECT string_agg(format(E'severity: %s\\nfinding: %s\\nchange: %s\\nevidence: %s\\nhint: %s\\nsetting: %s\\nvalue: %s\\nshape: %s\\ndetail: %s\\npriced: %s',
         f.severity, f.finding, m(f.change), m(f.evidence), m(f.hint), f.setting, m(f.value), f.shape,
         m(f.detail), f.saving_ms IS NOT NULL), E'\\n\\n' ORDER BY f.finding COLLATE "C")
FROM walload_findings_backend($pid) f});
	return "$out\n";
}
my $load = $node->background_psql('postgres');
my $load_pid = $load->query_safe('SELECT pg_backend_pid()');
$load->query_safe("SET walload.unit_costs = 'others=10, fsync_time_ratio=1'");
$load->query_safe('BEGIN');
my $NO_LOAD = <<"EOT";
severity: info
finding: no running load
change: 
evidence: backend # has no open transaction with recorded work in walload_activity
hint: A backend shows in walload_activity from its first recorded statement to the end of its transaction; after the end, see walload_xacts and walload_diagnose(xact_id).
setting: 
value: 
shape: 
detail: backend # has no open transaction with recorded work in walload_activity. A backend shows in walload_activity from its first recorded statement to the end of its transaction; after the end, see walload_xacts and walload_diagnose(xact_id).
priced: f
EOT
my $got = backend_findings($load_pid);
diag("=== backend, nothing run\n$got") if $ENV{PIN_PRINT};
is($got, $NO_LOAD, 'a backend whose transaction recorded nothing: no running load') unless $ENV{PIN_PRINT};
# a table created, loaded above the threshold, truncated in place and
# loaded again: one walk so far, a sync and a deletion at COMMIT
$load->query_safe('CREATE TABLE run1 (g int)');
$load->query_safe('INSERT INTO run1 SELECT generate_series(1, 1000)');
$load->query_safe('TRUNCATE run1');
$load->query_safe('INSERT INTO run1 SELECT generate_series(1, 100000)');
$load->query_safe('CREATE TABLE run2 AS SELECT g FROM generate_series(1, 100000) g');
$got = backend_findings($load_pid);
diag("=== backend, a load running\n$got") if $ENV{PIN_PRINT};
is($got, <<"EOT", 'a running load: its walks, COMMIT, ROLLBACK and the threshold for it') unless $ENV{PIN_PRINT};
severity: info
finding: full scans so far
change: 
evidence: the transaction has walked all # shared buffers # time(s) so far, about #.# ms (flush of one relation: #, truncation: #, file deletion: #, database: #)
hint: Each walk costs the same whatever the size of the data: it grows with shared_buffers. docs/scans.md names the command behind each kind.
setting: 
value: 
shape: 
detail: the transaction has walked all # shared buffers # time(s) so far, about #.# ms (flush of one relation: #, truncation: #, file deletion: #, database: #). Each walk costs the same whatever the size of the data: it grows with shared_buffers. docs/scans.md names the command behind each kind.
priced: f

severity: info
finding: wal_skip_threshold for this transaction
change: 
evidence: with SET LOCAL wal_skip_threshold = '# kB' before COMMIT, the # synced file(s) would be WAL-logged whole instead: about #.# MB of WAL, no sync scan; about #.# ms (scans #.#, fsync #.#, WAL #.#, file deletion #.#) against #.# ms
hint: Not cheaper by this estimate: writing the files to the WAL costs more than their fsync and one scan.
setting: 
value: 
shape: 
detail: with SET LOCAL wal_skip_threshold = '# kB' before COMMIT, the # synced file(s) would be WAL-logged whole instead: about #.# MB of WAL, no sync scan; about #.# ms (scans #.#, fsync #.#, WAL #.#, file deletion #.#) against #.# ms. Not cheaper by this estimate: writing the files to the WAL costs more than their fsync and one scan.
priced: f

severity: warning
finding: what COMMIT will cost
change: 
evidence: COMMIT now would fsync # relation file(s) (# blocks) after one scan of all # shared buffers, WAL-log # small file(s) (# blocks), delete # file(s): about #.# ms (scans #.#, fsync #.#, WAL #.#, file deletion #.#); predicted at the end of its last statement, TIMESTAMP
hint: Under wal_level=minimal the new files at or above wal_skip_threshold are fsynced at commit after a scan of all shared buffers; more statements that load into them add fsync time, not scans.
setting: 
value: 
shape: 
detail: COMMIT now would fsync # relation file(s) (# blocks) after one scan of all # shared buffers, WAL-log # small file(s) (# blocks), delete # file(s): about #.# ms (scans #.#, fsync #.#, WAL #.#, file deletion #.#); predicted at the end of its last statement, TIMESTAMP. Under wal_level=minimal the new files at or above wal_skip_threshold are fsynced at commit after a scan of all shared buffers; more statements that load into them add fsync time, not scans.
priced: f

severity: info
finding: what ROLLBACK will cost
change: 
evidence: ROLLBACK would delete # relation file(s) created in this transaction after one scan of all # shared buffers
hint: An abort deletes the files the transaction created; its scan is the same as a commit's deletion scan.
setting: 
value: 
shape: 
detail: ROLLBACK would delete # relation file(s) created in this transaction after one scan of all # shared buffers. An abort deletes the files the transaction created; its scan is the same as a commit's deletion scan.
priced: f
EOT
$load->query_safe('ROLLBACK');
$load->quit;

# auto, with no figures timed since the start (walload.calibration = off):
# it stands aside, and says why; a ring of 10 transactions, to overwrite
$node->append_conf('postgresql.conf', "walload.calibration = off\nwalload.max_xacts = 10");
$node->restart;
my $aside = findings(
	"SET walload.commit_strategy = 'auto'; "
	  . 'BEGIN; CREATE TABLE a1 AS SELECT g FROM generate_series(1, 100000) g; COMMIT;');
diag("=== commit_strategy = auto, uncalibrated\n$aside") if $ENV{PIN_PRINT};
is(row_of($aside, 'walload chose how new files reach disk'), <<"EOT", 'walload.commit_strategy = auto uncalibrated: it stood aside, and why') unless $ENV{PIN_PRINT};
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

# 12 transactions in a ring of 10: the findings say they cover a part
$got = findings(join(' ', map { "INSERT INTO ring VALUES ($_);" } 1 .. 12));
diag("=== ring overwritten\n$got") if $ENV{PIN_PRINT};
is(row_of($got, 'part of the load'), <<'EOT', 'a ring that overwrote transactions: part of the load') unless $ENV{PIN_PRINT};
severity: info
finding: part of the load
change: 
evidence: # kept, # overwritten
hint: raise walload.max_xacts
setting: 
value: 
shape: 
detail: the findings cover the # transactions of the load that walload_xacts still holds; its ring overwrote # since the last reset. walload_report() covers the whole load (from walload_minutes). To diagnose all of it, raise walload.max_xacts (a restart) above the load's transactions.
priced: f
EOT
$got = findings(join(' ', map { "INSERT INTO ring VALUES ($_);" } 1 .. 5));
is(row_of($got, 'part of the load'), '',
	'5 transactions in a ring of 10: no part of the load') unless $ENV{PIN_PRINT};
$node->stop;

# VACUUM of a table mostly outside shared buffers of 16 MB: its ring's
# dirty buffers force WAL flushes (test/pgtap/06_vacuum_ring.sql), with
# track_wal_io_timing off (no time: the text says so, the severity is
# warning); 16 on: the ring of 15 (256 kB), and the hint on it.  fsync on
# (the test clusters' default is off): a flush that does not sync is not
# counted
my $small = calibrated_node('walload_pin_findings_vacuum', qq{
autovacuum = off
shared_buffers = 16MB
track_wal_io_timing = off
fsync = on
});
my $v16 = $small->safe_psql('postgres', "SELECT current_setting('server_version_num')::int >= 160000") eq 't';
$small->safe_psql('postgres', q{
CREATE FUNCTION m(t text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT regexp_replace(t, '[0-9]+', '#', 'g')
$$;
CREATE TABLE vr (id int, t text) WITH (autovacuum_enabled = off);
INSERT INTO vr SELECT g, md5(g::text) FROM generate_series(1, 400000) g;
VACUUM FREEZE vr;
UPDATE vr SET t = t || 'x' WHERE id % 10 = 0;
DELETE FROM vr WHERE id % 3 = 0;
CREATE TABLE vs (id int, t text) WITH (autovacuum_enabled = off);
INSERT INTO vs SELECT g, md5(g::text) FROM generate_series(1, 20000) g;
VACUUM FREEZE vs;
UPDATE vs SET t = t || 'x' WHERE id % 10 = 0;
DELETE FROM vs WHERE id % 3 = 0;
});
sub vacuum_findings
{
	my ($table) = @_;
	return $small->safe_psql('postgres', ($v16 ? "SET vacuum_buffer_usage_limit = '256kB';\n" : '') . qq{
CHECKPOINT;
SELECT walload_reset();
VACUUM $table;
SELECT string_agg(format(E'severity: %s\\nfinding: %s\\nchange: %s\\nevidence: %s\\nhint: %s\\nsetting: %s\\nvalue: %s\\nshape: %s\\ndetail: %s\\npriced: %s',
         f.severity, f.finding, m(f.change), m(f.evidence), m(f.hint), f.setting, m(f.value), f.shape,
         m(f.detail), f.saving_ms IS NOT NULL), E'\\n\\n' ORDER BY f.finding COLLATE "C")
FROM walload_findings(pid => pg_backend_pid()) f WHERE f.finding = 'VACUUM forced into WAL flushes'});
}
my $VACUUM_HINT = $v16 ?
  "VACUUM reads tables that are not in shared buffers through a small ring, and must flush WAL before it can reuse a buffer it dirtied. A larger ring flushes less often: VACUUM (BUFFER_USAGE_LIMIT '#MB') for one run, or vacuum_buffer_usage_limit for the session (# disables the ring); loading the table into shared buffers first (pg_prewarm) avoids the ring."
  : 'VACUUM reads tables that are not in shared buffers through a fixed # kB ring, and must flush WAL before it can reuse a buffer it dirtied, every few buffers. Loading the table into shared buffers first (pg_prewarm) avoids the ring; PostgreSQL # adds BUFFER_USAGE_LIMIT / vacuum_buffer_usage_limit to enlarge it.';
my $VACUUM_ACTION = $v16 ? 'a larger ring (BUFFER_USAGE_LIMIT), or pg_prewarm the table first' : 'pg_prewarm the table first';
$got = vacuum_findings('vr');
$got =~ s/^\n+//;
diag("=== VACUUM outside shared buffers\n$got") if $ENV{PIN_PRINT};
is("$got\n", <<"EOT", 'VACUUM outside shared buffers: its ring forced WAL flushes') unless $ENV{PIN_PRINT};
severity: warning
finding: VACUUM forced into WAL flushes
change: 
evidence: # VACUUM flushed WAL # times
hint: $VACUUM_ACTION
setting: 
value: 
shape: 
detail: # VACUUM statement(s) over # heap pages took #.# ms and flushed WAL # times (# WAL writes) themselves; ring size # kB; turn on track_wal_io_timing to see their time. $VACUUM_HINT
priced: f
EOT
$got = vacuum_findings('vs');
$got =~ s/^\n+//;
is($got, '', 'VACUUM of a table in shared buffers: no forced flushes') unless $ENV{PIN_PRINT};
$small->stop;

# a subscriber's background workers (diagnose_workers): twelve small
# tables copied, one table truncated by the publisher, at wal_level =
# minimal with every new file synced at commit (wal_skip_threshold = 0),
# as subscription_nodes (test/t/130 too) sets it up.  The findings of all
# the subscriber's transactions, by their rows; its client backends' own
# findings name none of the workers'.  Not made here: "initial sync walks
# at commit (minimal)", which needs an initial copy that writes a new file
# (the copy goes into the subscriber's existing table).
my ($pub, $sub) = subscription_nodes('walload_pin_findings');
$sub->safe_psql('postgres', q{
CREATE FUNCTION m(t text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT regexp_replace(t, '[0-9]+', '#', 'g')
$$});
my @tables = map { "w$_" } 1 .. 12;
for my $t (@tables)
{
	$pub->safe_psql('postgres', "CREATE TABLE $t (id int PRIMARY KEY); INSERT INTO $t SELECT generate_series(1, 100)");
	$sub->safe_psql('postgres', "CREATE TABLE $t (id int PRIMARY KEY)");
}
$pub->safe_psql('postgres', 'CREATE PUBLICATION p FOR TABLE ' . join(', ', @tables));
$sub->safe_psql('postgres', 'SELECT walload_reset()');
$sub->safe_psql('postgres', "CREATE SUBSCRIPTION s CONNECTION '" . $pub->connstr . " dbname=postgres' PUBLICATION p");
$sub->wait_for_subscription_sync($pub, 's');
$pub->safe_psql('postgres', 'TRUNCATE w1');
$pub->wait_for_catchup('s');
sub worker_rows
{
	my ($filter) = @_;
	my $out = $sub->safe_psql('postgres', qq{
SELECT string_agg(format(E'severity: %s\\nfinding: %s\\nchange: %s\\nevidence: %s\\nhint: %s\\nsetting: %s\\nvalue: %s\\nshape: %s\\ndetail: %s\\npriced: %s',
         f.severity, f.finding, m(f.change), m(f.evidence), m(f.hint), f.setting, m(f.value), f.shape,
         m(f.detail), f.saving_ms IS NOT NULL), E'\\n\\n' ORDER BY f.finding COLLATE "C")
FROM walload_findings($filter) f
WHERE f.finding IN ('copy_data of many small tables', 'initial sync walks at commit (minimal)',
                    'replayed TRUNCATE walks shared buffers', 'autovacuum truncation walks')});
	$out =~ s/^\n+//;
	return $out eq '' ? '' : "$out\n";
}
$got = worker_rows('');
diag("=== workers\n$got") if $ENV{PIN_PRINT};
is($got, <<'EOT', 'a subscriber: twelve small initial copies, a replayed TRUNCATE') unless $ENV{PIN_PRINT};
severity: info
finding: copy_data of many small tables
change: 
evidence: # small initial copies
hint: copy small tables beforehand, copy_data = false
setting: 
value: 
shape: 
detail: # of the subscription's # initial copies loaded fewer than # rows (# rows in all); each is a tablesync worker, a replication slot and a transaction of its own. Copy the small tables before subscribing (pg_dump --data-only of them) and create the subscription WITH (copy_data = false), or raise max_sync_workers_per_subscription to run more copies at once.
priced: f

severity: notice
finding: replayed TRUNCATE walks shared buffers
change: 
evidence: # walk by replayed TRUNCATE
hint: publish without truncate, or batch them
setting: 
value: 
shape: 
detail: # replayed transaction walked all # shared buffers # time to drop the truncated tables' old files. Each replayed TRUNCATE deletes the old files at commit, one walk of the pool per transaction. Publish without truncate (WITH (publish = 'insert, update, delete')) and delete the rows instead, or batch truncations into fewer transactions on the publisher.
priced: f
EOT
is(worker_rows("backend_type => 'client backend'"), '', 'its client backends: none of the workers\' findings')
  unless $ENV{PIN_PRINT};

# autovacuum truncating a table's empty tail (as in
# test/t/131_workers_autovacuum.pl): one walk
$sub->safe_psql('postgres', q{
CREATE TABLE tail (id int, pad text) WITH (autovacuum_enabled = false);
INSERT INTO tail SELECT g, repeat('v', 200) FROM generate_series(1, 20000) g;
DELETE FROM tail WHERE id > 100;
ALTER TABLE tail SET (autovacuum_vacuum_threshold = 10, autovacuum_vacuum_scale_factor = 0,
                      autovacuum_enabled = true);
ALTER SYSTEM SET autovacuum = on;
ALTER SYSTEM SET autovacuum_naptime = 1;
SELECT pg_reload_conf()});
ok($sub->poll_query_until('postgres', q{SELECT count(*) > 0 FROM walload_findings(backend_type => 'autovacuum worker')
	WHERE finding = 'autovacuum truncation walks'}),
	'premise: autovacuum truncated the tail, recorded');
$got = worker_rows("backend_type => 'autovacuum worker'");
diag("=== autovacuum\n$got") if $ENV{PIN_PRINT};
is($got, <<'EOT', 'autovacuum truncation walks') unless $ENV{PIN_PRINT};
severity: notice
finding: autovacuum truncation walks
change: 
evidence: # autovacuum truncation walk
hint: vacuum_truncate = false on those tables
setting: 
value: 
shape: 
detail: autovacuum truncated a table's empty tail # time in # transaction, each a walk of all # shared buffers. Truncating a table's tail walks the whole pool, the longer the larger shared_buffers. For tables whose tail is emptied and refilled, ALTER TABLE ... SET (vacuum_truncate = false).
priced: f
EOT
$sub->stop;
$pub->stop;
done_testing();

-- clusters: replica
-- A commit that asks for a synchronous standby but has none to wait for:
-- synchronous_commit = remote_apply with walsenders allowed (replica) and
-- synchronous_standby_names empty.  Core does not wait (SyncRepWaitForLSN
-- returns at once), so walload records no wait for a standby, reports no
-- such part and makes no such finding; the commits' time stays their own
-- (the small commits' rule, not the standby's).  Counts and rules only.
\ir 00_helpers.inc
SELECT plan(5);

SELECT is(current_setting('synchronous_standby_names'), '', 'no synchronous standby is named');
CREATE TABLE sb_small (id int);
SET application_name = 'sb_no_standby';
SET synchronous_commit = remote_apply;
SELECT format('INSERT INTO sb_small VALUES (%s)', g) FROM generate_series(1, 120) g \gexec
RESET synchronous_commit;

SELECT is((SELECT count(*) FROM walload_xacts
           WHERE application_name = 'sb_no_standby' AND dml_ms > 0 AND outcome = 'commit'
             AND synchronous_commit = 'remote_apply'),
          120::bigint, 'the 120 commits are recorded with synchronous_commit = remote_apply');
SELECT is((SELECT count(*) FROM walload_xacts
           WHERE application_name = 'sb_no_standby'
             AND (commit_standby_wait OR commit_standby_ms <> 0)),
          0::bigint, 'none waited for a standby, none has a wait recorded');
SELECT is((SELECT count(*) FROM walload_report(application_name => 'sb_no_standby')
           WHERE part = 'commit: waiting for sync standbys'),
          0::bigint, 'walload_report() has no part for a standby');
SELECT is((SELECT count(*) FROM walload_findings(application_name => 'sb_no_standby')
           WHERE finding = 'commits waited for a standby'),
          0::bigint, 'walload_findings() names no standby');

DROP TABLE sb_small;
SELECT * FROM finish();

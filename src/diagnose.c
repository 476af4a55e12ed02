/*-------------------------------------------------------------------------
 *
 * diagnose.c
 *		walload_diagnose(): turns the recorded transactions into findings a
 *		DBA can act on -- what cost the time, the evidence, what to change.
 *
 * Scope: one transaction (by xact_id), or every transaction still in the
 * ring.  Each rule reads only recorded figures; estimates are labelled.
 *
 *-------------------------------------------------------------------------
 */
#include "walload.h"

#include "access/xact.h"
#include "access/xlog.h"
#include "fmgr.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/tuplestore.h"

PG_FUNCTION_INFO_V1(walload_diagnose);

typedef struct Totals
{
	int			xacts;
	int			commits;
	double		total_ms;
	double		commit_ms;
	double		commit_sync_ms;
	double		commit_cleanup_ms;
	WlCounters	c;
	int64		scanned_buffers;
	int32		synced_rels;
	int64		synced_blocks;
	int32		wal_logged_rels;
	int64		wal_logged_blocks;
	int32		wal_skipped_rels;
	int32		dropped_rels;
	int			small_sync_commits; /* <= 2 statements, synchronous */
	double		small_sync_commit_ms;
	double		small_sync_total_ms;
	int64		small_sync_flushes;
	int			nbuffers;
	int			wal_skip_threshold_kb;
	int			wal_level;
	bool		mixed_wal_level;
} Totals;

typedef struct Emitter
{
	ReturnSetInfo *rsinfo;
	int			n;
} Emitter;

static void
emit(Emitter *em, const char *severity, const char *finding,
	 const char *evidence, const char *hint)
{
	Datum		values[4];
	bool		nulls[4] = {false, false, false, false};

	values[0] = CStringGetTextDatum(severity);
	values[1] = CStringGetTextDatum(finding);
	values[2] = CStringGetTextDatum(evidence);
	values[3] = CStringGetTextDatum(hint);
	tuplestore_putvalues(em->rsinfo->setResult, em->rsinfo->setDesc, values, nulls);
	em->n++;
}

static double
pct(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : 0;
}

static double
mb(double bytes)
{
	return bytes / (1024.0 * 1024.0);
}

static void
diagnose_scans(Emitter *em, const Totals *t, double ns)
{
	int64		full = wl_full_scans(&t->c);
	double		est = ns > 0 ? t->scanned_buffers * ns / 1e6 : 0;
	double		share = pct(est, t->total_ms);
	const char *sev = share >= 20 ? "warning" : "info";
	StringInfoData ev;
	StringInfoData hint;

	if (full == 0)
		return;

	initStringInfo(&ev);
	appendStringInfo(&ev,
					 "%lld full scans of shared_buffers (%d buffers each), an estimated %.1f ms "
					 "= %.0f%% of %.1f ms in %d transaction(s); "
					 "commit-time sync %lld, file deletion %lld, truncation %lld, "
					 "flush of one relation %lld, database %lld",
					 (long long) full, t->nbuffers, est, share, t->total_ms, t->xacts,
					 (long long) t->c.scans[WL_SCAN_FLUSH_PENDING],
					 (long long) t->c.scans[WL_SCAN_DROP_PENDING],
					 (long long) t->c.scans[WL_SCAN_DROP_REL],
					 (long long) t->c.scans[WL_SCAN_FLUSH_REL],
					 (long long) t->c.scans[WL_SCAN_DB]);
	emit(em, sev, "full scans of the shared buffer pool", ev.data,
		 "Each scan walks every buffer header, so its cost grows with shared_buffers, not with the data. "
		 "The findings below name the causes; a smaller shared_buffers during the load makes every scan cheaper.");

	if (t->c.scans[WL_SCAN_FLUSH_PENDING] > 0)
	{
		resetStringInfo(&ev);
		appendStringInfo(&ev,
						 "%lld commit(s) synced %d relation file(s) of %lld blocks (%.1f MB) created in the same "
						 "transaction under wal_level=minimal; %d smaller file(s) (%lld blocks) were WAL-logged "
						 "instead; wal_skip_threshold = %d kB",
						 (long long) t->c.scans[WL_SCAN_FLUSH_PENDING], t->synced_rels,
						 (long long) t->synced_blocks, mb((double) t->synced_blocks * BLCKSZ),
						 t->wal_logged_rels, (long long) t->wal_logged_blocks,
						 t->wal_skip_threshold_kb);
		initStringInfo(&hint);
		appendStringInfo(&hint,
						 "Relations created (or truncated) in the loading transaction skip WAL and are fsynced at "
						 "commit after a scan of all shared buffers. Either commit right after CREATE TABLE so "
						 "the load is WAL-logged; or run with wal_level=replica, which would write about %.1f MB "
						 "more WAL for these files; or load more data per transaction so one commit covers it. "
						 "Raising wal_skip_threshold above the largest file WAL-logs it instead of syncing.",
						 mb((double) t->synced_blocks * BLCKSZ));
		emit(em, share >= 20 ? "warning" : "info",
			 "commit-time sync of WAL-skipped relations (wal_level=minimal)", ev.data, hint.data);
	}

	if (t->c.scans[WL_SCAN_DROP_PENDING] > 0)
	{
		resetStringInfo(&ev);
		appendStringInfo(&ev,
						 "%lld scan(s) to delete the files of %d dropped, truncated, rewritten or rolled-back "
						 "relation(s), one per commit or rollback that deleted any",
						 (long long) t->c.scans[WL_SCAN_DROP_PENDING], t->dropped_rels);
		emit(em, share >= 20 ? "warning" : "info",
			 "file deletion at commit or abort (DROP, TRUNCATE, rewrites, rollback)", ev.data,
			 "Every transaction that deletes relation files scans all shared buffers once, however many "
			 "files it deletes: drop or truncate tables in one transaction instead of one per statement, "
			 "reuse staging tables instead of dropping and re-creating them, and avoid rolling back "
			 "transactions that created tables.");
	}

	if (t->c.scans[WL_SCAN_DROP_REL] > 0)
	{
		resetStringInfo(&ev);
		appendStringInfo(&ev, "%lld in-place truncation(s), one scan each",
						 (long long) t->c.scans[WL_SCAN_DROP_REL]);
		emit(em, share >= 20 ? "warning" : "info",
			 "in-place truncation (TRUNCATE of a table created in the same transaction, VACUUM truncation)",
			 ev.data,
			 "TRUNCATE of a table created or truncated earlier in the same subtransaction truncates the "
			 "heap, every index and the TOAST table in place, one scan each: create indexes after loading, "
			 "or truncate before the indexes exist. VACUUM scans once per truncation of a table's empty "
			 "tail; the vacuum_truncate storage parameter turns that off for a table.");
	}

	if (t->c.scans[WL_SCAN_FLUSH_REL] > 0)
	{
		resetStringInfo(&ev);
		appendStringInfo(&ev, "%lld flush(es) of a single relation",
						 (long long) t->c.scans[WL_SCAN_FLUSH_REL]);
		emit(em, "info", "flush of one relation (SET TABLESPACE, unlogged sequences)", ev.data,
			 "ALTER ... SET TABLESPACE flushes each moved file (heap, TOAST, TOAST index) with a full scan; "
			 "unlogged sequences are flushed whenever they are created or reset. Move tables before loading them.");
	}

	if (t->c.scans[WL_SCAN_DB] > 0)
	{
		resetStringInfo(&ev);
		appendStringInfo(&ev, "%lld database-wide scan(s)", (long long) t->c.scans[WL_SCAN_DB]);
		emit(em, "info", "DROP DATABASE / ALTER DATABASE SET TABLESPACE", ev.data,
			 "Each drops every buffer of the database with a full scan; avoid creating and dropping "
			 "databases per test or per load.");
	}
}

static void
diagnose_commit(Emitter *em, const Totals *t)
{
	StringInfoData ev;

	if (t->commits == 0)
		return;

	initStringInfo(&ev);
	if (t->commit_ms >= 10 && pct(t->commit_ms, t->total_ms) >= 50)
	{
		appendStringInfo(&ev,
						 "commit phases took %.1f ms of %.1f ms (%.0f%%): sync part %.1f ms, cleanup part %.1f ms; "
						 "%d relation file(s) synced, %d WAL-logged",
						 t->commit_ms, t->total_ms, pct(t->commit_ms, t->total_ms),
						 t->commit_sync_ms, t->commit_cleanup_ms, t->synced_rels,
						 t->wal_logged_rels);
		emit(em, "warning", "the commit phase dominates", ev.data,
			 t->synced_rels > 1 ?
			 "Many relation files were fsynced at commit: under wal_level=minimal each new file at or above "
			 "wal_skip_threshold is fsynced one by one. Load into fewer, larger tables per transaction, or "
			 "raise wal_skip_threshold so small files are WAL-logged instead of fsynced." :
			 "The commit waited for its WAL flush (and replication, if synchronous), or for file deletion. "
			 "See the other findings for scans; check the storage's fsync latency with pg_test_fsync.");
		resetStringInfo(&ev);
	}

	/* the commit's flush is a real share of each small transaction */
	if (t->small_sync_commits >= 100 &&
		pct(t->small_sync_commit_ms, t->small_sync_total_ms) >= 10)
	{
		appendStringInfo(&ev,
						 "%d commits of at most 2 statements with synchronous_commit on spent %.1f ms "
						 "(%.3f ms each, %.0f%% of their %.1f ms) in the commit's WAL flush",
						 t->small_sync_commits, t->small_sync_commit_ms,
						 t->small_sync_commit_ms / t->small_sync_commits,
						 pct(t->small_sync_commit_ms, t->small_sync_total_ms),
						 t->small_sync_total_ms);
		if (WL_HAVE_WAL_IO)
			appendStringInfo(&ev, "; %lld WAL flushes", (long long) t->small_sync_flushes);
		emit(em, pct(t->small_sync_commit_ms, t->small_sync_total_ms) >= 30 ? "warning" : "info",
			 "many small synchronous commits", ev.data,
			 "Each commit waits for a WAL flush. Batch rows into fewer transactions (or COPY), or set "
			 "synchronous_commit = off for the loading session: a crash can then lose the last few "
			 "hundred milliseconds of commits, but never corrupts data.");
	}
}

static void
diagnose_wal(Emitter *em, const Totals *t)
{
	StringInfoData ev;
	int64		commit_fpi = Min(t->wal_logged_blocks, t->c.wal_fpi);
	int64		other_fpi = t->c.wal_fpi - commit_fpi;
	double		other_fpi_bytes = (double) other_fpi * BLCKSZ;

	if (t->c.wal_bytes == 0)
		return;
	initStringInfo(&ev);
	appendStringInfo(&ev, "%.1f MB of WAL in %lld records with %lld full-page images",
					 mb((double) t->c.wal_bytes), (long long) t->c.wal_records,
					 (long long) t->c.wal_fpi);
	if (commit_fpi > 0)
		appendStringInfo(&ev, ", of which %lld (%.1f MB) logged at commit the %d new file(s) "
						 "below wal_skip_threshold (%d kB)",
						 (long long) commit_fpi, mb((double) commit_fpi * BLCKSZ),
						 t->wal_logged_rels, t->wal_skip_threshold_kb);

	if (other_fpi > 0 && other_fpi_bytes >= 0.5 * (double) t->c.wal_bytes &&
		t->c.wal_bytes >= 1024 * 1024)
		emit(em, "warning", "full-page images dominate the WAL", ev.data,
			 "The first change of each page after a checkpoint logs the whole page. Fewer checkpoints "
			 "during the load (larger max_wal_size, longer checkpoint_timeout) or wal_compression = on "
			 "cut this; full_page_writes = off is only safe on storage that cannot tear pages.");
	else
		emit(em, "info", "WAL written", ev.data,
			 t->wal_level == WAL_LEVEL_MINIMAL ?
			 "Under wal_level=minimal, tables created or truncated in the loading transaction skip WAL; "
			 "at commit, files below wal_skip_threshold are WAL-logged whole and larger ones are "
			 "fsynced after a full scan of shared_buffers." :
			 "Under wal_level=replica every loaded row is WAL-logged; wal_level=minimal would skip WAL "
			 "for tables created or truncated in the loading transaction, at the price of a commit-time "
			 "sync and a full scan of shared_buffers.");
}

/*
 * VACUUM reads a table that is not in shared buffers through a small ring;
 * each dirtied buffer it reuses must first have its WAL flushed.  Seed 001:
 * a flush every few buffers, 5-8x slower.
 */
typedef struct VacuumFilter
{
	bool		one;
	int64		want;
} VacuumFilter;

/* the VACUUM statements (of one transaction): all diagnose_vacuum reads */
static bool
vacuum_filter(const WlStmtRecord *s, void *arg)
{
	VacuumFilter *vf = arg;

	return s->tag == CMDTAG_VACUUM && (!vf->one || (int64) s->xact_id == vf->want);
}

static void
diagnose_vacuum(Emitter *em, bool one, int64 want)
{
	WlStmtRecord *recs;
	VacuumFilter vf = {one, want};
	int			n;
	int			nvac = 0;
	int64		syncs = 0;
	int64		writes = 0;
	int64		pages = 0;
	double		sync_ms = 0;
	double		elapsed = 0;
	int			ring_kb = 0;
	StringInfoData ev;

	if (!WL_HAVE_WAL_IO)
		return;
	n = wl_store_copy_statements_filtered(vacuum_filter, &vf, &recs);
	for (int i = 0; i < n; i++)
	{
		WlStmtRecord *s = &recs[i];

		if (s->tag != CMDTAG_VACUUM || (one && (int64) s->xact_id != want))
			continue;
		nvac++;
		syncs += s->c.wal_syncs;
		writes += s->c.wal_writes;
		sync_ms += s->c.wal_sync_us / 1000.0;
		pages += s->vacuum_pages;
		elapsed += s->elapsed_ms;
		ring_kb = s->vacuum_ring_kb;
	}
	if (nvac == 0 || syncs < 10)
		return;

	initStringInfo(&ev);
	appendStringInfo(&ev,
					 "%d VACUUM statement(s) over %lld heap pages took %.1f ms and flushed WAL %lld times "
					 "(%lld WAL writes) themselves; ring size %d kB",
					 nvac, (long long) pages, elapsed, (long long) syncs, (long long) writes, ring_kb);
	if (sync_ms > 0)
		appendStringInfo(&ev, "; the flushes took %.1f ms (%.0f%%)", sync_ms, pct(sync_ms, elapsed));
	else
		appendStringInfoString(&ev, "; turn on track_wal_io_timing to see their time");
	emit(em, (sync_ms > 0 && pct(sync_ms, elapsed) < 10) ? "info" : "warning",
		 "VACUUM forced into WAL flushes by its buffer ring", ev.data,
		 PG_VERSION_NUM >= 160000 ?
		 "VACUUM reads tables that are not in shared buffers through a small ring, and must flush WAL "
		 "before it can reuse a buffer it dirtied. A larger ring flushes less often: "
		 "VACUUM (BUFFER_USAGE_LIMIT '256MB') for one run, or vacuum_buffer_usage_limit for the session "
		 "(0 disables the ring); loading the table into shared buffers first (pg_prewarm) avoids the ring." :
		 "VACUUM reads tables that are not in shared buffers through a fixed 256 kB ring, and must flush "
		 "WAL before it can reuse a buffer it dirtied, every few buffers. Loading the table into shared "
		 "buffers first (pg_prewarm) avoids the ring; PostgreSQL 16 adds BUFFER_USAGE_LIMIT / "
		 "vacuum_buffer_usage_limit to enlarge it.");
}

Datum
walload_diagnose(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	bool		one = !PG_ARGISNULL(0);
	int64		want = one ? PG_GETARG_INT64(0) : 0;
	WlXactRecord *recs;
	int			n;
	Totals		t;
	Emitter		em;
	double		ns;

	wl_store_require();
	if (one && want <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("xact_id must be positive, not " INT64_FORMAT, want)));

	InitMaterializedSRF(fcinfo, 0);
	em.rsinfo = rsinfo;
	em.n = 0;
	ns = wl_store_ns_per_buffer();

	n = wl_store_copy_xacts(&recs);
	memset(&t, 0, sizeof(t));
	t.wal_level = -1;
	for (int i = 0; i < n; i++)
	{
		WlXactRecord *x = &recs[i];

		if (one && (int64) x->xact_id != want)
			continue;
		t.xacts++;
		if (x->outcome == WL_OUTCOME_COMMIT)
			t.commits++;
		t.total_ms += x->total_ms;
		t.commit_ms += x->commit_ms;
		t.commit_sync_ms += x->commit_sync_ms;
		t.commit_cleanup_ms += x->commit_cleanup_ms;
		wl_counters_add(&t.c, &x->c);
		t.scanned_buffers += wl_full_scans(&x->c) * x->nbuffers;
		t.synced_rels += x->synced_rels;
		t.synced_blocks += x->synced_blocks;
		t.wal_logged_rels += x->wal_logged_rels;
		t.wal_logged_blocks += x->wal_logged_blocks;
		t.wal_skipped_rels += x->wal_skipped_rels;
		t.dropped_rels += x->dropped_rels;
		if (x->outcome == WL_OUTCOME_COMMIT && x->statements <= 2 &&
			x->synchronous_commit > SYNCHRONOUS_COMMIT_OFF && x->c.wal_bytes > 0)
		{
			t.small_sync_commits++;
			t.small_sync_commit_ms += x->commit_sync_ms;
			t.small_sync_total_ms += x->total_ms;
			t.small_sync_flushes += x->c.wal_syncs;
		}
		t.nbuffers = x->nbuffers;
		t.wal_skip_threshold_kb = x->wal_skip_threshold_kb;
		if (t.wal_level >= 0 && t.wal_level != x->wal_level)
			t.mixed_wal_level = true;
		t.wal_level = x->wal_level;
	}

	if (t.xacts == 0)
	{
		if (one)
			emit(&em, "info", "transaction not found",
				 psprintf("no transaction with xact_id " INT64_FORMAT " is kept in walload_xacts", want),
				 "Only the last walload.max_xacts transactions are kept; raise it to keep more.");
		else
			emit(&em, "info", "nothing recorded",
				 "walload_xacts is empty",
				 "Run the load with walload preloaded, then call walload_diagnose() again.");
		return (Datum) 0;
	}

	diagnose_scans(&em, &t, ns);
	diagnose_commit(&em, &t);
	diagnose_vacuum(&em, one, want);
	diagnose_wal(&em, &t);
	return (Datum) 0;
}

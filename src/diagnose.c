/*-------------------------------------------------------------------------
 *
 * diagnose.c
 *		walload_findings() / walload_diagnose(): the recorded transactions
 *		turned into findings -- what cost the time, the evidence, what to
 *		change -- and walload_diagnose_backend() for a running one.
 *
 * Each rule reads only recorded figures; every saving is the what-if
 * engine's (whatif.c), with its change as data.  Rows: the verdict, then
 * largest saving first, then the facts in the order the rules run.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xlog.h"
#include "catalog/pg_collation.h"
#include "fmgr.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/tuplestore.h"

#include "measure.h"
#include "cost.h"
#include "store.h"
#include "views.h"
#include "whatif.h"

PG_FUNCTION_INFO_V1(walload_diagnose);
PG_FUNCTION_INFO_V1(walload_diagnose_backend);

#define WL_SUMMED(X) \
	X(double, total_ms) X(double, commit_ms) X(double, commit_sync_ms) \
	X(double, commit_cleanup_ms) X(int32, synced_rels) X(int64, synced_blocks) \
	X(int32, synced_truncated_rels) X(int32, wal_logged_rels) \
	X(int64, wal_logged_blocks) X(int32, dropped_rels)
#define WL_SUM_FIELD(type, name) type name;
#define WL_SUM_ADD(type, name) t.name += x->name;

/* the transactions in scope, summed (WL_SUMMED: as they are) */
typedef struct Totals
{
	int			xacts;
	int			commits;
	WL_SUMMED(WL_SUM_FIELD)
	WlCounters	c;
	int			drop_xacts;		/* committed, with a deletion scan */
	int			vacuum_full_xacts;	/* of those, a VACUUM alone (not in drop_xacts) */
	const WlXactRecord *last;	/* its settings: nbuffers, wal_level, ... */
	int			strategy_commits;	/* walload.commit_strategy was not off */
	int			strategy_acted; /* and set wal_skip_threshold */
	int			strategy_aside[WL_ACTION_ASIDE_MISPREDICTED + 1];	/* by reason */
	double		strategy_pred_ms;	/* predicted commits, as chosen */
	double		strategy_core_ms;	/* and as core would have done them */
	double		strategy_commit_ms; /* measured */
	int			standby_commits;	/* waited for a synchronous standby */
	double		standby_ms;		/* their waits (derived: accumulator.c) */
	int			standby_sync_commit;	/* the last one's synchronous_commit */
} Totals;

/*
 * Columns: 1.3 severity, finding, evidence, hint; 1.6 saving_ms fifth; 1.7 saving_ms second,
 * brief, action, detail; 1.10 setting, value, shape before detail; 1.11 change fourth
 */
#define WL_DIAGNOSE_COLS	4
#define WL_DIAGNOSE_COLS_1_10	9
#define WL_FINDINGS_COLS	10
static const int diagnose_cols[] = {WL_DIAGNOSE_COLS, WL_DIAGNOSE_COLS + 1, WL_DIAGNOSE_COLS + 2,
WL_DIAGNOSE_COLS_1_10, WL_FINDINGS_COLS};
static const int backend_cols[] = {WL_DIAGNOSE_COLS, WL_FINDINGS_COLS};

/* a saving of this share of the load's time makes a finding a warning */
#define WL_WARN_SAVING_SHARE	0.10

typedef struct Finding
{
	const char *severity;
	const char *finding;
	const char *evidence;
	const char *hint;
	const char *brief;			/* evidence in a few words (NULL: evidence) */
	const char *action;			/* the hint's action (NULL: hint) */
	double		saving_ms;		/* < 0: none (a fact, or not priced) */
	int			order;			/* the order the rules found it in */
	WlWhatIf	change;			/* the change: a setting and value, or shape */
	bool		verdict;		/* the first row: the verdict in words */
} Finding;

typedef struct Emitter
{
	ReturnSetInfo *rsinfo;
	int			n;
	Finding		found[32];		/* at most one of each, and the verdict */
	double		load_ms;		/* the load's time, as walload_report() has it */
} Emitter;

/* a finding, in full and in brief (NULL: the full texts), its saving (< 0: none), its change */
static Finding *
add(Emitter *em, const char *severity, const char *finding, const char *evidence,
	const char *hint, const char *brief, const char *action, double saving_ms,
	const WlWhatIf *w)
{
	Finding    *f = &em->found[em->n];

	if (em->n == lengthof(em->found))
		elog(ERROR, "walload: more findings than %d", em->n);
	memset(f, 0, sizeof(Finding));
	f->severity = severity;
	f->finding = finding;
	f->evidence = pstrdup(evidence);
	f->hint = pstrdup(hint);
	f->brief = brief ? pstrdup(brief) : NULL;
	f->action = action;
	f->saving_ms = saving_ms;
	f->order = em->n++;
	if (saving_ms > 0 && em->load_ms > 0 && saving_ms >= WL_WARN_SAVING_SHARE * em->load_ms)
		f->severity = "warning";
	if (w != NULL)
		f->change = *w;
	return f;
}

/* a saving and its change, where the what-if found one */
#define PRICED(w)	((w)->saving_ms > 0 ? (w)->saving_ms : -1), ((w)->saving_ms > 0 ? (w) : NULL)
static const WlWhatIf unpriced;

/* "s" for a plural, in the short forms */
static const char *
plural(int64 n)
{
	return n == 1 ? "" : "s";
}

static double
pct(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : 0;
}

/* largest saving first, then the unpriced ones in the order found */
static int
finding_cmp(const void *a, const void *b)
{
	const Finding *x = a;
	const Finding *y = b;

	if (x->verdict != y->verdict)
		return x->verdict ? -1 : 1;
	if ((x->saving_ms >= 0) != (y->saving_ms >= 0))
		return x->saving_ms >= 0 ? -1 : 1;
	if (x->saving_ms != y->saving_ms)
		return x->saving_ms > y->saving_ms ? -1 : 1;
	return x->order - y->order;
}

/*
 * The first row: the largest avoidable cost and all priced changes' sum;
 * no saving of its own, so that summing saving_ms counts nothing twice.
 */
static void
verdict(Emitter *em)
{
	const Finding *top = NULL;
	double		sum = 0;
	int			priced = 0;

	if (em->rsinfo->setDesc->natts < WL_DIAGNOSE_COLS_1_10)
		return;
	for (int i = 0; i < em->n; i++)
		if (em->found[i].saving_ms > 0)
		{
			priced++;
			sum += em->found[i].saving_ms - em->found[i].change.overlap_ms;
			if (top == NULL || em->found[i].saving_ms > top->saving_ms)
				top = &em->found[i];
		}
	if (top == NULL)
		add(em, "info", "verdict: nothing avoidable found",
			"no change priced by the what-if engine would save time on this load",
			"The rows below are facts about where the time went.",
			"no priced change would save time", "see the facts below", -1, NULL)->verdict = true;
	else
	{
		double		top_ms = top->saving_ms;
		double		share = pct(top_ms, em->load_ms);
		const char *act = top->action ? top->action : top->hint;

		add(em, top->severity, psprintf("verdict: %s", top->finding),
			psprintf("the largest avoidable cost: about %.1f ms of the load's %.1f ms (%.0f%%); %d priced "
					 "change%s together, about %.1f ms",
					 top_ms, em->load_ms, share, priced, plural(priced), sum),
			psprintf("%s.", act),
			psprintf("%.1f ms of %.1f ms (%.0f%%) avoidable; all %d: %.1f ms",
					 top_ms, em->load_ms, share, priced, sum),
			act, -1, NULL)->verdict = true;
	}
}

/* a text column, NULL for NULL */
static int
put_text(Datum *values, bool *nulls, int i, const char *s)
{
	nulls[i] = s == NULL;
	values[i] = s ? CStringGetTextDatum(s) : (Datum) 0;
	return i + 1;
}

/* the findings, ranked, as rows of the definition's natts columns */
static void
emit_all(Emitter *em)
{
	int			natts = em->rsinfo->setDesc->natts;
	bool		full = natts <= WL_DIAGNOSE_COLS + 1;	/* 1.3, 1.6: the full texts, saving_ms last */
	int			at = full ? WL_DIAGNOSE_COLS : 1;	/* saving_ms */

	qsort(em->found, em->n, sizeof(Finding), finding_cmp);
	for (int i = 0; i < em->n; i++)
	{
		Finding    *f = &em->found[i];
		const char *setting = f->change.setting;
		const char *value = setting ? f->change.value : NULL;
		const char *shape = setting ? NULL : wl_shape_name(f->change.shape);
		Datum		values[WL_FINDINGS_COLS];
		bool		nulls[WL_FINDINGS_COLS];
		int			k = put_text(values, nulls, 0, f->severity);

		k = put_text(values, nulls, full ? k : k + 1, f->finding);
		if (natts == WL_FINDINGS_COLS)
			k = put_text(values, nulls, k, setting ? psprintf("%s = '%s'", setting, value) : shape);
		k = put_text(values, nulls, k, f->brief && !full ? f->brief : f->evidence);
		k = put_text(values, nulls, k, f->action && !full ? f->action : f->hint);
		if (natts >= WL_DIAGNOSE_COLS_1_10)
		{
			k = put_text(values, nulls, k, setting);
			k = put_text(values, nulls, k, value);
			k = put_text(values, nulls, k, shape);
		}
		if (!full)
			put_text(values, nulls, k, psprintf("%s. %s", f->evidence, f->hint));
		if (natts > WL_DIAGNOSE_COLS)
		{
			Datum		saving = Float8GetDatum(f->saving_ms);

			nulls[at] = f->saving_ms < 0;
			/* 1.10 on: for reading, 1 decimal, as numeric */
			values[at] = nulls[at] ? (Datum) 0 : natts < WL_DIAGNOSE_COLS_1_10 ? saving :
				DirectFunctionCall2(numeric_round, DirectFunctionCall1(float8_numeric, saving),
									Int32GetDatum(1));
		}
		tuplestore_putvalues(em->rsinfo->setResult, em->rsinfo->setDesc, values, nulls);
	}
}

static double
mb(double bytes)
{
	return bytes / (1024.0 * 1024.0);
}

/* WAL a block of a new file logged whole at commit: an image, 32 a record */
#define WL_LOGGED_BLOCK_BYTES	(BLCKSZ + 24)

static void
diagnose_scans(Emitter *em, const Totals *t, const WlWhatIfs *w)
{
	int64		full = wl_full_scans(&t->c);
	double		est = t->c.scan_est_ns / 1e6;
	double		share = pct(est, t->total_ms);
	const char *sev = share >= 20 ? "warning" : "info";
	const int64 *scans = t->c.scans;

	if (full == 0)
		return;

	add(em, sev, "full scans of shared buffers",
		psprintf("%lld full scans of shared_buffers (%d buffers each), an estimated %.1f ms "
				 "= %.0f%% of %.1f ms in %d transaction(s); "
				 "commit-time sync %lld, file deletion %lld, truncation %lld, "
				 "flush of one relation %lld, database %lld",
				 (long long) full, t->last->nbuffers, est, share, t->total_ms, t->xacts,
				 (long long) scans[WL_SCAN_FLUSH_PENDING], (long long) scans[WL_SCAN_DROP_PENDING],
				 (long long) scans[WL_SCAN_DROP_REL], (long long) scans[WL_SCAN_FLUSH_REL],
				 (long long) scans[WL_SCAN_DB]),
		psprintf("Each scan walks every buffer header, so its cost grows with shared_buffers, not with the "
				 "data. The findings below name the causes.%s", w->buffers.saving_ms <= 0 ? "" :
				 psprintf(" shared_buffers = %s during the load would make these walks cheaper by about "
						  "%.1f ms (a restart; the load's reads are not priced); %.1f ms of it on walks the "
						  "other changes leave", w->buffers.value, w->buffers.saving_ms,
						  w->buffers.saving_ms - w->buffers.overlap_ms)),
		psprintf("%lld walk%s of %d buffers, about %.1f ms (%.0f%%)",
				 (long long) full, plural(full), t->last->nbuffers, est, share),
		w->buffers.saving_ms > 0 ? psprintf("shared_buffers = %s for the load", w->buffers.value) :
		"the causes follow", PRICED(&w->buffers));

	if (scans[WL_SCAN_FLUSH_PENDING] > 0)
	{
		/* of the two changes that remove these walks, the larger */
		bool		thr = w->threshold.saving_ms > w->syncs.saving_ms;
		int32		truncated = t->synced_truncated_rels;

		add(em, sev, "commit-time sync of new files",
			psprintf("%lld commit(s) synced %d relation file(s) of %lld blocks (%.1f MB) created in the same "
					 "transaction under wal_level=minimal (%d of them truncated in place, synced whatever "
					 "the threshold); %d smaller file(s) (%lld blocks) were WAL-logged instead; "
					 "wal_skip_threshold = %d kB",
					 (long long) scans[WL_SCAN_FLUSH_PENDING], t->synced_rels,
					 (long long) t->synced_blocks, mb((double) t->synced_blocks * BLCKSZ),
					 truncated, t->wal_logged_rels, (long long) t->wal_logged_blocks,
					 t->last->wal_skip_threshold_kb),
			psprintf("Relations created (or truncated) in the loading transaction skip WAL and are fsynced at "
					 "commit after a scan of all shared buffers%s%s%s.", w->syncs.saving_ms <= 0 ? "" :
					 psprintf(". Loading in one transaction instead of these %d would save %lld walks and %lld "
							  "commit flushes, about %.1f ms",
							  w->syncs.xacts, (long long) w->syncs.walks_saved,
							  (long long) w->syncs.flushes_saved, w->syncs.saving_ms),
					 w->threshold.saving_ms <= 0 ? "" :
					 psprintf(". wal_skip_threshold = %s (above the largest file not truncated in place) would "
							  "WAL-log %d file(s) at commit instead of syncing them, about %.1f ms less%s",
							  w->threshold.value, t->synced_rels - truncated, w->threshold.saving_ms,
							  wal_compression != WAL_COMPRESSION_NONE ? " (less WAL with wal_compression)" : ""),
					 truncated <= 0 ? "" :
					 psprintf(". %d file(s) were truncated in place in the transaction that created them: core "
							  "syncs those whatever wal_skip_threshold says; load them once instead", truncated)),
			psprintf("%lld commit%s synced %d file%s, %.1f MB, a walk each",
					 (long long) scans[WL_SCAN_FLUSH_PENDING], plural(scans[WL_SCAN_FLUSH_PENDING]),
					 t->synced_rels, plural(t->synced_rels), mb((double) t->synced_blocks * BLCKSZ)),
			Max(w->threshold.saving_ms, w->syncs.saving_ms) <= 0 ?
			(truncated > 0 ? "load each table once: no TRUNCATE after CREATE" :
			 "commit after CREATE TABLE, or load more per transaction") :
			thr ? psprintf("wal_skip_threshold = %s", w->threshold.value) :
			"load in one transaction (see below)",
			PRICED(thr ? &w->threshold : &unpriced));
	}

	if (scans[WL_SCAN_DROP_PENDING] > 0)
		add(em, sev, "file deletion at commit/abort",
			psprintf("%lld scan(s) to delete the files of %d dropped, truncated, rewritten or rolled-back "
					 "relation(s), one per commit or rollback that deleted any%s",
					 (long long) scans[WL_SCAN_DROP_PENDING], t->dropped_rels, t->vacuum_full_xacts <= 0 ? "" :
					 psprintf("; %d of them by VACUUM FULL, one transaction per table", t->vacuum_full_xacts)),
			psprintf("Every transaction that deletes relation files scans all shared buffers once, however many "
					 "files it deletes, and its commit always waits for its WAL flush%s%s%s",
					 t->vacuum_full_xacts <= 0 ? "" :
					 ". VACUUM FULL (and vacuumdb --full) runs one transaction per table and cannot share "
					 "one: rewrite only the tables that need it (pgstattuple shows their bloat), or use "
					 "CLUSTER table or REINDEX TABLE, which can run together in one transaction and share "
					 "its one scan, holding every table's lock until the commit",
					 w->drops.saving_ms <= 0 ? "" :
					 psprintf(". Drop or truncate tables in one transaction instead of these %d: %lld walks and "
							  "%lld WAL flushes fewer, about %.1f ms",
							  w->drops.xacts, (long long) w->drops.walks_saved,
							  (long long) w->drops.flushes_saved, w->drops.saving_ms),
					 t->vacuum_full_xacts == 0 || t->drop_xacts > 0 ?
					 "; reuse staging tables instead of dropping and re-creating them, and avoid rolling "
					 "back transactions that created tables." : "."),
			psprintf("%lld walk%s to delete %d file%s%s",
					 (long long) scans[WL_SCAN_DROP_PENDING], plural(scans[WL_SCAN_DROP_PENDING]),
					 t->dropped_rels, plural(t->dropped_rels),
					 t->vacuum_full_xacts > 0 ? psprintf(", %d by VACUUM FULL", t->vacuum_full_xacts) : ""),
			w->drops.saving_ms > 0 ?
			psprintf("drop in one transaction: %lld walk%s fewer",
					 (long long) w->drops.walks_saved, plural(w->drops.walks_saved)) :
			t->vacuum_full_xacts > 0 ?
			"VACUUM FULL only bloated tables, or CLUSTER them in one transaction" :
			"reuse staging tables instead of dropping them", PRICED(&w->drops));

	if (scans[WL_SCAN_DROP_REL] > 0)
		add(em, sev, "in-place truncation",
			psprintf("%lld in-place truncation(s), one scan each%s", (long long) scans[WL_SCAN_DROP_REL],
					 w->truncated_synced <= 0 ? "" :
					 psprintf("; %d truncated file(s) fsynced at commit by force", w->truncated_synced)),
			psprintf("TRUNCATE of a table created or truncated earlier in the same subtransaction truncates the "
					 "heap, every index and the TOAST table in place, one scan each, and under "
					 "wal_level=minimal core then fsyncs the table at commit whatever its size%s. VACUUM "
					 "scans once per truncation of a table's empty tail; the vacuum_truncate storage "
					 "parameter turns that off for a table.", w->truncate.saving_ms <= 0 ? "" :
					 psprintf(": load such a table once instead of truncating and loading it again: %lld walks "
							  "fewer, the TRUNCATEs and the loads they discard (%.1f ms as recorded)%s, about "
							  "%.1f ms",
							  (long long) w->truncate.walks_saved, w->truncate_reload_ms,
							  w->truncated_synced > 0 ? ", no forced fsync of small tables" : "",
							  w->truncate.saving_ms)),
			psprintf("%lld in-place truncation%s, a walk each%s",
					 (long long) scans[WL_SCAN_DROP_REL], plural(scans[WL_SCAN_DROP_REL]),
					 w->truncated_synced > 0 ? ", forced fsyncs" : ""),
			w->truncate.saving_ms > 0 ? "load each table once: no TRUNCATE after CREATE" :
			"vacuum_truncate = off for the table", PRICED(&w->truncate));

	if (scans[WL_SCAN_FLUSH_REL] > 0)
		add(em, "info", "flush of one relation (SET TABLESPACE)",
			psprintf("%lld flush(es) of a single relation", (long long) scans[WL_SCAN_FLUSH_REL]),
			"ALTER ... SET TABLESPACE flushes each moved file (heap, TOAST, TOAST index) with a full scan; "
			"unlogged sequences are flushed whenever they are created or reset. Move tables before loading them.",
			NULL, "move tables before loading them", -1, NULL);
	if (scans[WL_SCAN_DB] > 0)
		add(em, "info", "database walks (DROP, SET TABLESPACE)",
			psprintf("%lld database-wide scan(s)", (long long) scans[WL_SCAN_DB]),
			"Each drops every buffer of the database with a full scan; avoid creating and dropping "
			"databases per test or per load.",
			NULL, "avoid creating and dropping databases per load", -1, NULL);
}

/* whether the small commits' finding is made, with its saving */
static bool
small_offered(const WlWhatIfs *w)
{
	return w->small.xacts >= 100 && w->small.saving_ms > 0 &&
		pct(w->small_commit_ms, w->small_total_ms) >= 10;
}

static void
diagnose_commit(Emitter *em, const Totals *t, const WlWhatIfs *w)
{
	const int  *aside = t->strategy_aside;
	int			n = w->syncs.xacts - w->later_only;	/* syncing commits one_transaction replays */

	if (t->commits == 0)
		return;

	/* a standby's wait is diagnose_standby's: no storage hint shortens it */
	if (t->commit_ms - t->standby_ms >= 10 &&
		pct(t->commit_ms - t->standby_ms, t->total_ms) >= 50)
		add(em, "warning", "the commit phase dominates",
			psprintf("commit phases took %.1f ms of %.1f ms (%.0f%%): sync part %.1f ms, cleanup part %.1f ms; "
					 "%d relation file(s) synced, %d WAL-logged",
					 t->commit_ms, t->total_ms, pct(t->commit_ms, t->total_ms),
					 t->commit_sync_ms, t->commit_cleanup_ms, t->synced_rels, t->wal_logged_rels),
			t->synced_rels > 1 ?
			psprintf("Many relation files were fsynced at commit: under wal_level=minimal each new file at or "
					 "above wal_skip_threshold (and each truncated in place) is fsynced one by one. Load into "
					 "fewer, larger tables per transaction%s",
					 w->threshold.saving_ms > 0 ? ", or raise wal_skip_threshold so small files are WAL-logged "
					 "instead." : "; the priced findings name the changes.") :
			"The commit waited for its WAL flush (and replication, if synchronous), or for file deletion. "
			"The priced findings name the changes.",
			psprintf("commits took %.1f of %.1f ms (%.0f%%)",
					 t->commit_ms, t->total_ms, pct(t->commit_ms, t->total_ms)),
			t->synced_rels > 1 ? "fewer, larger tables a transaction" : "see the priced findings",
			-1, NULL);

	if (t->strategy_commits > 0)
		add(em, "info", "walload chose how new files reach disk",
			psprintf("walload.commit_strategy was on for %d commit(s) and set wal_skip_threshold for %d of "
					 "them%s%s%s%s", t->strategy_commits, t->strategy_acted, t->strategy_acted <= 0 ? "" :
					 psprintf(": their commits were predicted at %.1f ms as chosen against %.1f ms as "
							  "core would have done them, and took %.1f ms",
							  t->strategy_pred_ms, t->strategy_core_ms, t->strategy_commit_ms),
					 aside[WL_ACTION_ASIDE_SET_LOCAL] <= 0 ? "" :
					 psprintf("; it stood aside for %d whose transaction set wal_skip_threshold itself",
							  aside[WL_ACTION_ASIDE_SET_LOCAL]),
					 aside[WL_ACTION_ASIDE_UNCALIBRATED] <= 0 ? "" :
					 psprintf("; auto stood aside for %d, its figures not timed since the server's last "
							  "start or crash-restart (walload_info.calibration)",
							  aside[WL_ACTION_ASIDE_UNCALIBRATED]),
					 aside[WL_ACTION_ASIDE_MISPREDICTED] <= 0 ? "" :
					 psprintf("; auto stood aside for %d, its backend's recent commits having taken far "
							  "longer than it predicted (walload_info.auto_aside_reason)",
							  aside[WL_ACTION_ASIDE_MISPREDICTED])),
			"Per commit, walload WAL-logged the new files it predicted cheaper to WAL-log and fsynced the "
			"others (walload_xacts.commit_threshold_kb is the wal_skip_threshold core used). Both keep "
			"every committed row across a crash. Set walload.commit_strategy = off to let core decide.",
			psprintf("on for %d commit%s, changed the threshold for %d",
					 t->strategy_commits, plural(t->strategy_commits), t->strategy_acted),
			"walload.commit_strategy = off lets core decide", -1, NULL);

	/* commits that deleted files are not small ones: they always wait, priced with the deletion */
	if (small_offered(w))
		add(em, pct(w->small_commit_ms, w->small_total_ms) >= 30 ? "warning" : "info",
			"many small synchronous commits",
			psprintf("%d commits of at most 2 statements that deleted no file, with synchronous_commit on, "
					 "spent %.1f ms (%.3f ms each, %.0f%% of their %.1f ms) in the commit's WAL flush",
					 w->small.xacts, w->small_commit_ms, w->small_commit_ms / w->small.xacts,
					 pct(w->small_commit_ms, w->small_total_ms), w->small_total_ms),
			psprintf("Each commit waits for a WAL flush. Batch rows into fewer transactions (or COPY): "
					 "one transaction instead of these %d would save about %.1f ms; "
					 "synchronous_commit = off for the loading session spares the same waits (a crash "
					 "can then lose the last commits, never corrupts data), but not those of commits "
					 "that delete files, which always wait.",
					 w->small.xacts, w->small.saving_ms),
			psprintf("%d small commits spent %.1f ms (%.0f%%) flushing WAL",
					 w->small.xacts, w->small_commit_ms, pct(w->small_commit_ms, w->small_total_ms)),
			"batch them into fewer transactions", PRICED(&w->small));

	/* offered where it saves more than the threshold, which removes the same walks */
	if (w->syncs.saving_ms > 0 && w->syncs.saving_ms >= w->threshold.saving_ms)
		add(em, "info", "load in many transactions",
			psprintf("%s%s", n <= 0 ? "" :
					 psprintf("%d commit%s synced or WAL-logged the files %s transaction created, each with its "
							  "own commit record and flush", n, plural(n), n == 1 ? "its" : "their"),
					 w->later_xacts <= 0 ? "" :
					 psprintf("%s%d transaction%s loaded a table created in an earlier transaction, writing "
							  "%.1f MB of WAL under wal_level=minimal", n > 0 ? "; " : "",
							  w->later_xacts, plural(w->later_xacts), w->syncs.wal_bytes_saved / 1048576.0)),
			psprintf("Their commit-time work, replayed as one commit over all their files (each file "
					 "synced or WAL-logged as core decides it per file, one walk of the pool if any is "
					 "synced, one commit record and flush)%s, costs about %.1f ms less: load in one "
					 "transaction (psql --single-transaction, or BEGIN ... COMMIT around the load); "
					 "%lld walk%s and %lld commit flush%s fewer.",
					 w->later_xacts == 0 ? "" :
					 ", with the loads into tables created in the same transaction skipping their WAL "
					 "and their files synced or WAL-logged at that commit instead",
					 w->syncs.saving_ms, (long long) w->syncs.walks_saved, plural(w->syncs.walks_saved),
					 (long long) w->syncs.flushes_saved, w->syncs.flushes_saved == 1 ? "" : "es"),
			psprintf("%d commits, each syncing or WAL-logging new files or loading them", w->syncs.xacts),
			w->later_xacts > 0 ?
			psprintf("load in one transaction: %.1f MB of WAL fewer", w->syncs.wal_bytes_saved / 1048576.0) :
			psprintf("load in one transaction: %lld walk%s fewer",
					 (long long) w->syncs.walks_saved, plural(w->syncs.walks_saved)),
			PRICED(&w->syncs));

	if (w->restore.saving_ms > 0)
		add(em, "info", "restore without one transaction",
			psprintf("pg_restore committed %d transactions; their commits' sync phases took %.1f ms",
					 w->restore.xacts, w->restore.saving_ms * w->restore.xacts / (w->restore.xacts - 1)),
			psprintf("pg_restore (or psql) with --single-transaction commits once: %lld commit "
					 "flushes fewer, about %.1f ms; under wal_level=minimal the restored tables "
					 "then skip WAL too.",
					 (long long) w->restore.flushes_saved, w->restore.saving_ms),
			psprintf("pg_restore: %d commits", w->restore.xacts),
			"pg_restore --single-transaction", PRICED(&w->restore));
}

/* a synchronous standby's wait: synchronous_commit = local removes it, no storage setting */
#define WL_STANDBY_MIN_SHARE	5

static void
diagnose_standby(Emitter *em, const Totals *t)
{
	static const WlWhatIf local = {.setting = "synchronous_commit",.value = "local"};
	double		batch_ms = t->standby_ms * (t->standby_commits - 1) / Max(t->standby_commits, 1);

	if (t->standby_commits == 0 || t->standby_ms <= 0 ||
		pct(t->standby_ms, t->total_ms) < WL_STANDBY_MIN_SHARE)
		return;
	add(em, pct(t->standby_ms, t->total_ms) >= 30 ? "warning" : "info",
		"commits waited for a standby",
		psprintf("%d commit%s with synchronous_commit = %s waited %.1f ms (%.3f ms each, %.0f%% of "
				 "the transactions' %.1f ms) for a synchronous standby to confirm their commit "
				 "records, derived as each commit's sync part less its local WAL flush and file "
				 "work: not a local WAL flush, and no storage setting shortens it",
				 t->standby_commits, plural(t->standby_commits),
				 wl_sync_commit_name(t->standby_sync_commit), t->standby_ms,
				 t->standby_ms / t->standby_commits, pct(t->standby_ms, t->total_ms), t->total_ms),
		psprintf("Set synchronous_commit = local for the loading session (SET synchronous_commit = "
				 "local): its commits then wait for the local WAL flush only, saving about %.1f ms; "
				 "a failover before the standby catches up can lose its last commits (the primary "
				 "keeps them). Or batch the rows into fewer transactions: one instead of these %d "
				 "would wait once, saving about %.1f ms.",
				 t->standby_ms, t->standby_commits, batch_ms),
		psprintf("%d commit%s waited %.1f ms (%.0f%%) for a standby",
				 t->standby_commits, plural(t->standby_commits), t->standby_ms,
				 pct(t->standby_ms, t->total_ms)),
		psprintf("synchronous_commit = local: about %.1f ms; or batch: %.1f ms", t->standby_ms, batch_ms),
		t->standby_ms, &local);
}

/*
 * Full-page images by cause (only the first a setting changes); walload
 * keeps no cause per image: a top-level statement's go by its command tag.
 */
typedef enum WlFpiCause
{
	WL_FPI_CHECKPOINT,			/* first change of a page after a checkpoint */
	WL_FPI_NEW_FILE				/* whole-page logging of a new file */
} WlFpiCause;

#define WL_FPI_TAGS		((int) WL_NUM_COMMAND_TAGS + 1)
#define WL_FPI_VACUUM_FULL	((int) WL_NUM_COMMAND_TAGS) /* its own slot */

/* images of the top-level statements, by cause and command */
typedef struct FpiScope
{
	int64		by_tag[2][WL_FPI_TAGS];
	int64		total[2];
} FpiScope;

/* whether the text matches an ARE, case-insensitively */
static bool
text_matches(const char *q, const char *re)
{
	return DatumGetBool(DirectFunctionCall2Coll(texticregexeq, C_COLLATION_OID,
												CStringGetTextDatum(q), CStringGetTextDatum(re)));
}

/* VACUUM FULL from its text: "VACUUM FULL ..." or "VACUUM (..., FULL [true|on|1], ...)" */
#define WL_VACUUM_FULL_RE	"^\\s*vacuum\\M\\s*(full\\M|\\(([^)]*[,\\s])?full\\M(?!\\s*(false|off|0)\\M))"
#define WL_CONCURRENTLY_RE	"(^|[^[:alnum:]])concurrently\\M"

WL_CMP_FUNCTION(xact_id_cmp, uint64)

/*
 * A statement's images' cause, by command; else by its text if the caller
 * may read it, else by whether its transaction deleted files (VACUUM FULL, REFRESH).
 */
static WlFpiCause
fpi_cause(const WlStmtRecord *s, bool xact_deleted, int *slot)
{
	bool		text = wl_can_see_text(s->userid);
	bool		deleted = !text && xact_deleted;

	*slot = (int) s->tag;
	switch (s->tag)
	{
		case CMDTAG_CREATE_INDEX:
		case CMDTAG_REINDEX:
		case CMDTAG_CREATE_DATABASE:
		case CMDTAG_CLUSTER:
			/* index builds, SET TABLESPACE, ATTACH PARTITION, rewrites */
		case CMDTAG_ALTER_TABLE:
		case CMDTAG_ALTER_INDEX:
		case CMDTAG_ALTER_MATERIALIZED_VIEW:
			return WL_FPI_NEW_FILE;
		case CMDTAG_REFRESH_MATERIALIZED_VIEW:
			/* CONCURRENTLY changes the existing pages with DML */
			if (text ? text_matches(s->query, WL_CONCURRENTLY_RE) : !deleted)
				return WL_FPI_CHECKPOINT;
			return WL_FPI_NEW_FILE;
		case CMDTAG_VACUUM:
			if (text ? text_matches(s->query, WL_VACUUM_FULL_RE) : deleted)
			{
				*slot = WL_FPI_VACUUM_FULL;
				return WL_FPI_NEW_FILE;
			}
			return WL_FPI_CHECKPOINT;
		default:
			/* REPACK (19+) rewrites as CLUSTER does */
			if (strcmp(GetCommandTagName(s->tag), "REPACK") == 0)
				return WL_FPI_NEW_FILE;
			return WL_FPI_CHECKPOINT;
	}
}

/* "; n what (CMD n, CMD n, CMD n, ...)": the commands of one cause, most images first */
static void
append_fpi_commands(StringInfo buf, int64 n, const char *what, const int64 *by_tag)
{
	bool		used[WL_FPI_TAGS] = {false};

	if (n <= 0)
		return;
	appendStringInfo(buf, "; %lld %s (", (long long) n, what);
	for (int k = 0;; k++)
	{
		int			best = -1;

		for (int i = 0; i < WL_FPI_TAGS; i++)
			if (!used[i] && by_tag[i] > 0 && (best < 0 || by_tag[i] > by_tag[best]))
				best = i;
		if (best < 0 || k == 3)
		{
			appendStringInfoString(buf, best < 0 ? ")" : ", ...)");
			return;
		}
		used[best] = true;
		appendStringInfo(buf, "%s%s %lld", k > 0 ? ", " : "",
						 best == WL_FPI_VACUUM_FULL ? "VACUUM FULL" : GetCommandTagName((CommandTag) best),
						 (long long) by_tag[best]);
	}
}

static void
diagnose_wal(Emitter *em, const Totals *t, const WlWhatIfs *w, const FpiScope *fs)
{
	StringInfoData ev;
	int64		commit_fpi = Min(t->wal_logged_blocks, t->c.wal_fpi);
	/* never more than the transactions wrote: the statement ring may be ahead */
	int64		new_fpi = Min(fs->total[WL_FPI_NEW_FILE], t->c.wal_fpi - commit_fpi);
	int64		ckpt_fpi = Min(fs->total[WL_FPI_CHECKPOINT], t->c.wal_fpi - commit_fpi - new_fpi);
	int64		other_fpi = t->c.wal_fpi - commit_fpi - new_fpi - ckpt_fpi;
	double		wal_mb = mb((double) t->c.wal_bytes);
	bool		big = t->c.wal_bytes >= 1024 * 1024;
	bool		offer = t->last->wal_level != WAL_LEVEL_MINIMAL && w->minimal_allowed;
	bool		priced = offer && w->wal_level.saving_ms > 0;
	/* the price of wal_level = minimal, in a hint (whatif.c wl_whatif_minimal), where priced */
	const char *minimal_price = !priced ? "" :
		psprintf(": %.1f MB of this load's WAL, written in %d transaction%s into tables each created or "
				 "truncated, would not be written, about %.1f ms net of the %.1f ms of commit-time syncs "
				 "or WAL-logging of the new files minimal adds (the statements after a CREATE TABLE or "
				 "TRUNCATE in their transaction counted, by their order)",
				 mb((double) w->wal_level.wal_bytes_saved), w->wal_level.xacts, plural(w->wal_level.xacts),
				 w->wal_level.saving_ms, w->wal_level.added_ms);

	if (t->c.wal_bytes == 0)
		return;

	initStringInfo(&ev);
	appendStringInfo(&ev, "%.1f MB of WAL in %lld records with %lld full-page images",
					 wal_mb, (long long) t->c.wal_records, (long long) t->c.wal_fpi);
	append_fpi_commands(&ev, ckpt_fpi, "first changes of a page after a checkpoint",
						fs->by_tag[WL_FPI_CHECKPOINT]);
	append_fpi_commands(&ev, new_fpi, "pages of new files logged whole", fs->by_tag[WL_FPI_NEW_FILE]);
	if (commit_fpi > 0)
		appendStringInfo(&ev, "; %lld (%.1f MB) logged at commit the %d new file(s) "
						 "below wal_skip_threshold (%d kB)",
						 (long long) commit_fpi, mb((double) commit_fpi * BLCKSZ),
						 t->wal_logged_rels, t->last->wal_skip_threshold_kb);
	if (other_fpi > 0)
		appendStringInfo(&ev, "; %lld not attributed to a recorded top-level statement",
						 (long long) other_fpi);

	/* images count at most BLCKSZ each: "dominate" is an upper bound */
	if (big && (double) ckpt_fpi * BLCKSZ >= 0.5 * (double) t->c.wal_bytes)
		add(em, "warning", "full-page images after checkpoints", ev.data,
			psprintf("The first change of each page after a checkpoint logs the whole page. Fewer "
					 "checkpoints during the load cut this: a larger max_wal_size (%s counts the "
					 "checkpoints WAL volume forced) and a longer checkpoint_timeout; wal_compression = on "
					 "makes each image smaller.", WL_HAS_STAT_CHECKPOINTER ?
					 "num_requested in pg_stat_checkpointer" : "checkpoints_req in pg_stat_bgwriter"),
			psprintf("%.1f MB of WAL, %lld page images after checkpoints", wal_mb, (long long) ckpt_fpi),
			"a larger max_wal_size and checkpoint_timeout; wal_compression", -1, NULL);
	else if (big && (double) (new_fpi + commit_fpi) * BLCKSZ >= 0.5 * (double) t->c.wal_bytes)
		add(em, "info", "full-page images of new files", ev.data,
			psprintf("Index builds, CLUSTER and VACUUM FULL, REFRESH MATERIALIZED VIEW, ALTER ... SET "
					 "TABLESPACE and CREATE DATABASE write every page of the new file to WAL as an image, "
					 "and so does the commit of small files created under wal_level=minimal. These images "
					 "are the new data itself: no checkpoint setting, nor full_page_writes, changes them. "
					 "To write less, build indexes once after loading rather than rebuilding them, and "
					 "avoid rewrites%s%s; wal_compression = on makes each image smaller.",
					 t->last->wal_level == WAL_LEVEL_MINIMAL ?
					 "; under wal_level=minimal a file at or above wal_skip_threshold is fsynced at "
					 "commit instead of WAL-logged" : !w->minimal_allowed ? "" :
					 "; this server neither streams nor archives WAL: under wal_level=minimal (with "
					 "max_wal_senders = 0) files created in the transaction skip WAL", minimal_price),
			psprintf("%.1f MB of WAL, %lld page images of new files", wal_mb, (long long) (new_fpi + commit_fpi)),
			"build indexes once, after loading; avoid rewrites", PRICED(priced ? &w->wal_level : &unpriced));
	else
		/* minimal offered only where nothing streams or archives the WAL (whatif.c) */
		add(em, "info", "WAL written", ev.data,
			psprintf("%s%s%s", t->last->wal_level == WAL_LEVEL_MINIMAL ?
					 "Under wal_level=minimal, tables created or truncated in the loading transaction skip WAL; "
					 "at commit, files below wal_skip_threshold are WAL-logged whole and larger ones are "
					 "fsynced after a full scan of shared_buffers." :
					 offer ?
					 "Every loaded row is WAL-logged. This server neither streams nor archives WAL: "
					 "wal_level=minimal (with max_wal_senders = 0, a restart) would skip WAL for tables created "
					 "or truncated in the loading transaction, at the price of a commit-time sync and a full "
					 "scan of shared_buffers" :
					 "Every loaded row is WAL-logged; this server streams or archives its WAL, which needs it.",
					 minimal_price, offer ? "." : ""),
			psprintf("%.1f MB of WAL in %lld records, %lld page images",
					 wal_mb, (long long) t->c.wal_records, (long long) t->c.wal_fpi),
			t->last->wal_level == WAL_LEVEL_MINIMAL ?
			"a fact: tables created in the loading transaction skip WAL" :
			priced ?
			psprintf("wal_level = minimal: %.1f MB of WAL fewer", mb((double) w->wal_level.wal_bytes_saved)) :
			offer ? "wal_level = minimal would skip WAL for new tables" :
			"a fact: replication or archiving needs this WAL",
			priced ? w->wal_level.saving_ms : -1, offer ? &w->wal_level : NULL);
}

/* a bulk load: what the statement ring says of it (scan_loads) */
#define WL_BULK_ROWS	10000

/* the VACUUM statements' sums (diagnose_vacuum) */
typedef struct VacuumSums
{
	int			nvac;
	int64		syncs;
	int64		writes;
	int64		pages;
	double		sync_ms;
	double		elapsed;
	int			ring_kb;
} VacuumSums;

/* a transaction in scope, by xact_id, and its place in the caller's order */
typedef struct XactIndex
{
	uint64		xact_id;		/* first: xact_id_cmp compares it */
	int			i;
} XactIndex;

/* one pass over the statement ring: what every reading of it needs */
typedef struct LoadScan
{
	/* in: the transactions in scope, and sorted; VACUUM of those only */
	WlXactRecord **in;
	const XactIndex *ids;
	int			nxacts;
	bool		scoped;
	FpiScope	fpi;			/* out: full-page images by cause */
	VacuumSums	vac;			/* out: VACUUM statements */
	/* out: per transaction, in the caller's order */
	int32	   *new_files;
	uint64	   *skip_bytes;
	uint64	   *later_bytes;	/* bulk loads' WAL, tables made before */
	double		later_idx_bytes;	/* of those, priced indexes' entries */
	double	   *reload_ms;		/* TRUNCATEs, and the loads they discard */
	/* out: loads after CREATE INDEX; of those, into a table made in scope */
	int			idx_xacts;
	int			idx_loads;
	int64		idx_rows;
	int64		idx_records;
	double		idx_ms;
	int			idx_priced;
	WlWhatIf	idx_after;
} LoadScan;

static bool
load_filter(const WlStmtRecord *s, void *arg)
{
	LoadScan   *ls = arg;
	const XactIndex *at = bsearch(&s->xact_id, ls->ids, ls->nxacts, sizeof(XactIndex), xact_id_cmp);

	if (s->tag == CMDTAG_VACUUM && (at != NULL || !ls->scoped))
	{
		ls->vac.nvac++;
		ls->vac.syncs += s->c.wal_syncs;
		ls->vac.writes += s->c.wal_writes;
		ls->vac.sync_ms += s->c.wal_sync_us / 1000.0;
		ls->vac.pages += s->vacuum_pages;
		ls->vac.elapsed += s->elapsed_ms;
		ls->vac.ring_kb = s->vacuum_ring_kb;
	}
	if (!s->toplevel || at == NULL)
		return false;
	/* a top-level statement's images, by cause (nested ones are in its figures) */
	if (s->c.wal_fpi > 0)
	{
		int			slot;
		WlFpiCause	cause = fpi_cause(s, ls->in[at->i]->c.scans[WL_SCAN_DROP_PENDING] > 0, &slot);

		ls->fpi.by_tag[cause][slot] += s->c.wal_fpi;
		ls->fpi.total[cause] += s->c.wal_fpi;
	}
	return s->tag == CMDTAG_CREATE_TABLE || s->tag == CMDTAG_CREATE_TABLE_AS ||
		s->tag == CMDTAG_SELECT_INTO || s->tag == CMDTAG_TRUNCATE_TABLE ||
		s->tag == CMDTAG_CREATE_INDEX || s->tag == CMDTAG_COPY || s->tag == CMDTAG_INSERT;
}

static bool
pid_in(const int32 *pids, int n, int32 pid)
{
	for (int i = n - 1; i >= 0; i--)
		if (pids[i] == pid)
			return true;
	return false;
}

static void
scan_loads(LoadScan *ls)
{
	WlStmtRecord *recs;
	/* by transaction and number */
	int			n = wl_store_copy_statements_filtered(load_filter, ls, &recs);
	int			i = 0;
	/* the sessions that created a table in scope, as far as read */
	int32	   *creators = palloc(sizeof(int32) * Max(n, 1));
	int			ncreators = 0;

	ls->new_files = palloc0(sizeof(int32) * Max(ls->nxacts, 1));
	ls->skip_bytes = palloc0(sizeof(uint64) * Max(ls->nxacts, 1));
	ls->later_bytes = palloc0(sizeof(uint64) * Max(ls->nxacts, 1));
	ls->reload_ms = palloc0(sizeof(double) * Max(ls->nxacts, 1));
	ls->idx_after.shape = WL_SHAPE_INDEXES_AFTER_LOAD;
	while (i < n)
	{
		uint64		xid = recs[i].xact_id;
		const XactIndex *at = bsearch(&xid, ls->ids, ls->nxacts, sizeof(XactIndex), xact_id_cmp);
		int			k = at->i;
		int			indexes = 0;
		bool		idx_load = false;
		double		loaded_ms = 0;

		for (; i < n && recs[i].xact_id == xid; i++)
		{
			const WlStmtRecord *s = &recs[i];
			bool		later = false;

			switch (s->tag)
			{
				case CMDTAG_CREATE_TABLE_AS:
				case CMDTAG_SELECT_INTO:
					/* its own WAL too, and a new file as CREATE TABLE's */
					ls->skip_bytes[k] += s->c.wal_bytes;
					ls->new_files[k]++;
					break;
				case CMDTAG_TRUNCATE_TABLE:
					/* the loads since the CREATE TABLE, discarded */
					if (ls->new_files[k] > 0)
						ls->reload_ms[k] += loaded_ms + s->elapsed_ms;
					loaded_ms = 0;
					ls->new_files[k]++;
					break;
				case CMDTAG_CREATE_TABLE:
					/* an earlier index can be another table's: not counted for later loads */
					indexes = 0;
					ls->new_files[k]++;
					if (!pid_in(creators, ncreators, s->pid))
						creators[ncreators++] = s->pid;
					break;
				case CMDTAG_CREATE_INDEX:
					if (ls->new_files[k] > 0)
						ls->skip_bytes[k] += s->c.wal_bytes;
					indexes++;
					break;
				default:		/* COPY, INSERT */
					if (ls->new_files[k] > 0)
					{
						ls->skip_bytes[k] += s->c.wal_bytes;
						loaded_ms += s->elapsed_ms;
					}
					else if (s->c.rows >= WL_BULK_ROWS && pid_in(creators, ncreators, s->pid))
					{
						/* by a session that created a table earlier: into it, as told */
						ls->later_bytes[k] += s->c.wal_bytes;
						later = true;
					}
					/* into an index: after CREATE INDEX, or its WAL has an entry's record a row (COPY's heap: a page) */
					if (s->c.rows >= WL_BULK_ROWS &&
						(indexes > 0 ||
						 (s->c.wal_records - (s->tag == CMDTAG_COPY ? 0 : s->c.rows)) * 2 >= s->c.rows))
					{
						idx_load = true;
						ls->idx_loads++;
						ls->idx_rows += s->c.rows;
						ls->idx_records += s->c.wal_records;
						ls->idx_ms += s->elapsed_ms;
						if (pid_in(creators, ncreators, s->pid))
						{
							/* the index entries' share of its WAL records: beyond the heap's (COPY's: a page) */
							int64		heap = s->tag == CMDTAG_COPY ? s->c.shared_blks_dirtied : s->c.rows;

							ls->idx_priced++;
							ls->idx_after.saving_ms += wl_whatif_index_load(s);
							if (later && s->c.wal_records > 0)
								ls->later_idx_bytes += s->c.wal_bytes *
									((double) Max(s->c.wal_records - heap, 0) / s->c.wal_records);
						}
					}
					break;
			}
		}
		if (idx_load)
			ls->idx_xacts++;
	}
}

/* indexes before a bulk load: priced only into tables the load's sessions created */
static void
diagnose_indexes(Emitter *em, const LoadScan *ls)
{
	const WlWhatIf *w = &ls->idx_after;

	if (ls->idx_loads == 0)
		return;
	add(em, "info", "indexes created before a bulk load",
		psprintf("%d load%s (COPY, INSERT) of %lld rows in all ran into indexed tables: after CREATE INDEX "
				 "in the same transaction, or writing an index entry's WAL record a row (%d transaction%s), "
				 "taking %.1f ms and writing %lld WAL records (%.1f a row)",
				 ls->idx_loads, plural(ls->idx_loads), (long long) ls->idx_rows,
				 ls->idx_xacts, plural(ls->idx_xacts), ls->idx_ms, (long long) ls->idx_records,
				 ls->idx_rows > 0 ? (double) ls->idx_records / ls->idx_rows : 0),
		psprintf("Each row loaded into an indexed table is also inserted into every index, one entry at a "
				 "time, and where the table's changes are WAL-logged each index adds a WAL record a row; an "
				 "index built after the data sorts it once. Create indexes and constraints after loading.%s",
				 w->saving_ms > 0 ?
				 psprintf(" For the %d load%s into a table created in the same session%s: about %.1f ms "
						  "(estimated: the loads' index page visits' share of their time, less a sorted build).",
						  ls->idx_priced, plural(ls->idx_priced),
						  ls->idx_priced < ls->idx_loads ? " (the others' tables held rows before: not priced)" : "",
						  w->saving_ms) :
				 " Not priced: the tables were not created in the load, so a rebuild after it would "
				 "also sort the rows they held."),
		psprintf("%d load%s, %lld rows, after CREATE INDEX", ls->idx_loads, plural(ls->idx_loads),
				 (long long) ls->idx_rows),
		w->saving_ms > 0 ? "create indexes after loading" : "create indexes after loading (not priced)",
		w->saving_ms > 0 ? w->saving_ms : -1, w);
}

/* VACUUM's small ring: each dirtied buffer it reuses must first have its WAL flushed */
static void
diagnose_vacuum(Emitter *em, const VacuumSums *v)
{
	if (v->nvac == 0 || v->syncs < 10)
		return;
	add(em, (v->sync_ms > 0 && pct(v->sync_ms, v->elapsed) < 10) ? "info" : "warning",
		"VACUUM forced into WAL flushes",
		psprintf("%d VACUUM statement(s) over %lld heap pages took %.1f ms and flushed WAL %lld times "
				 "(%lld WAL writes) themselves; ring size %d kB%s",
				 v->nvac, (long long) v->pages, v->elapsed, (long long) v->syncs, (long long) v->writes,
				 v->ring_kb, v->sync_ms <= 0 ? "; turn on track_wal_io_timing to see their time" :
				 psprintf("; the flushes took %.1f ms (%.0f%%)", v->sync_ms, pct(v->sync_ms, v->elapsed))),
		WL_HAS_BUFFER_USAGE_LIMIT ?
		"VACUUM reads tables that are not in shared buffers through a small ring, and must flush WAL "
		"before it can reuse a buffer it dirtied. A larger ring flushes less often: "
		"VACUUM (BUFFER_USAGE_LIMIT '256MB') for one run, or vacuum_buffer_usage_limit for the session "
		"(0 disables the ring); loading the table into shared buffers first (pg_prewarm) avoids the ring." :
		"VACUUM reads tables that are not in shared buffers through a fixed 256 kB ring, and must flush "
		"WAL before it can reuse a buffer it dirtied, every few buffers. Loading the table into shared "
		"buffers first (pg_prewarm) avoids the ring; PostgreSQL 16 adds BUFFER_USAGE_LIMIT / "
		"vacuum_buffer_usage_limit to enlarge it.",
		psprintf("%d VACUUM%s flushed WAL %lld times%s", v->nvac, plural(v->nvac), (long long) v->syncs,
				 v->sync_ms > 0 ? psprintf(", %.1f ms (%.0f%%)", v->sync_ms, pct(v->sync_ms, v->elapsed)) : ""),
		WL_HAS_BUFFER_USAGE_LIMIT ?
		"a larger ring (BUFFER_USAGE_LIMIT), or pg_prewarm the table first" :
		"pg_prewarm the table first", -1, NULL);
}

/* walload_diagnose()'s arguments: xact_id, then the filters (NULL: any) */
enum
{
	ARG_XACT, ARG_SINCE, ARG_UNTIL, ARG_PID, ARG_APP, ARG_USERID, ARG_DBID, ARG_BKTYPE, NUM_ARGS
};

typedef struct Scope
{
	bool		has[NUM_ARGS];	/* the argument given, not NULL */
	bool		filtered;		/* by any but xact_id */
	int64		want;
	TimestampTz since;
	TimestampTz until;
	int32		pid;
	char	   *app;
	Oid			userid;
	Oid			dbid;
	char	   *bktype;
} Scope;

/* background processes: initial syncs, their copies, replayed TRUNCATEs, autovacuum's */
#define WL_SMALL_COPY_ROWS		10000
#define WL_MANY_COPIES			10

static void
diagnose_workers(Emitter *em, WlXactRecord **in, int n)
{
	int64		copies = 0,
				small_copies = 0,
				copy_rows = 0;
	int64		minimal_sync_walks = 0,
				minimal_sync_xacts = 0;
	int64		truncate_walks = 0,
				truncate_xacts = 0;
	int64		av_walks = 0,
				av_xacts = 0;
	int32		nbuffers = 0;

	for (int i = 0; i < n; i++)
	{
		WlXactRecord *x = in[i];

		if (x->backend_kind == WL_KIND_CLIENT)
			continue;
		nbuffers = x->nbuffers;
		if (x->backend_kind == WL_KIND_AUTOVACUUM)
		{
			av_xacts += x->c.scans[WL_SCAN_DROP_REL] > 0;
			av_walks += x->c.scans[WL_SCAN_DROP_REL];
			continue;
		}
		if (x->kind_ms[WL_TIME_COPY] > 0 || (x->statements == 1 && x->c.rows > 0 &&
											 x->backend_kind == WL_KIND_TABLESYNC &&
											 x->kind_ms[WL_TIME_OTHER] == 0))
		{
			copies++;
			copy_rows += x->c.rows;
			small_copies += x->c.rows < WL_SMALL_COPY_ROWS;
			/* an initial sync's new files synced at commit under minimal */
			minimal_sync_xacts += x->wal_level == WAL_LEVEL_MINIMAL && x->c.scans[WL_SCAN_FLUSH_PENDING] > 0;
			minimal_sync_walks += x->wal_level == WAL_LEVEL_MINIMAL ? x->c.scans[WL_SCAN_FLUSH_PENDING] : 0;
		}
		/* a replayed TRUNCATE: its deletion's and in-place truncations' walks */
		if (x->kind_ms[WL_TIME_TRUNCATE] > 0 || x->c.scans[WL_SCAN_DROP_PENDING] > 0)
		{
			truncate_xacts += x->c.scans[WL_SCAN_DROP_PENDING] + x->c.scans[WL_SCAN_DROP_REL] > 0;
			truncate_walks += x->c.scans[WL_SCAN_DROP_PENDING] + x->c.scans[WL_SCAN_DROP_REL];
		}
	}

	if (minimal_sync_walks > 0)
		add(em, "notice", "initial sync walks at commit (minimal)",
			psprintf("%lld initial cop%s of the subscription's tables skipped WAL and synced their files at commit: "
					 "%lld walk%s of all %d shared buffers",
					 (long long) minimal_sync_xacts, minimal_sync_xacts == 1 ? "y" : "ies",
					 (long long) minimal_sync_walks, plural(minimal_sync_walks), nbuffers),
			"Under wal_level=minimal each table whose copy writes a new file pays a commit-time walk of the "
			"pool. Set wal_level=replica on the subscriber for the initial sync, or raise wal_skip_threshold "
			"so that small tables are WAL-logged instead of synced.",
			psprintf("%lld commit walk%s in initial sync", (long long) minimal_sync_walks,
					 plural(minimal_sync_walks)),
			"wal_level=replica for the sync, or a larger wal_skip_threshold", -1, NULL);
	if (copies >= WL_MANY_COPIES && small_copies * 2 > copies)
		add(em, "info", "copy_data of many small tables",
			psprintf("%lld of the subscription's %lld initial copies loaded fewer than %d rows "
					 "(%lld rows in all); each is a tablesync worker, a replication slot and a transaction of its own",
					 (long long) small_copies, (long long) copies, WL_SMALL_COPY_ROWS, (long long) copy_rows),
			"Copy the small tables before subscribing (pg_dump --data-only of them) and create the subscription "
			"WITH (copy_data = false), or raise max_sync_workers_per_subscription to run more copies at once.",
			psprintf("%lld small initial copies", (long long) small_copies),
			"copy small tables beforehand, copy_data = false", -1, NULL);
	if (truncate_walks > 0)
		add(em, "notice", "replayed TRUNCATE walks shared buffers",
			psprintf("%lld replayed transaction%s walked all %d shared buffers %lld time%s to drop the "
					 "truncated tables' old files",
					 (long long) truncate_xacts, plural(truncate_xacts), nbuffers,
					 (long long) truncate_walks, plural(truncate_walks)),
			"Each replayed TRUNCATE deletes the old files at commit, one walk of the pool per transaction. "
			"Publish without truncate (WITH (publish = 'insert, update, delete')) and delete the rows "
			"instead, or batch truncations into fewer transactions on the publisher.",
			psprintf("%lld walk%s by replayed TRUNCATE", (long long) truncate_walks, plural(truncate_walks)),
			"publish without truncate, or batch them", -1, NULL);
	if (av_walks > 0)
		add(em, "notice", "autovacuum truncation walks",
			psprintf("autovacuum truncated a table's empty tail %lld time%s in %lld transaction%s, each a walk "
					 "of all %d shared buffers",
					 (long long) av_walks, plural(av_walks), (long long) av_xacts, plural(av_xacts), nbuffers),
			"Truncating a table's tail walks the whole pool, the longer the larger shared_buffers. For tables "
			"whose tail is emptied and refilled, ALTER TABLE ... SET (vacuum_truncate = false).",
			psprintf("%lld autovacuum truncation walk%s", (long long) av_walks, plural(av_walks)),
			"vacuum_truncate = false on those tables", -1, NULL);
}

/* by session (pid, backend start), then start */
static int
session_cmp(const void *a, const void *b)
{
	const WlXactRecord *x = *(WlXactRecord *const *) a;
	const WlXactRecord *y = *(WlXactRecord *const *) b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->backend_start != y->backend_start)
		return x->backend_start < y->backend_start ? -1 : 1;
	return (x->start > y->start) - (x->start < y->start);
}

/* the load's ms as walload_report() counts it: per session, first start (sorted) to last end */
static double
load_ms(WlXactRecord **in, int n, const Scope *sc)
{
	double		ms = 0;
	int			i = 0;

	qsort(in, n, sizeof(WlXactRecord *), session_cmp);
	while (i < n)
	{
		int			j = i;
		TimestampTz first = in[i]->start;
		TimestampTz last = in[i]->end;
		bool		has_first = false;

		while (j < n && in[j]->pid == in[i]->pid && in[j]->backend_start == in[i]->backend_start)
		{
			last = Max(last, in[j]->end);
			/* a session's start only where walload_xacts shows it */
			has_first = has_first || (in[j]->first_in_session && wl_can_see_backend(in[j]->userid));
			j++;
		}
		if (has_first)
			first = sc->has[ARG_SINCE] ? Max(in[i]->backend_start, sc->since) : in[i]->backend_start;
		ms += (double) (last - first) / 1000.0;
		i = j;
	}
	return ms;
}

Datum
walload_diagnose(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Scope		sc = {0};
	WlXactRecord *recs;
	WlXactRecord **in;
	int			n;
	Totals		t = {0};
	Emitter		em = {.rsinfo = rsinfo};
	WlWhatIfs	whatifs;
	LoadScan	loads;
	XactIndex  *ids;
	TimestampTz oldest = PG_INT64_MAX;	/* of all kept, in scope or not */

	wl_store_require();
	for (int k = 0; k < NUM_ARGS && k < PG_NARGS(); k++)
		sc.filtered |= (sc.has[k] = !PG_ARGISNULL(k)) && k != ARG_XACT;
	sc.want = sc.has[ARG_XACT] ? PG_GETARG_INT64(ARG_XACT) : 0;
	if (sc.has[ARG_XACT] && sc.want <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("xact_id must be positive, not " INT64_FORMAT, sc.want)));
	sc.since = sc.has[ARG_SINCE] ? PG_GETARG_TIMESTAMPTZ(ARG_SINCE) : 0;
	sc.until = sc.has[ARG_UNTIL] ? PG_GETARG_TIMESTAMPTZ(ARG_UNTIL) : 0;
	sc.pid = sc.has[ARG_PID] ? PG_GETARG_INT32(ARG_PID) : 0;
	sc.app = sc.has[ARG_APP] ? text_to_cstring(PG_GETARG_TEXT_PP(ARG_APP)) : NULL;
	sc.userid = sc.has[ARG_USERID] ? PG_GETARG_OID(ARG_USERID) : InvalidOid;
	sc.dbid = sc.has[ARG_DBID] ? PG_GETARG_OID(ARG_DBID) : InvalidOid;
	if (sc.has[ARG_BKTYPE])
	{
		int			k = WL_KIND_CLIENT;

		/* it names a kind walload records: any other is an error */
		sc.bktype = text_to_cstring(PG_GETARG_TEXT_PP(ARG_BKTYPE));
		while (k <= WL_KIND_AUTOVACUUM && strcmp(sc.bktype, wl_backend_kind_name(k)) != 0)
			k++;
		if (k > WL_KIND_AUTOVACUUM)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("walload records no backend_type \"%s\"", sc.bktype),
					 errhint("Use one of '%s', '%s', '%s', '%s'.",
							 WL_BKTYPE_CLIENT, WL_BKTYPE_APPLY, WL_BKTYPE_TABLESYNC, WL_BKTYPE_AUTOVACUUM)));
	}
	if (sc.has[ARG_SINCE] && sc.has[ARG_UNTIL] && sc.since > sc.until)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("since must not be later than until")));

	InitMaterializedSRF(fcinfo, 0);
	(void) wl_check_columns(rsinfo, diagnose_cols, lengthof(diagnose_cols), "walload_diagnose");
	n = wl_store_copy_xacts(&recs);
	in = palloc(sizeof(WlXactRecord *) * Max(n, 1));
	for (int i = 0; i < n; i++)
	{
		WlXactRecord *x = &recs[i];
		bool		committed = x->outcome == WL_OUTCOME_COMMIT;

		oldest = Min(oldest, x->start);
		/* out of scope: an argument given that x does not match */
		if ((sc.has[ARG_XACT] && (int64) x->xact_id != sc.want) ||
			(sc.has[ARG_SINCE] && x->start < sc.since) ||
			(sc.has[ARG_UNTIL] && x->end > sc.until) ||
			(sc.has[ARG_PID] && x->pid != sc.pid) ||
			(sc.has[ARG_APP] && strcmp(x->application_name, sc.app) != 0) ||
			(sc.has[ARG_USERID] && x->userid != sc.userid) ||
			(sc.has[ARG_DBID] && x->dbid != sc.dbid) ||
			(sc.has[ARG_BKTYPE] && strcmp(wl_backend_kind_name(x->backend_kind), sc.bktype) != 0))
			continue;
		in[t.xacts++] = x;
		t.commits += committed;
		WL_SUMMED(WL_SUM_ADD);
		wl_counters_add(&t.c, &x->c);
		/* a VACUUM that deleted files is a VACUUM FULL: one transaction a table */
		if (committed && x->c.scans[WL_SCAN_DROP_PENDING] > 0)
			*(x->statements == 1 && x->kind_ms[WL_TIME_VACUUM] > 0 ? &t.vacuum_full_xacts : &t.drop_xacts) += 1;
		if (committed && x->commit_standby_wait)
		{
			t.standby_commits++;
			t.standby_ms += x->commit_standby_ms;
			t.standby_sync_commit = x->synchronous_commit;
		}
		if (x->outcome != WL_OUTCOME_ABORT && x->commit_strategy != 0)
		{
			t.strategy_commits++;
			/* what the commit recorded it did, not a comparison of settings */
			if (x->strategy_action >= 0 && x->strategy_action <= WL_ACTION_ASIDE_MISPREDICTED)
				t.strategy_aside[x->strategy_action]++;
			if (x->strategy_changed > 0)
			{
				t.strategy_acted++;
				t.strategy_pred_ms += x->pred_commit_ms;
				t.strategy_core_ms += x->pred_core_commit_ms;
				t.strategy_commit_ms += x->commit_ms;
			}
		}
		t.last = x;
	}

	if (t.xacts == 0)
	{
		add(&em, "info", sc.has[ARG_XACT] ? "transaction not found" : "nothing recorded",
			sc.has[ARG_XACT] ? psprintf("no transaction with xact_id " INT64_FORMAT " is kept in walload_xacts%s",
										sc.want, sc.filtered ? " within the filters" : "") :
			sc.filtered ? "no transaction kept in walload_xacts is within the filters" : "walload_xacts is empty",
			sc.has[ARG_XACT] ? "Only the last walload.max_xacts transactions are kept; raise it to keep more." :
			sc.filtered ? "Only the last walload.max_xacts transactions are kept; widen the filters, or raise "
			"walload.max_xacts to keep more." :
			"Run the load with walload preloaded, then call walload_diagnose() again.", NULL, NULL, -1, NULL);
		emit_all(&em);
		return (Datum) 0;
	}

	em.load_ms = load_ms(in, t.xacts, &sc);

	/* said where the ring lost transactions of the window: walload_report() has them */
	if (!sc.has[ARG_XACT])
	{
		WlInfo		info;

		wl_store_info(&info);
		if (info.xacts_overwritten > 0 && (!sc.has[ARG_SINCE] || sc.since < oldest))
			add(&em, "info", "part of the load",
				psprintf("the findings cover the %d transaction%s of the load that walload_xacts still holds; "
						 "its ring overwrote " UINT64_FORMAT " since the last reset",
						 t.xacts, plural(t.xacts), info.xacts_overwritten),
				"walload_report() covers the whole load (from walload_minutes). To diagnose all of "
				"it, raise walload.max_xacts (a restart) above the load's transactions.",
				psprintf("%d kept, " UINT64_FORMAT " overwritten", t.xacts, info.xacts_overwritten),
				"raise walload.max_xacts", -1, NULL);
	}

	/* the transactions by xact_id, each with its place in in */
	ids = palloc(sizeof(XactIndex) * t.xacts);
	for (int i = 0; i < t.xacts; i++)
		ids[i] = (XactIndex) {.xact_id = in[i]->xact_id,.i = i};
	qsort(ids, t.xacts, sizeof(XactIndex), xact_id_cmp);
	loads = (LoadScan) {.in = in,.ids = ids,.nxacts = t.xacts,.scoped = sc.has[ARG_XACT] || sc.filtered};
	scan_loads(&loads);
	wl_whatif_load(in, t.xacts, loads.reload_ms, loads.later_bytes, &whatifs);

	/* one transaction's saving on index WAL, which indexes_after_load's includes, counts once */
	if (whatifs.syncs.wal_bytes_saved > 0 && loads.idx_after.saving_ms > 0)
		whatifs.syncs.overlap_ms =
			Min(whatifs.syncs.saving_ms * Min(loads.later_idx_bytes / whatifs.syncs.wal_bytes_saved, 1),
				loads.idx_after.saving_ms);
	if (whatifs.minimal_allowed)
		wl_whatif_minimal(in, t.xacts, loads.new_files, loads.skip_bytes, small_offered(&whatifs),
						  whatifs.restore.saving_ms > 0, &whatifs.wal_level);
	diagnose_scans(&em, &t, &whatifs);
	diagnose_commit(&em, &t, &whatifs);
	diagnose_standby(&em, &t);
	diagnose_vacuum(&em, &loads.vac);
	diagnose_wal(&em, &t, &whatifs, &loads.fpi);
	diagnose_workers(&em, in, t.xacts);
	diagnose_indexes(&em, &loads);
	verdict(&em);
	emit_all(&em);
	return (Datum) 0;
}

/* ----------------------------------------------------------------
 * a running load: walload_diagnose_backend(pid)
 * ----------------------------------------------------------------
 */

static char *
estimate(const WlCommitEstimate *e)
{
	return psprintf("about %.1f ms (scans %.1f, fsync %.1f, WAL %.1f, file deletion %.1f)",
					e->total_ns / 1e6, e->scan_ns / 1e6, e->sync_ns / 1e6, e->wal_ns / 1e6, e->drop_ns / 1e6);
}

Datum
walload_diagnose_backend(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	int32		pid;
	WlActivity *acts;
	WlActivity *a = NULL;
	int			n;
	Emitter		em = {.rsinfo = rsinfo};
	WlScanCost	cost;
	WlCommitEstimate est;
	int64		full;

	wl_store_require();
	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("pid must not be null")));
	pid = PG_GETARG_INT32(0);
	InitMaterializedSRF(fcinfo, 0);
	(void) wl_check_columns(rsinfo, backend_cols, lengthof(backend_cols), "walload_diagnose_backend");

	n = wl_store_copy_activity(&acts);
	for (int i = 0; i < n && a == NULL; i++)
		if (acts[i].pid == pid)
			a = &acts[i];

	/* walload_activity shows this role nothing of it: say nothing either */
	if (a != NULL && !wl_can_see_backend(a->userid))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to diagnose backend with PID %d", pid),
				 errdetail("Only roles with privileges of the role running the load or with privileges of the \"%s\" role may diagnose this backend.",
						   "pg_read_all_stats")));

	if (a == NULL || a->predicted_at == 0)
	{
		add(&em, "info", a ? "no prediction yet" : "no running load",
			a ? psprintf("backend %d has not finished a recorded statement in this transaction", pid) :
			psprintf("backend %d has no open transaction with recorded work in walload_activity", pid),
			a ? "The commit is predicted at the end of each recorded statement." :
			"A backend shows in walload_activity from its first recorded statement to the end of its "
			"transaction; after the end, see walload_xacts and walload_diagnose(xact_id).",
			NULL, NULL, -1, NULL);
		emit_all(&em);
		return (Datum) 0;
	}

	/* what it did so far */
	full = wl_sum_scans(a->scans);
	if (full > 0)
		add(&em, "info", "full scans so far",
			psprintf("the transaction has walked all %d shared buffers %lld time(s) so far, about %.1f ms "
					 "(flush of one relation: %lld, truncation: %lld, file deletion: %lld, database: %lld)",
					 a->nbuffers, (long long) full, a->scan_est_ns / 1e6,
					 (long long) a->scans[WL_SCAN_FLUSH_REL], (long long) a->scans[WL_SCAN_DROP_REL],
					 (long long) a->scans[WL_SCAN_DROP_PENDING], (long long) a->scans[WL_SCAN_DB]),
			"Each walk costs the same whatever the size of the data: it grows with shared_buffers. "
			"docs/scans.md names the command behind each kind.", NULL, NULL, -1, NULL);

	/* COMMIT now, priced by the same model as walload_activity */
	wl_cost_figures(&cost);
	wl_commit_est(&a->pred, &cost, &a->pred_state, &est);
	add(&em, a->pred.sync_scan || a->pred.drop_scan ? "warning" : "info", "what COMMIT will cost",
		psprintf("COMMIT now would fsync %d relation file(s) (%lld blocks)%s, WAL-log %d small file(s) "
				 "(%lld blocks), delete %d file(s)%s: %s; predicted at the end of its last statement, %s",
				 a->pred.synced_rels, (long long) a->pred.synced_blocks,
				 a->pred.sync_scan ? psprintf(" after one scan of all %d shared buffers", a->nbuffers) : "",
				 a->pred.wal_logged_rels, (long long) a->pred.wal_logged_blocks, a->pred.dropped_rels,
				 a->pred.drop_scan ? " after one more scan" : "", estimate(&est),
				 timestamptz_to_str(a->predicted_at)),
		a->pred.synced_rels > 0 ?
		"Under wal_level=minimal the new files at or above wal_skip_threshold are fsynced at commit after "
		"a scan of all shared buffers; more statements that load into them add fsync time, not scans." :
		"Nothing pending makes this commit costly beyond its WAL flush.", NULL, NULL, -1, NULL);

	/* the choice: wal_skip_threshold for this transaction */
	if (a->pred.synced_rels > a->pred.synced_truncated_rels)
	{
		WlCommitModel alt;
		WlCommitEstimate alt_est;
		WlWhatIf	thr = {.setting = "wal_skip_threshold"};
		int64		kb = (a->pred.synced_blocks - a->pred.synced_truncated_blocks) * (BLCKSZ / 1024) +
			BLCKSZ / 1024;

		wl_whatif_to_wal(&a->pred, false, &alt);
		wl_commit_est(&alt, &cost, &a->pred_state, &alt_est);
		snprintf(thr.value, sizeof(thr.value), "%lldkB", (long long) kb);
		thr.saving_ms = (est.total_ns - alt_est.total_ns) / 1e6;
		add(&em, "info", "wal_skip_threshold for this transaction",
			psprintf("with SET LOCAL wal_skip_threshold = '%lld kB' before COMMIT, the %d synced file(s) would be "
					 "WAL-logged whole instead: about %.1f MB of WAL, no sync scan; %s against %.1f ms",
					 (long long) kb, a->pred.synced_rels - a->pred.synced_truncated_rels,
					 mb((double) (a->pred.synced_blocks - a->pred.synced_truncated_blocks) * WL_LOGGED_BLOCK_BYTES),
					 estimate(&alt_est), est.total_ns / 1e6),
			thr.saving_ms > 0 ?
			"Cheaper by this estimate: SET LOCAL changes only how the files reach disk at commit, never "
			"what survives a crash. A replica or archive does not need the WAL under wal_level=minimal." :
			"Not cheaper by this estimate: writing the files to the WAL costs more than their fsync and "
			"one scan.", NULL, NULL, PRICED(&thr));
	}

	if (a->pred_abort_scans > 0)
		add(&em, "info", "what ROLLBACK will cost",
			psprintf("ROLLBACK would delete %d relation file(s) created in this transaction after one scan "
					 "of all %d shared buffers", a->pred_abort_rels, a->nbuffers),
			"An abort deletes the files the transaction created; its scan is the same as a commit's deletion scan.",
			NULL, NULL, -1, NULL);
	emit_all(&em);
	return (Datum) 0;
}

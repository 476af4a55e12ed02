/*-------------------------------------------------------------------------
 *
 * whatif.c
 *		The what-if engine: core's decisions (15-19) replayed on what
 *		walload recorded under one changed setting or shape of the load,
 *		priced with cost.c's unit costs.  Every saving_ms is from here.
 *
 * No cost counts twice: each transaction is replayed by at most one shape,
 * a standby's wait only by the standby finding; of the threshold and one
 * transaction (the same walks) the diagnosis shows the larger; what other
 * changes also save is overlap_ms, left out of the verdict's sum.
 * Core's rules kept: smgrDoPendingSyncs routes new files at commit; a
 * commit that deletes files always flushes (RecordTransactionCommit).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "access/xlog.h"
#include "replication/slot.h"
#include "replication/syncrep.h"
#include "replication/walsender.h"
#include "replication/walsender_private.h"
#include "storage/bufmgr.h"
#include "storage/lwlock.h"
#include "storage/spin.h"

#include "cost.h"
#include "whatif.h"

/* shared_buffers the walks are priced at for the load: the default, 128MB */
#define WL_LOAD_SHARED_BUFFERS_KB	(128 * 1024)

static const char *const shape_names[] = {
	[WL_SHAPE_ONE_TRANSACTION] = "one_transaction",
	[WL_SHAPE_BATCH_COMMITS] = "batch_commits",
	[WL_SHAPE_INDEXES_AFTER_LOAD] = "indexes_after_load",
	[WL_SHAPE_NO_TRUNCATE_RELOAD] = "no_truncate_reload",
	[WL_SHAPE_SINGLE_TRANSACTION_RESTORE] = "single_transaction_restore",
	[WL_SHAPE_DROP_IN_ONE_TRANSACTION] = "drop_in_one_transaction",
};

const char *
wl_shape_name(WlShape shape)
{
	if ((int) shape < 0 || (int) shape >= (int) lengthof(shape_names))
		return NULL;
	return shape_names[shape];
}

/* which shape replays a transaction (each at most one) */
typedef enum XactSet
{
	SET_NONE,
	SET_RESTORE,
	SET_DROPS,
	SET_SYNCS,
	SET_SMALL
} XactSet;

static bool
is_vacuum_alone(const WlXactRecord *x)
{
	return x->statements == 1 && x->kind_ms[WL_TIME_VACUUM] > 0;
}

/* a new file at commit: synced from wal_skip_threshold up, else WAL-logged (smgrDoPendingSyncs) */
static bool
synced_at_commit(int64 blocks, int threshold_kb)
{
	return (blocks + 1) * (BLCKSZ / 1024) > threshold_kb;
}

/* rels new files of bytes in all, routed at their average size */
static void
route_new_files(WlCommitModel *m, int rels, uint64 bytes, int threshold_kb)
{
	int64		blocks = (int64) ((bytes + BLCKSZ - 1) / BLCKSZ);
	bool		synced = synced_at_commit((blocks + rels - 1) / rels, threshold_kb);

	*(synced ? &m->synced_rels : &m->wal_logged_rels) += rels;
	*(synced ? &m->synced_blocks : &m->wal_logged_blocks) += blocks;
	m->sync_scan |= synced;
}

static XactSet
xact_set(const WlXactRecord *x)
{
	if (x->outcome != WL_OUTCOME_COMMIT)
		return SET_NONE;
	if (strcmp(x->application_name, "pg_restore") == 0)
		return SET_RESTORE;
	/* VACUUM FULL runs one transaction per table and cannot share one */
	if (x->c.scans[WL_SCAN_DROP_PENDING] > 0)
		return is_vacuum_alone(x) ? SET_NONE : SET_DROPS;
	/* where loading its tables once removes the sync, no_truncate_reload's to save */
	if (x->c.scans[WL_SCAN_FLUSH_PENDING] > 0)
		return x->synced_rels > 0 && x->synced_truncated_rels >= x->synced_rels &&
			x->c.scans[WL_SCAN_DROP_REL] > 0 && !is_vacuum_alone(x) &&
			!synced_at_commit(x->synced_truncated_blocks / Max(x->synced_truncated_rels, 1),
							  x->wal_skip_threshold_kb) ? SET_NONE : SET_SYNCS;
	/* commit-time work on new files without a sync: WAL-logging them */
	if (x->wal_logged_rels > 0 && x->synced_rels == 0 && !x->commit_standby_wait &&
		!is_vacuum_alone(x))
		return SET_SYNCS;
	/* a commit that waited on a standby is diagnose_standby()'s */
	if (x->statements <= 2 && x->synchronous_commit > SYNCHRONOUS_COMMIT_OFF &&
		x->c.wal_bytes > 0 && x->dropped_rels == 0 && x->synced_rels == 0 &&
		!x->commit_standby_wait)
		return SET_SMALL;
	return SET_NONE;
}

/* a commit's sync part without a standby's wait, diagnose_standby()'s */
static double
local_sync_ms(const WlXactRecord *x)
{
	return x->commit_sync_ms - (x->commit_standby_wait ? Max(x->commit_standby_ms, 0) : 0);
}

/* a transaction's walks of one kind, as estimated when counted, in ms */
static double
walks_ms(const WlXactRecord *x, WlScanKind kind, bool with_faults)
{
	int64		full = wl_full_scans(&x->c);
	double		ms;

	if (full <= 0 || x->c.scans[kind] <= 0)
		return 0;
	ms = x->c.scan_est_ns / 1e6 * x->c.scans[kind] / full;
	if (!with_faults)
		ms -= Max(x->scan_fault_ms, 0) * x->c.scans[kind] / full;
	return Max(ms, 0);
}

/* a commit with nothing pending */
static const WlCommitModel no_commit = {.sync_stmt_no = -1,.drop_stmt_no = -1};

/* the commit as the record has it (its syncs and WAL-logged files), added to m */
static void
add_recorded(const WlXactRecord *x, WlCommitModel *m)
{
	m->wal_skipped_rels += x->wal_skipped_rels;
	m->synced_rels += x->synced_rels;
	m->synced_blocks += x->synced_blocks;
	m->synced_truncated_rels += Min(x->synced_truncated_rels, x->synced_rels);
	m->synced_truncated_blocks += Min(x->synced_truncated_blocks, x->synced_blocks);
	m->wal_logged_rels += x->wal_logged_rels;
	m->wal_logged_blocks += x->wal_logged_blocks;
	m->sync_scan |= x->synced_rels > 0;
}

/* a commit's price in a neutral state: the alternatives change routes and walks, not it */
static double
commit_ms(const WlCommitModel *m, const WlScanCost *cost)
{
	WlCommitState st = {.os_dirty_blocks = -1,.record_space_ready = true};
	WlCommitEstimate est;

	wl_commit_est(m, cost, &st, &est);
	return est.total_ns / 1e6;
}

/* m with the synced files truncated in place (or the others) WAL-logged instead */
void
wl_whatif_to_wal(const WlCommitModel *m, bool truncated, WlCommitModel *alt)
{
	int32		rels = truncated ? m->synced_truncated_rels : m->synced_rels - m->synced_truncated_rels;
	int64		blocks = truncated ? m->synced_truncated_blocks :
		m->synced_blocks - m->synced_truncated_blocks;

	*alt = *m;
	alt->synced_rels -= rels;
	alt->synced_blocks -= blocks;
	if (truncated)
		alt->synced_truncated_rels = alt->synced_truncated_blocks = 0;
	alt->wal_logged_rels += rels;
	alt->wal_logged_blocks += blocks;
	alt->sync_scan = alt->synced_rels > 0;
}

/* x's commit priced as recorded and with those files WAL-logged instead */
static void
price_to_wal(const WlXactRecord *x, bool truncated, const WlScanCost *cost, WlWhatIf *w)
{
	WlCommitModel m = no_commit;
	WlCommitModel alt;

	add_recorded(x, &m);
	wl_whatif_to_wal(&m, truncated, &alt);
	w->saving_ms += commit_ms(&m, cost) - commit_ms(&alt, cost);
	if (!alt.sync_scan)
	{
		w->walks_saved++;
		w->walks_ms += walks_ms(x, WL_SCAN_FLUSH_PENDING, true);
	}
}

/* n transactions' walks of a kind as one: recorded, less faults, less one walk over all files */
static double
one_walk_saving_ms(const WlScanCost *cost, WlScanKind kind, int nxacts, int64 files,
				   double recorded_ms, double fault_ms)
{
	int			all = (int) Max(1, Min(files, PG_INT32_MAX));
	double		one_ms = wl_scan_timed_ns(cost, kind, all) / 1e6;
	double		saved_ms = Max(recorded_ms - Max(fault_ms, 0) - one_ms, 0);

	if (nxacts < 2)
		return 0;
	elog(DEBUG2, "walload: what-if of one walk of kind %d over %d file(s) for %d: recorded %.3f ms, page faults %.3f ms, one walk %.3f ms: saves %.3f ms",
		 (int) kind, all, nxacts, recorded_ms, fault_ms, one_ms, saved_ms);
	return saved_ms;
}

/* could this server run wal_level = minimal: nothing archives or streams its WAL */
static bool
minimal_allowed(void)
{
	bool		any = false;

	if (wal_level == WAL_LEVEL_MINIMAL || XLogArchiveMode != ARCHIVE_MODE_OFF ||
		(SyncRepStandbyNames != NULL && SyncRepStandbyNames[0] != '\0'))
		return false;
	for (int i = 0; WalSndCtl != NULL && i < max_wal_senders; i++)
	{
		WalSnd	   *ws = &WalSndCtl->walsnds[i];
		pid_t		pid;

		SpinLockAcquire(&ws->mutex);
		pid = ws->pid;
		SpinLockRelease(&ws->mutex);
		if (pid != 0)
			return false;
	}
	if (ReplicationSlotCtl != NULL)
	{
		LWLockAcquire(ReplicationSlotControlLock, LW_SHARED);
		for (int i = 0; i < max_replication_slots && !any; i++)
			any = ReplicationSlotCtl->replication_slots[i].in_use;
		LWLockRelease(ReplicationSlotControlLock);
	}
	return !any;
}

/* n transactions as one: all but one commit record and its flush, as measured */
static void
all_but_one(WlWhatIf *w, WlShape shape, double sync_ms)
{
	w->shape = shape;
	if (w->xacts < 2)
		return;
	w->flushes_saved = w->xacts - 1;
	w->saving_ms = sync_ms * (w->xacts - 1) / w->xacts;
}

/*
 * One pass replays each transaction under every change but shared_buffers
 * (which needs the largest pool first) and wal_level (wl_whatif_minimal).
 * later_bytes: per transaction, the WAL of bulk loads into tables created
 * earlier, which one transaction skips under minimal (RelationNeedsWAL).
 */
void
wl_whatif_load(WlXactRecord **in, int n, const double *reload_ms,
			   const uint64 *later_bytes, WlWhatIfs *w)
{
	WlScanCost	cost;
	double		restore_ms = 0;
	double		drop_sync_ms = 0;
	double		drop_walks_ms = 0;
	double		drop_faults_ms = 0;
	int64		drop_files = 0;
	double		sync_walks_ms = 0;
	double		sync_faults_ms = 0;
	int64		sync_files = 0;
	int			sync_walked = 0;
	double		all_walks_ms = 0;
	double		syncs_each_ms = 0;
	WlCommitModel one = no_commit;
	double		removed_ms;
	int32		nbuffers = 0;
	int32		load_buffers = WL_LOAD_SHARED_BUFFERS_KB / (BLCKSZ / 1024);
	double		later_ms = 0;
	int64		max_blocks = 0;

	memset(w, 0, sizeof(*w));
	wl_cost_figures(&cost);

	for (int i = 0; i < n; i++)
	{
		const WlXactRecord *x = in[i];
		WlCommitModel m = no_commit;
		XactSet		set = xact_set(x);
		int32		truncated = Min(x->synced_truncated_rels, x->synced_rels);

		all_walks_ms += x->c.scan_est_ns / 1e6;
		nbuffers = Max(nbuffers, x->nbuffers);

		/* wal_skip_threshold above every file not truncated in place (those stay synced) */
		if (x->outcome == WL_OUTCOME_COMMIT && x->synced_rels > x->synced_truncated_rels)
		{
			price_to_wal(x, false, &cost, &w->threshold);
			max_blocks = Max(max_blocks, x->synced_blocks - Min(x->synced_truncated_blocks, x->synced_blocks));
		}

		/*
		 * No in-place truncation: the TRUNCATEs go with their walks and the
		 * loads they discard (reload_ms), and the forced sync unless as large
		 * as the threshold (synced anyway).
		 */
		if (x->c.scans[WL_SCAN_DROP_REL] > 0 && !is_vacuum_alone(x))
		{
			w->truncate.walks_saved += x->c.scans[WL_SCAN_DROP_REL];
			w->truncate.walks_ms += walks_ms(x, WL_SCAN_DROP_REL, true);
			w->truncate.saving_ms += Max(walks_ms(x, WL_SCAN_DROP_REL, true), reload_ms[i]);
			w->truncate_reload_ms += reload_ms[i];
			if (x->outcome == WL_OUTCOME_COMMIT && truncated > 0)
			{
				w->truncated_synced += truncated;
				if (!synced_at_commit(Min(x->synced_truncated_blocks, x->synced_blocks) / truncated,
									  x->wal_skip_threshold_kb))
					price_to_wal(x, true, &cost, &w->truncate);
			}
		}

		if (later_bytes[i] > 0 && x->outcome == WL_OUTCOME_COMMIT &&
			x->wal_level == WAL_LEVEL_MINIMAL && cost.io.valid &&
			(set == SET_NONE || set == SET_SMALL || set == SET_SYNCS))
		{
			/* its WAL, against its files at the one commit */
			w->later_xacts++;
			w->syncs.wal_bytes_saved += later_bytes[i];
			route_new_files(&one, 1, later_bytes[i], x->wal_skip_threshold_kb);
			/* and its commit flush, unless replayed as a syncing commit */
			if (set != SET_SYNCS)
			{
				w->later_only++;
				continue;
			}
		}
		switch (set)
		{
			case SET_RESTORE:
				w->restore.xacts++;
				restore_ms += local_sync_ms(x);
				break;
			case SET_DROPS:
				w->drops.xacts++;
				drop_sync_ms += local_sync_ms(x);
				drop_walks_ms += walks_ms(x, WL_SCAN_DROP_PENDING, true);
				drop_faults_ms += walks_ms(x, WL_SCAN_DROP_PENDING, true) -
					walks_ms(x, WL_SCAN_DROP_PENDING, false);
				drop_files += x->dropped_rels;
				break;
			case SET_SYNCS:
				/* each commit as recorded, and all of them as one */
				add_recorded(x, &m);
				syncs_each_ms += commit_ms(&m, &cost);
				add_recorded(x, &one);
				w->syncs.xacts++;
				sync_walked += x->synced_rels > 0;
				sync_walks_ms += walks_ms(x, WL_SCAN_FLUSH_PENDING, true);
				sync_faults_ms += walks_ms(x, WL_SCAN_FLUSH_PENDING, true) -
					walks_ms(x, WL_SCAN_FLUSH_PENDING, false);
				sync_files += x->synced_rels;
				break;
			case SET_SMALL:
				w->small.xacts++;
				w->small_commit_ms += x->commit_sync_ms;
				w->small_total_ms += x->total_ms;
				break;
			case SET_NONE:
				break;
		}
	}

	/* pg_restore's commits as one (--single-transaction); the small ones */
	all_but_one(&w->restore, WL_SHAPE_SINGLE_TRANSACTION_RESTORE, restore_ms);
	all_but_one(&w->small, WL_SHAPE_BATCH_COMMITS, w->small_commit_ms);

	/* the deleting commits as one: one record, flush and walk for all */
	all_but_one(&w->drops, WL_SHAPE_DROP_IN_ONE_TRANSACTION, drop_sync_ms);
	w->drops.walks_saved = w->drops.flushes_saved;
	w->drops.walks_ms = one_walk_saving_ms(&cost, WL_SCAN_DROP_PENDING, w->drops.xacts,
										   drop_files, drop_walks_ms, drop_faults_ms);
	w->drops.saving_ms += w->drops.walks_ms;

	/*
	 * the syncing commits, and the loads into tables made before, as one:
	 * one walk if any file is synced, one record and flush; each file keeps
	 * its route, the loads' WAL is not written
	 */
	w->syncs.shape = WL_SHAPE_ONE_TRANSACTION;
	w->syncs.xacts += w->later_only;
	if (w->later_xacts > 0)
		later_ms = (w->later_only * Max(cost.io.wal_flush_ns, 0) +
					wl_wal_written_ns(&cost.io, w->syncs.wal_bytes_saved)) / 1e6;
	if (w->syncs.xacts >= 2)
	{
		w->syncs.walks_saved = Max(sync_walked - 1, 0);
		w->syncs.flushes_saved = w->syncs.xacts - 1;
		w->syncs.walks_ms = one_walk_saving_ms(&cost, WL_SCAN_FLUSH_PENDING, sync_walked,
											   sync_files, sync_walks_ms, sync_faults_ms);
		w->syncs.saving_ms = Max(syncs_each_ms + later_ms - commit_ms(&one, &cost), 0);
	}
	else
	{
		w->syncs.wal_bytes_saved = 0;
		w->later_xacts = w->later_only = 0;
	}

	/* the threshold above the largest file it WAL-logs */
	w->threshold.setting = "wal_skip_threshold";
	snprintf(w->threshold.value, sizeof(w->threshold.value), "%lldkB",
			 (long long) ((max_blocks + 1) * (BLCKSZ / 1024)));
	w->threshold.saving_ms = Max(w->threshold.saving_ms, 0);
	w->truncate.shape = WL_SHAPE_NO_TRUNCATE_RELOAD;
	w->truncate.saving_ms = Max(w->truncate.saving_ms, 0);

	/*
	 * shared_buffers alone: every walk visits fewer headers (and faults), the
	 * same buffers.  The share on walks some shape removes (of the syncing
	 * commits' two alternatives, the larger's) overlaps the shapes' savings:
	 * the verdict leaves it out.
	 */
	removed_ms = w->drops.walks_ms + w->truncate.walks_ms +
		(w->threshold.saving_ms > w->syncs.saving_ms ? w->threshold.walks_ms : w->syncs.walks_ms);
	w->buffers.setting = "shared_buffers";
	snprintf(w->buffers.value, sizeof(w->buffers.value), "%dMB", WL_LOAD_SHARED_BUFFERS_KB / 1024);
	if (nbuffers >= 2 * load_buffers)
	{
		for (int i = 0; i < n; i++)
		{
			const WlXactRecord *x = in[i];
			int64		fewer = (int64) x->nbuffers - load_buffers;

			if (fewer <= 0 || wl_full_scans(&x->c) <= 0)
				continue;
			for (int k = 0; k < WL_NUM_SCAN_KINDS; k++)
			{
				int			files = k == WL_SCAN_FLUSH_PENDING ? x->synced_rels :
					k == WL_SCAN_DROP_PENDING ? x->dropped_rels : 1;

				if (x->c.scans[k] > 0)
					w->buffers.saving_ms += x->c.scans[k] * fewer *
						(wl_scan_timed_ns(&cost, (WlScanKind) k, Max(files, 1)) / NBuffers) / 1e6;
			}
			w->buffers.saving_ms += Max(x->scan_fault_ms, 0) * fewer / x->nbuffers;
		}
		w->buffers.overlap_ms = all_walks_ms > 0 ?
			w->buffers.saving_ms * Min(removed_ms / all_walks_ms, 1) : 0;
	}

	w->minimal_allowed = minimal_allowed();
	w->wal_level.setting = "wal_level";
	strlcpy(w->wal_level.value, "minimal", sizeof(w->wal_level.value));
}

/*
 * wal_level = minimal: the WAL into files created or truncated in the
 * transaction (skip_bytes) not written, less the commit work it adds; a
 * priced small or pg_restore commit's sync already counts its flush.  w:
 * as wl_whatif_load left it, nothing summed.
 */
void
wl_whatif_minimal(WlXactRecord **in, int n, const int32 *new_files,
				  const uint64 *skip_bytes, bool skip_small, bool skip_restore, WlWhatIf *w)
{
	WlScanCost	cost;

	wl_cost_figures(&cost);
	if (!cost.io.valid)
		return;
	for (int i = 0; i < n; i++)
	{
		const WlXactRecord *x = in[i];
		WlCommitModel alt = no_commit;

		if (x->outcome != WL_OUTCOME_COMMIT || x->wal_level == WAL_LEVEL_MINIMAL ||
			new_files[i] <= 0 || skip_bytes[i] == 0 ||
			(skip_small && xact_set(x) == SET_SMALL) || (skip_restore && xact_set(x) == SET_RESTORE))
			continue;
		alt.wal_skipped_rels = new_files[i];
		route_new_files(&alt, new_files[i], skip_bytes[i], x->wal_skip_threshold_kb);
		w->xacts++;
		w->wal_bytes_saved += skip_bytes[i];
		w->added_ms += commit_ms(&alt, &cost) - commit_ms(&no_commit, &cost);
	}
	w->saving_ms = Max(-w->added_ms + wl_wal_written_ns(&cost.io, w->wal_bytes_saved) / 1e6, 0);
}

/*
 * Indexes built after a load: s's time on index entries (page visits
 * beyond the heap's, against WL_ROW_VISITS a row for its own work), less a
 * sorted build at WL_BUILD_SHARE of inserting them one at a time.
 */
#define WL_ROW_VISITS	1.2
#define WL_BUILD_SHARE	0.45

double
wl_whatif_index_load(const WlStmtRecord *s)
{
	double		heap = 2.0 * s->c.shared_blks_dirtied + (s->tag == CMDTAG_COPY ? 0 : s->c.rows);
	double		visits = s->c.shared_blks_hit + s->c.shared_blks_read - heap;

	if (visits <= 0 || s->c.rows <= 0 || s->elapsed_ms <= 0)
		return 0;
	return s->elapsed_ms * visits / (visits + WL_ROW_VISITS * s->c.rows) * (1 - WL_BUILD_SHARE);
}

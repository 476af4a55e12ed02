/*-------------------------------------------------------------------------
 *
 * whatif.c
 *		The what-if engine: core's decisions replayed on what walload
 *		recorded, for the transactions walload_diagnose() covers, under one
 *		setting (wal_skip_threshold, shared_buffers, wal_level) or shape of
 *		the load, priced with cost.c's unit costs (indexes after the load:
 *		with the statement's own time, by its page visits).  Every saving_ms
 *		is from here.
 *
 * Core's rules kept (15-19): a file created in the transaction is synced at
 * commit, after one walk for all, if truncated in place or at least
 * wal_skip_threshold large, else WAL-logged whole (smgrDoPendingSyncs).  A
 * commit that deletes files always flushes its record
 * (RecordTransactionCommit).  A walk visits every buffer header.
 *
 * Each transaction is replayed by at most one shape (pg_restore's, the
 * deleting commits, the syncing ones, the small ones), and a standby's wait
 * only by the standby finding, so that no cost counts twice; of the
 * threshold and one transaction, which remove the same walks, the diagnosis
 * shows the larger; shared_buffers' share on walks a shape removes, and
 * one transaction's share on index WAL that indexes after the load also
 * spare (overlap_ms, set by the diagnosis), are left out of the verdict's
 * sum.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "types.h"

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
	[WL_SHAPE_NONE] = NULL,
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

/*
 * Core's route at commit for a file the transaction created, of blocks
 * blocks: synced (after a walk) from wal_skip_threshold up, WAL-logged whole
 * below it (smgrDoPendingSyncs)
 */
static bool
synced_at_commit(int64 blocks, int threshold_kb)
{
	return (blocks + 1) * (BLCKSZ / 1024) > threshold_kb;
}

/* rels new files of blocks blocks in all, routed at their average size */
static void
route_new_files(WlCommitModel *m, int rels, int64 blocks, int threshold_kb)
{
	if (synced_at_commit((blocks + rels - 1) / rels, threshold_kb))
	{
		m->synced_rels += rels;
		m->synced_blocks += blocks;
		m->sync_scan = true;
	}
	else
	{
		m->wal_logged_rels += rels;
		m->wal_logged_blocks += blocks;
	}
}

/*
 * Whether loading the transaction's tables once removes its sync and walk
 * (no_truncate_reload's to save, no other shape's): every file it synced
 * was truncated in place and, at their average size, is below the threshold.
 */
static bool
reload_removes_sync(const WlXactRecord *x)
{
	int64		avg;

	if (x->outcome != WL_OUTCOME_COMMIT || x->synced_rels <= 0 ||
		x->synced_truncated_rels < x->synced_rels ||
		x->c.scans[WL_SCAN_DROP_REL] <= 0 || is_vacuum_alone(x))
		return false;
	avg = x->synced_truncated_blocks / Max(x->synced_truncated_rels, 1);
	return !synced_at_commit(avg, x->wal_skip_threshold_kb);
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
	if (x->c.scans[WL_SCAN_FLUSH_PENDING] > 0)
		return reload_removes_sync(x) ? SET_NONE : SET_SYNCS;
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

/* the commit as the record has it: its syncs and WAL-logged files */
static void
recorded_commit(const WlXactRecord *x, WlCommitModel *m)
{
	memset(m, 0, sizeof(*m));
	m->sync_stmt_no = m->drop_stmt_no = -1;
	m->wal_skipped_rels = x->wal_skipped_rels;
	m->synced_rels = x->synced_rels;
	m->synced_blocks = x->synced_blocks;
	m->synced_truncated_rels = Min(x->synced_truncated_rels, x->synced_rels);
	m->synced_truncated_blocks = Min(x->synced_truncated_blocks, x->synced_blocks);
	m->wal_logged_rels = x->wal_logged_rels;
	m->wal_logged_blocks = x->wal_logged_blocks;
	m->sync_scan = x->synced_rels > 0;
}

/*
 * A commit's price by the one cost model, in a neutral state (header pages
 * mapped, no dirty buffer, WAL space allocated): the alternatives change
 * the files' route and the walk, not these.
 */
static double
commit_ms(const WlCommitModel *m, const WlScanCost *cost)
{
	WlCommitState st;
	WlCommitEstimate est;

	memset(&st, 0, sizeof(st));
	st.os_dirty_blocks = -1;
	st.record_space_ready = true;
	wl_commit_est(m, cost, &st, &est);
	return est.total_ns / 1e6;
}

/*
 * m with synced files WAL-logged instead: those truncated in place
 * (truncated) or the others; the walk goes with the last synced file.
 */
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
	WlCommitModel m;
	WlCommitModel alt;

	recorded_commit(x, &m);
	wl_whatif_to_wal(&m, truncated, &alt);
	w->saving_ms += commit_ms(&m, cost) - commit_ms(&alt, cost);
	if (!alt.sync_scan)
	{
		w->walks_saved++;
		w->walks_ms += walks_ms(x, WL_SCAN_FLUSH_PENDING, true);
	}
}

static void
set_shape(WlWhatIf *w, WlShape shape)
{
	w->setting = NULL;
	w->value[0] = '\0';
	w->shape = shape;
}

/*
 * wal_skip_threshold above every file not truncated in place: those are
 * WAL-logged whole at commit; the truncated ones stay synced, and the walk.
 */
static void
whatif_threshold(WlXactRecord **in, int n, const WlScanCost *cost, WlWhatIf *w)
{
	int64		max_blocks = 0;

	for (int i = 0; i < n; i++)
	{
		const WlXactRecord *x = in[i];
		int64		blocks = x->synced_blocks - Min(x->synced_truncated_blocks, x->synced_blocks);

		if (x->outcome != WL_OUTCOME_COMMIT || x->synced_rels <= x->synced_truncated_rels)
			continue;			/* none synced, or all truncated in place */
		w->xacts++;
		price_to_wal(x, false, cost, w);
		max_blocks = Max(max_blocks, blocks);
	}
	w->setting = "wal_skip_threshold";
	snprintf(w->value, sizeof(w->value), "%lldkB",
			 (long long) ((max_blocks + 1) * (BLCKSZ / 1024)));
	w->saving_ms = Max(w->saving_ms, 0);
}

/*
 * No in-place truncation: a table created in the transaction and loaded
 * once.  The TRUNCATEs go, with their walks (heap, indexes, TOAST: one
 * each) and the loads before them whose rows they discard (reload_ms, or
 * the walks where the statements left the ring); and the forced sync: the
 * file follows the threshold at its average size.
 */
static void
whatif_truncate(WlXactRecord **in, int n, const double *reload_ms, const WlScanCost *cost,
				WlWhatIf *w, WlWhatIfs *all)
{
	for (int i = 0; i < n; i++)
	{
		const WlXactRecord *x = in[i];
		int32		rels = Min(x->synced_truncated_rels, x->synced_rels);
		int64		avg = Min(x->synced_truncated_blocks, x->synced_blocks) / Max(rels, 1);

		if (x->c.scans[WL_SCAN_DROP_REL] <= 0 || is_vacuum_alone(x))
			continue;
		w->xacts++;
		w->walks_saved += x->c.scans[WL_SCAN_DROP_REL];
		w->walks_ms += walks_ms(x, WL_SCAN_DROP_REL, true);
		w->saving_ms += Max(walks_ms(x, WL_SCAN_DROP_REL, true), reload_ms ? reload_ms[i] : 0);
		all->truncate_reload_ms += reload_ms ? reload_ms[i] : 0;
		if (x->outcome != WL_OUTCOME_COMMIT || rels <= 0)
			continue;
		all->truncated_synced += rels;
		/* as large as the threshold: synced anyway */
		if (!synced_at_commit(avg, x->wal_skip_threshold_kb))
			price_to_wal(x, true, cost, w);
	}
	set_shape(w, WL_SHAPE_NO_TRUNCATE_RELOAD);
	w->saving_ms = Max(w->saving_ms, 0);
}

/*
 * The walks of one kind of n transactions done in one: as recorded, less
 * their page faults (the one walk pays them if it is its backend's first),
 * less that one walk over all their files.
 */
static double
one_walk_saving_ms(const WlScanCost *cost, WlScanKind kind, int nxacts, int64 files,
				   double recorded_ms, double fault_ms)
{
	int			all = (int) Max(1, Min(files, PG_INT32_MAX));
	double		one_ms;
	double		saved_ms;

	if (nxacts < 2)
		return 0;
	one_ms = wl_scan_est_ns(cost, kind, all, 0) / 1e6;
	saved_ms = Max(recorded_ms - Max(fault_ms, 0) - one_ms, 0);
	elog(DEBUG2, "walload: what-if of one walk of kind %d over %d file(s) for %d: recorded %.3f ms, page faults %.3f ms, one walk %.3f ms: saves %.3f ms",
		 (int) kind, all, nxacts, recorded_ms, fault_ms, one_ms, saved_ms);
	return saved_ms;
}

/*
 * The load's walks at a pool of load_buffers headers: each walk visits
 * NBuffers headers at a price per header (cost.c, by kind and files
 * compared), so a smaller pool saves (nbuffers - load_buffers) headers a
 * walk and that share of the page faults; the buffers a walk writes or
 * invalidates are the data's, unchanged.
 */
static double
whatif_buffers(WlXactRecord **in, int n, const WlScanCost *cost, int32 load_buffers, int *xacts)
{
	double		saved_ms = 0;

	for (int i = 0; i < n; i++)
	{
		const WlXactRecord *x = in[i];
		int64		fewer = (int64) x->nbuffers - load_buffers;

		if (fewer <= 0 || wl_full_scans(&x->c) <= 0)
			continue;
		(*xacts)++;
		for (int k = 0; k < WL_NUM_SCAN_KINDS; k++)
		{
			int			files = k == WL_SCAN_FLUSH_PENDING ? x->synced_rels :
				k == WL_SCAN_DROP_PENDING ? x->dropped_rels : 1;

			if (x->c.scans[k] > 0)
				saved_ms += x->c.scans[k] * fewer *
					(wl_scan_est_ns(cost, (WlScanKind) k, Max(files, 1), 0) / NBuffers) / 1e6;
		}
		saved_ms += Max(x->scan_fault_ms, 0) * fewer / x->nbuffers;
	}
	return saved_ms;
}

/*
 * Could this server run wal_level = minimal?  Not with archive_mode on, nor
 * where WAL is streamed: a walsender, a replication slot or
 * synchronous_standby_names (max_wal_senders = 0 the hint says).
 */
static bool
minimal_allowed(void)
{
	if (wal_level == WAL_LEVEL_MINIMAL)
		return false;			/* already */
	if (XLogArchiveMode != ARCHIVE_MODE_OFF)
		return false;
	if (SyncRepStandbyNames != NULL && SyncRepStandbyNames[0] != '\0')
		return false;
	if (WalSndCtl != NULL)
	{
		for (int i = 0; i < max_wal_senders; i++)
		{
			WalSnd	   *ws = &WalSndCtl->walsnds[i];
			pid_t		pid;

			SpinLockAcquire(&ws->mutex);
			pid = ws->pid;
			SpinLockRelease(&ws->mutex);
			if (pid != 0)
				return false;
		}
	}
	if (ReplicationSlotCtl != NULL)
	{
		bool		any = false;

		LWLockAcquire(ReplicationSlotControlLock, LW_SHARED);
		for (int i = 0; i < max_replication_slots && !any; i++)
			any = ReplicationSlotCtl->replication_slots[i].in_use;
		LWLockRelease(ReplicationSlotControlLock);
		if (any)
			return false;
	}
	return true;
}

/* n transactions as one: all but one commit record and its flush, as measured */
static void
all_but_one(WlWhatIf *w, WlShape shape, double sync_ms)
{
	set_shape(w, shape);
	if (w->xacts < 2)
		return;
	w->flushes_saved = w->xacts - 1;
	w->saving_ms = sync_ms * (w->xacts - 1) / w->xacts;
}

/*
 * later_bytes: per transaction, the WAL of bulk loads into tables created in
 * an earlier transaction of the load.  Under wal_level = minimal, one
 * transaction around the creation and the load skips that WAL
 * (RelationNeedsWAL), as wl_whatif_minimal prices it, and syncs or
 * WAL-logs the files at its commit instead.
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
	WlCommitModel one;
	double		removed_ms;
	int32		nbuffers = 0;
	int32		load_buffers = WL_LOAD_SHARED_BUFFERS_KB / (BLCKSZ / 1024);
	double		later_ms = 0;

	memset(w, 0, sizeof(*w));
	wl_cost_figures(&cost);

	memset(&one, 0, sizeof(one));
	one.sync_stmt_no = one.drop_stmt_no = -1;
	for (int i = 0; i < n; i++)
	{
		const WlXactRecord *x = in[i];
		WlCommitModel m;
		XactSet		set;

		all_walks_ms += x->c.scan_est_ns / 1e6;
		nbuffers = Max(nbuffers, x->nbuffers);
		set = xact_set(x);
		if (later_bytes[i] > 0 && x->outcome == WL_OUTCOME_COMMIT &&
			x->wal_level == WAL_LEVEL_MINIMAL && cost.io.valid &&
			(set == SET_NONE || set == SET_SMALL || set == SET_SYNCS))
		{
			/* its WAL, against its files at the one commit */
			int64		blocks = (int64) ((later_bytes[i] + BLCKSZ - 1) / BLCKSZ);

			w->later_xacts++;
			w->syncs.wal_bytes_saved += later_bytes[i];
			route_new_files(&one, 1, blocks, x->wal_skip_threshold_kb);
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
				recorded_commit(x, &m);
				syncs_each_ms += commit_ms(&m, &cost);
				one.wal_skipped_rels += m.wal_skipped_rels;
				one.synced_rels += m.synced_rels;
				one.synced_blocks += m.synced_blocks;
				one.synced_truncated_rels += m.synced_truncated_rels;
				one.synced_truncated_blocks += m.synced_truncated_blocks;
				one.wal_logged_rels += m.wal_logged_rels;
				one.wal_logged_blocks += m.wal_logged_blocks;
				one.sync_scan = one.sync_scan || m.sync_scan;
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
	w->small_xacts = w->small.xacts;

	/* pg_restore's commits as one (--single-transaction); the small ones */
	all_but_one(&w->restore, WL_SHAPE_SINGLE_TRANSACTION_RESTORE, restore_ms);
	all_but_one(&w->small, WL_SHAPE_BATCH_COMMITS, w->small_commit_ms);

	/* the deleting commits as one: one record, flush and walk for all */
	all_but_one(&w->drops, WL_SHAPE_DROP_IN_ONE_TRANSACTION, drop_sync_ms);
	if (w->drops.xacts >= 2)
	{
		w->drops.walks_saved = w->drops.xacts - 1;
		w->drops.walks_ms = one_walk_saving_ms(&cost, WL_SCAN_DROP_PENDING, w->drops.xacts,
											   drop_files, drop_walks_ms, drop_faults_ms);
		w->drops.saving_ms += w->drops.walks_ms;
	}

	/*
	 * the syncing commits, and the loads into tables made before, as one:
	 * one walk if any file is synced, one record and flush; each file keeps
	 * its route, the loads' WAL is not written
	 */
	set_shape(&w->syncs, WL_SHAPE_ONE_TRANSACTION);
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

	whatif_threshold(in, n, &cost, &w->threshold);
	whatif_truncate(in, n, reload_ms, &cost, &w->truncate, w);

	/*
	 * shared_buffers alone: every walk visits fewer headers.  The share on
	 * walks some shape removes (of the syncing commits' two alternatives,
	 * the larger's) overlaps the shapes' savings: the verdict leaves it out.
	 */
	removed_ms = w->drops.walks_ms + w->truncate.walks_ms +
		(w->threshold.saving_ms > w->syncs.saving_ms ? w->threshold.walks_ms : w->syncs.walks_ms);
	w->buffers.setting = "shared_buffers";
	snprintf(w->buffers.value, sizeof(w->buffers.value), "%dMB", WL_LOAD_SHARED_BUFFERS_KB / 1024);
	if (nbuffers >= 2 * load_buffers)
	{
		w->buffers.saving_ms = whatif_buffers(in, n, &cost, load_buffers, &w->buffers.xacts);
		w->buffers.overlap_ms = all_walks_ms > 0 ?
			w->buffers.saving_ms * Min(removed_ms / all_walks_ms, 1) : 0;
	}

	w->minimal_allowed = minimal_allowed();
	w->wal_level.setting = "wal_level";
	strlcpy(w->wal_level.value, "minimal", sizeof(w->wal_level.value));
}

/*
 * wal_level = minimal, for the transactions that ran under replica: the WAL
 * written into files their transaction created or truncated (skip_bytes)
 * is not written (RelationNeedsWAL), priced as cost.c prices written WAL
 * (wl_wal_written_ns); against it, the commit-time work minimal adds for
 * new_files files.  A priced small or pg_restore commit's measured sync
 * phase includes that WAL's flush: left out (skip_small, skip_restore).
 */
void
wl_whatif_minimal(WlXactRecord **in, int n, const int32 *new_files,
				  const uint64 *skip_bytes, bool skip_small, bool skip_restore, WlWhatIf *w)
{
	WlScanCost	cost;
	WlCommitModel none;

	wl_cost_figures(&cost);
	w->xacts = 0;
	w->saving_ms = w->added_ms = 0;
	w->wal_bytes_saved = 0;
	if (!cost.io.valid)
		return;
	memset(&none, 0, sizeof(none));
	none.sync_stmt_no = none.drop_stmt_no = -1;
	for (int i = 0; i < n; i++)
	{
		const WlXactRecord *x = in[i];
		WlCommitModel alt = none;
		int64		blocks;
		double		added;

		if (x->outcome != WL_OUTCOME_COMMIT || x->wal_level == WAL_LEVEL_MINIMAL ||
			new_files[i] <= 0 || skip_bytes[i] == 0)
			continue;

		if ((skip_small && xact_set(x) == SET_SMALL) ||
			(skip_restore && xact_set(x) == SET_RESTORE))
			continue;
		blocks = (int64) ((skip_bytes[i] + BLCKSZ - 1) / BLCKSZ);
		alt.wal_skipped_rels = new_files[i];
		route_new_files(&alt, new_files[i], blocks, x->wal_skip_threshold_kb);
		added = commit_ms(&alt, &cost) - commit_ms(&none, &cost);
		w->xacts++;
		w->wal_bytes_saved += skip_bytes[i];
		w->added_ms += added;
		w->saving_ms -= added;
	}
	w->saving_ms = Max(w->saving_ms + wl_wal_written_ns(&cost.io, w->wal_bytes_saved) / 1e6, 0);
}

/*
 * Indexes built after a load instead of before it: what the load statement
 * s spent on its index entries, less the sorted build that replaces them.
 * Each row inserted into an index descends it, one page visit a level,
 * while the heap takes a row with no visit of its own (COPY's bulk insert
 * visits each heap page about twice; an INSERT visits the target page a
 * row): the visits beyond the heap's are the indexes'.  A row's own work
 * (parsing, forming and placing the tuple) weighs about WL_ROW_VISITS of
 * those visits, so the indexes' share of the statement's time is their
 * visits' share of the weighted sum; a build after the load sorts the same
 * entries and writes its pages once, for about WL_BUILD_SHARE of inserting
 * them one at a time.  Priced only for a table the load created (the
 * caller's rule): a rebuild of a table that held rows sorts those too.
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

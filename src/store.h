/*-------------------------------------------------------------------------
 *
 * store.h
 *		Shared memory: the statistics table, the transaction and statement
 *		rings, the prepared-transaction slots, the scan-cost calibration,
 *		and their persistence across restarts (store.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALLOAD_STORE_H
#define WALLOAD_STORE_H

#include "types.h"

extern void wl_store_shmem_request(void);
extern bool wl_store_shmem_startup(void);
extern bool wl_store_ready(void);
extern void wl_store_require(void);
extern uint64 wl_store_next_xact_id(void);
extern int	wl_store_statements(const WlStmtRecord *rec, size_t stride, int n,
								bool may_wait, bool cleanup);
extern void wl_store_unlock(void);
extern void wl_store_xact(const WlXactRecord *rec);
extern void wl_store_add_scan_totals(WlScanKind kind, int64 n, int32 nbuffers);
extern void wl_store_set_scan_cost(const WlScanCost *cost);
extern void wl_store_get_scan_cost(WlScanCost *cost);

#define WL_LEARNED_MIN_WEIGHT	0.25	/* of a commit that teaches (store.c) */
extern void wl_store_learn(bool ratio, double x);	/* fsync_time_ratio, else file_commit_ns */
extern void wl_store_remember_prepared(const char *gid, const WlPreparedDeletion *at_commit,
									   const WlPreparedDeletion *at_rollback);
extern void wl_store_publish_activity(const WlActivity *a, bool whole);
extern void wl_store_publish_command(CommandTag command, TimestampTz start);
extern void wl_store_clear_activity(void);
extern int	wl_store_copy_activity(WlActivity **out);
extern bool wl_store_take_prepared(const char *gid, bool commit, WlPreparedDeletion *deletion);

/* for views.c and diagnose.c: palloc'd copies */
extern int	wl_store_copy_xacts(WlXactRecord **out);
extern int	wl_store_copy_minutes(WlMinuteRecord **out);
/* walload_statements reads the ring a chunk at a time (store.c) */
typedef struct WlStmtScan
{
	uint64		next;			/* the next position to read */
	uint64		hi;				/* the first one written after the start */
} WlStmtScan;
extern void wl_store_scan_statements(WlStmtScan *scan);
extern int	wl_store_scan_statements_next(WlStmtScan *scan, WlStmtRecord *buf, int max);
typedef bool (*WlStmtFilter) (const WlStmtRecord *rec, void *arg);
extern int	wl_store_copy_statements_filtered(WlStmtFilter filter, void *arg,
											  WlStmtRecord **out);

/*
 * An aggregate's figures (walload_stats), a list as the records (types.h):
 * the store's entry (in the stats file's order) and its readers' copy.
 */
#define WL_STATS_FIELDS(X) \
	X(count, int64, calls, , ) \
	X(count, int64, errors, , ) \
	X(sum_ms, double, total_ms, , ) \
	X(ms, double, min_ms, , ) \
	X(ms, double, max_ms, , ) \
	X(ms, double, mean_ms, , ) \
	X(finite, double, sum_var_ms, , ) \
	X(count, int64, wal_skipped_calls, , ) \
	X(count, int64, scanned_buffers, , ) \
	X(sum_ms, double, commit_ms, , ) \
	X(counters, WlCounters, c, , )

typedef struct WlStatsEntryCopy
{
	WlStatsKey	key;
	WL_STATS_FIELDS(WL_FIELD)
	WlQuery		query;
} WlStatsEntryCopy;
extern int	wl_store_copy_stats(WlStatsEntryCopy **out);

/*
 * How far the calibration of this start (or crash-restart) has come: the
 * worker (calibrate.c) calibrates then and when walload_calibrate() asks;
 * until it has, the figures are all zero (no estimate).
 */
typedef enum WlCalibration
{
	WL_CALIB_RUNNING = 0,		/* a calibration is to come or under way */
	WL_CALIB_DONE,				/* the last one timed every figure */
	WL_CALIB_FAILED,			/* the last one ended before it was done */
	WL_CALIB_OFF				/* walload.calibration = off */
} WlCalibration;
extern bool wl_store_calibrated(void);

/*
 * walload_info's figures, in its columns' order: X(kind, type, name, dims,
 * source).  wl_store_info() fills each from source (s, the store; info, the
 * figures before it; k, the index in an array) under the store's locks;
 * views.c shows it by kind.  The walks are priced as calibrated: nothing
 * is learned of them (scan_time_*).
 */
#define WL_INFO_FIELDS(X) \
	X(ts, TimestampTz, stats_reset, , s->stats_reset) \
	X(int64, uint64, xacts_recorded, , pg_atomic_read_u64(&s->xact_pos) - s->xact_base) \
	X(int64, uint64, xacts_overwritten, , Max(info->xacts_recorded, wl_max_xacts) - wl_max_xacts) \
	X(int64, uint64, statements_recorded, , pg_atomic_read_u64(&s->stmt_pos) - s->stmt_base) \
	X(int64, uint64, statements_overwritten, , Max(info->statements_recorded, wl_max_statements) - wl_max_statements) \
	X(int32, int32, stats_entries, , (int32) hash_get_num_entries(wl_stats)) \
	X(int64, int64, stats_evicted, , s->stats_evicted) \
	X(int64, int64, scans, [WL_NUM_SCAN_KINDS], s->scans[k]) \
	X(int64, int64, full_scans, , wl_sum_scans(s->scans)) \
	X(int64, int64, scanned_buffers, , s->scanned_buffers) \
	X(calibrated_at, TimestampTz, calibrated_at, , s->calibrated_at) \
	X(float8, double, ns_per_buffer, , s->scan_cost.single_ns) \
	X(int64, Size, shmem_bytes, , s->total_bytes) \
	X(int64, int64, lock_waits, , pg_atomic_read_u64(&s->lock_waits)) \
	X(float8, double, lock_wait_ms, , pg_atomic_read_u64(&s->lock_wait_us) / 1000.0) \
	X(float8, double, fsync_time_ratio, , wl_learned_ratio(s->scan_cost.io.fsync_time_ratio)) \
	X(int64, int64, fsync_time_commits, , s->scan_cost.io.fsync_time_samples) \
	X(float8, double, file_commit_us, , Max(s->scan_cost.io.file_commit_ns, 0) / 1000) \
	X(int64, int64, file_commit_commits, , s->scan_cost.io.file_commit_samples) \
	X(float8, double, scan_time_ratio, , 1.0) \
	X(int64, int64, scan_time_commits, , 0) \
	X(calibration, WlCalibration, calibration, , s->calibration) \
	X(calibration_ms, double, calibration_ms, , s->calibration_ms) \
	X(calibration_io, int64, calibration_io_bytes, , s->calibration_io_bytes) \
	X(float8, double, commit_sync_ms, , pg_atomic_read_u64(&s->commit_sync_us) / 1000.0) \
	X(float8, double, commit_cleanup_ms, , pg_atomic_read_u64(&s->commit_cleanup_us) / 1000.0) \
	X(int64, uint64, minutes_recorded, , pg_atomic_read_u64(&s->minute_pos) - s->minute_base) \
	X(int64, uint64, minutes_overwritten, , Max(info->minutes_recorded, wl_max_minutes) - wl_max_minutes) \
	X(int64, int64, auto_aside_commits, , pg_atomic_read_u64(&s->auto_aside_commits)) \
	X(auto_aside, double, auto_aside_ratio, , pg_atomic_read_u64(&s->auto_aside_ratio) / 1000.0)

typedef struct WlInfo
{
	WL_INFO_FIELDS(WL_FIELD)
} WlInfo;
extern void wl_store_info(WlInfo *info);
extern void wl_store_note_auto_aside(double ratio);
extern void wl_store_reset(void);

#endif							/* WALLOAD_STORE_H */

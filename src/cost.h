/*-------------------------------------------------------------------------
 *
 * cost.h
 *		walload's one cost model (cost.c): walks of shared buffers and
 *		commits, priced from the calibration.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALLOAD_COST_H
#define WALLOAD_COST_H

#include "types.h"

extern void wl_cost_figures(WlScanCost *cost);
extern double wl_wal_written_ns(const WlIoCost *io, double wal_bytes);
extern double wl_scan_timed_ns(const WlScanCost *cost, WlScanKind kind, int nfiles);
extern double wl_scans_est_ns(WlScanKind kind, int64 n, int nfiles, int64 buffers);
extern double wl_scan_faults_priced_ns(void);
extern void wl_header_pages(uintptr_t *start, uintptr_t *end);
extern int64 wl_header_page_count(void);
extern void wl_header_pages_mapped(int64 pages);

/* a commit's predicted duration, by part (see wl_commit_est) */
typedef struct WlCommitEstimate
{
	double		scan_ns;
	double		sync_ns;
	double		wal_ns;
	double		drop_ns;
	double		total_ns;
	/* of scan, sync and wal: before core's COMMIT callback (not the deletion's walk) */
	double		sync_phase_ns;
	double		fsync_timed_ns; /* the fsyncs as the calibration timed them */
	double		fsync_ns;		/* the same scaled by fsync_time_ratio (in sync_ns) */
	double		files_ns;		/* of total_ns: io.file_commit_ns per file */
	double		drop_ondisk_ns; /* drop_ns, all blocks on disk: for DEBUG1 (bench), else 0 */
	int64		sync_written;	/* the synced files' dirty buffers written */
} WlCommitEstimate;

extern void wl_commit_state_now(WlCommitState *st, const WlCommitModel *m,
								int64 dirty_buffers, bool live);
extern void wl_note_commit_wal_logged(void);
extern void wl_commit_est(const WlCommitModel *m, const WlScanCost *cost,
						  const WlCommitState *st, WlCommitEstimate *est);
extern void wl_commit_est_flush(const WlScanCost *cost, double wal_blocks,
								WlCommitEstimate *est);

#endif							/* WALLOAD_COST_H */

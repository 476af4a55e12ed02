/*-------------------------------------------------------------------------
 *
 * settings.h
 *		The walload.* settings (settings.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALLOAD_SETTINGS_H
#define WALLOAD_SETTINGS_H

typedef enum WlTrackLevel
{
	WL_TRACK_NONE = 0,
	WL_TRACK_TOP,
	WL_TRACK_ALL
} WlTrackLevel;

typedef enum WlCommitStrategy
{
	WL_STRATEGY_OFF = 0,
	WL_STRATEGY_AUTO,
	WL_STRATEGY_WAL,
	WL_STRATEGY_SYNC
} WlCommitStrategy;

extern int	wl_track;
extern int	wl_commit_strategy;
extern bool wl_track_utility;
extern bool wl_track_dml;
extern int	wl_max_stats;
extern int	wl_max_xacts;
extern int	wl_max_minutes;
extern int	wl_max_statements;
extern bool wl_save;
extern bool wl_compute_query_id;
extern double wl_warn_scan_ms;
extern bool wl_calibration_on;

struct WlScanCost;
extern void wl_unit_costs_apply(struct WlScanCost *cost);
extern uint64 wl_unit_costs_generation(void);

extern void wl_settings_define(void);

#endif							/* WALLOAD_SETTINGS_H */

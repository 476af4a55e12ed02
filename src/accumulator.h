/*-------------------------------------------------------------------------
 *
 * accumulator.h
 *		The backend's accumulator (accumulator.c), called by hooks.c.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALLOAD_ACCUMULATOR_H
#define WALLOAD_ACCUMULATOR_H

#include "observe.h"
#include "model.h"

#include "executor/execdesc.h"
#include "portability/instr_time.h"

/* the transaction: observed from the first statement with tracking on */
extern void wl_acc_observe(void);
extern bool wl_acc_observed(void);

/* statements, and what the one running now did (model.c, observe.c) */
extern void wl_acc_apply_effects(const WlEffects *eff);
extern bool wl_acc_statement_on_stack(void);
extern int32 wl_acc_current_statement_no(void);
extern uint64 wl_acc_utility_start(bool tracked, CommandTag tag, uint64 queryid,
								   int nest_level, const char *source_text,
								   int query_location, int query_len);
extern void wl_acc_utility_measure(uint64 serial, bool from_now);
extern void wl_acc_utility_done(uint64 serial, WlStmtStatus status, uint64 rows);
extern bool wl_acc_innermost_is_utility_at(int nest_level);
extern void wl_acc_executor_starting(QueryDesc *queryDesc);
extern void wl_acc_executor_start(bool conditional, bool may_be_light,
								  CommandTag tag, uint64 queryid, int nest_level,
								  QueryDesc *queryDesc);
extern bool wl_acc_executor_tracked(QueryDesc *queryDesc);
extern bool wl_acc_executor_phase_begin(QueryDesc *queryDesc, instr_time *start);
extern void wl_acc_executor_phase_end(QueryDesc *queryDesc, instr_time start,
									  bool failed, bool resumable);
extern void wl_acc_executor_done(QueryDesc *queryDesc, uint64 rows, bool wal_skipped);

/* background processes: their work at a commit, the ends of their transactions */
extern void wl_acc_worker_statement(const WlWorkerWork *w, const WlEffects *eff);
extern void wl_acc_worker_boundary(void);

/* transaction events, in the order core runs them (see accumulator.c) */
extern void wl_acc_set_prepare_gid(const char *gid);
extern bool wl_acc_pre_commit(bool is_prepare);
extern void wl_acc_commit_done(void);
extern void wl_acc_prepare_done(void);
extern void wl_acc_subxact_abort(SubTransactionId subid);
#define wl_acc_abort() wl_acc_subxact_abort(InvalidSubTransactionId)
extern void wl_acc_locks_released(void);
extern void wl_acc_xact_end(void);
extern void wl_acc_exit_begins(void);
extern void wl_acc_backend_exit(void);

#endif							/* WALLOAD_ACCUMULATOR_H */

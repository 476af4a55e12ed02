/*-------------------------------------------------------------------------
 *
 * observe.h
 *		What a utility statement did to relation storage, seen before and
 *		after it and at its object access events (observe.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALLOAD_OBSERVE_H
#define WALLOAD_OBSERVE_H

#include "model.h"

#include "nodes/nodes.h"

typedef struct WlObservation WlObservation;

/* around a utility statement */
extern WlObservation *wl_observe_before(Node *parsetree);
extern void wl_observe_after(WlObservation *obs, bool success, WlEffects *eff);

/* object access events, while a statement runs */
extern void wl_observe_truncate(Oid relid);
extern void wl_observe_relation(Oid relid, bool created, WlEffects *eff);

/* what a background process's transaction did, recorded as one statement */
typedef struct WlWorkerWork
{
	WlBackendKind kind;
	CommandTag	tag;
	uint64		rows;
	char		text[WL_QUERY_LEN];
} WlWorkerWork;

/* background processes, at their transactions' commits */
extern WlBackendKind wl_observe_worker_kind(void);
extern bool wl_observe_worker_xact(WlBackendKind kind, WlWorkerWork *w, WlEffects *eff);

#endif							/* WALLOAD_OBSERVE_H */

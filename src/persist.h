/*-------------------------------------------------------------------------
 *
 * persist.h
 *		The stats file: walload's shared memory across a clean shutdown
 *		(persist.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALLOAD_PERSIST_H
#define WALLOAD_PERSIST_H

extern void wl_persist_startup(bool created);

#endif							/* WALLOAD_PERSIST_H */

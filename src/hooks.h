/*-------------------------------------------------------------------------
 *
 * hooks.h
 *		Installing walload's hooks and callbacks into core (hooks.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALLOAD_HOOKS_H
#define WALLOAD_HOOKS_H

extern void wl_install_hooks(void);

#endif							/* WALLOAD_HOOKS_H */

/*-------------------------------------------------------------------------
 *
 * calibrate.h
 *		The calibration worker and its request protocol (calibrate.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALLOAD_CALIBRATE_H
#define WALLOAD_CALIBRATE_H

#include "store.h"

extern void wl_calibration_register_worker(void);

/* the request protocol, a backend's side: walload_calibrate() */
extern uint64 wl_store_request_calibration(int passes);
extern bool wl_store_wait_calibration(uint64 request, int timeout_s, int *passes);
extern const char *wl_calibration_name(WlCalibration state);

#endif							/* WALLOAD_CALIBRATE_H */

/*-------------------------------------------------------------------------
 *
 * calibrate.h
 *		The calibration worker (calibrate.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALLOAD_CALIBRATE_H
#define WALLOAD_CALIBRATE_H

extern void wl_calibration_register_worker(void);

#endif							/* WALLOAD_CALIBRATE_H */

/* --devices LIST|all: the GPUs of one host that a run spreads its cases over,
 * one worker process (a lane) per device, all running at the same time. Which
 * case goes where is a property of the case's place in the run's selection
 * alone (round robin), so that a run is repeatable and every lane gets as many
 * cases as another, give or take one. docs/CLUSTER.md describes it. */
#ifndef KHOST_DEVICES_H
#define KHOST_DEVICES_H

#include "error.h"

/* Most devices one run spreads over: more than any one host holds. */
#define KHOST__DEVICES_MAX 64
/* Highest ordinal a list may name, as --device takes. */
#define KHOST__DEVICE_ORDINAL_MAX 1023

/* The devices a run spreads over, in the order given. Plain value. */
typedef struct khost__devices {
  int all;   /* "all": the ordinals come from the count of visible devices (khost__devices_resolve) */
  int count; /* ordinals held; 0 until an "all" is resolved */
  int ordinals[KHOST__DEVICES_MAX];
} khost__devices;

/* Reads "all" or a comma-separated list of distinct ordinals ("0,2,3") into
 * *out. An empty item, a non-number, an ordinal out of range, a repeated one, or
 * more than KHOST__DEVICES_MAX is KHOST__E_CONFIG naming the item. */
int khost__devices_parse(const char *spec, khost__devices *out, khost__err *err);

/* Checks *d against the visible GPUs (visible of them, why the count is 0 in
 * why): "all" becomes 0 .. visible - 1, none visible being KHOST__E_CONFIG; a
 * list naming an ordinal that does not exist is KHOST__E_CONFIG listing those
 * that do. With no GPU visible a list stands: its entries then name the
 * workers that share the CPU, and every CUDA row is SKIP as in a plain run. */
int khost__devices_resolve(khost__devices *d, int visible, const char *why, khost__err *err);

/* The lane (0 to nlanes - 1) that runs the case at place position (from 0) of
 * the run's selected cases: position mod nlanes. */
int khost__devices_lane_of(int position, int nlanes);

/* The threads each lane's CPU kernels get: threads / nlanes, at least 1, so
 * that nlanes lanes at once use no more than the run's threads while there are
 * at least as many threads as lanes (else one thread each). */
int khost__devices_lane_threads(int threads, int nlanes);

#endif

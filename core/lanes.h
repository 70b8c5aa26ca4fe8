/* --devices: a run's cases spread over one lane per device, all running at
 * once. A lane is a child process of khost that runs its share of the cases
 * exactly as a one-device run does (khost__run_suite, with the lane's ordinal
 * as --device and its share of --threads), workers and all, and sends each
 * finished case's rows back; the parent hands them on in the selection's order,
 * so that the reports read as a one-device run's. */
#ifndef KHOST_LANES_H
#define KHOST_LANES_H

#include "devices.h"
#include "runner.h"

/* Runs every case of suite over devices (resolved, count >= 1): case at place
 * p goes to lane khost__devices_lane_of(p, count). done gets each case's rows
 * in suite order, with the device its lane measured (NULL before its GPU came
 * up). *failed and the return value as khost__run_suite's; a lane that ends
 * before its last case (killed from outside) is KHOST__E_FAIL naming it. */
int khost__run_lanes(const khost__options *o, const khost__registry *reg, const khost__suite *suite,
                     const khost__devices *devices, khost__case_done_fn done, void *ctx, int *failed,
                     khost__err *err);

#endif

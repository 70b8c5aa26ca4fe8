/* The parent's side of a run: for each case, which backends run, workers to
 * run them (restarted past a crash), and the finished rows with their derived
 * numbers (throughput, % of peak, speedup). */
#ifndef KHOST_RUNNER_H
#define KHOST_RUNNER_H

#include "cuda.h"
#include "loader.h"
#include "options.h"
#include "result.h"
#include "suite.h"

/* Receives each case's rows as soon as the case is finished (rows borrowed
 * for the call); device is NULL until a worker has reported a GPU. */
typedef int (*khost__case_done_fn)(void *ctx, const khost__row *rows, int nrows,
                                   const khost__device_info *device, khost__err *err);

/* Checks that --backends, --reference and --baseline name loaded plugins
 * (KHOST__E_CONFIG listing the known names otherwise) and that the reference
 * has a CPU kernel for the op of every case of suite (else no case could be
 * checked: KHOST__E_CONFIG naming the op). */
int khost__runner_validate(const khost__options *o, const khost__registry *reg, const khost__suite *suite,
                           khost__err *err);

/* Runs every case of suite. *failed is set when any row is FAIL, ERROR, CRASH
 * or TIMEOUT. Returns 0 unless the run itself could not go on. */
int khost__run_suite(const khost__options *o, const khost__registry *reg, const khost__suite *suite,
                     khost__case_done_fn done, void *ctx, int *failed, khost__err *err);

#endif

/* The worker's run as a list of units: phases over the whole case and guards
 * over one slot. Each is one file, core/worker/<name>.c, defining
 * khost__phase_<name>; the list khost_worker_phases (core/worker/meson.build)
 * orders them, and core/worker.c runs the table generated from it. */
#ifndef KHOST_WORKER_PHASES_H
#define KHOST_WORKER_PHASES_H

#include "state.h"

/* One unit. Exactly one of whole and slot is set; each returns 0, or
 * KHOST__E_CUDA_BROKEN when the CUDA context broke (the worker then restarts),
 * or another failure that ends the case (having settled the rows it fails). */
typedef struct khost__phase {
  /* A phase over the case, run once. */
  int (*whole)(khost__worker *w);
  /* A guard over slot s, run only while s is active. Guards that follow each
   * other in the list run together, slot by slot: all of them on slot 0, then
   * on slot 1, ..., with the final rows sent after each slot. */
  int (*slot)(khost__worker *w, int s);
  /* A phase also run after an earlier unit broke the CUDA context: it calls no
   * plugin code and only finishes what was measured, so those rows are not lost. */
  int after_break;
} khost__phase;

/* Runs the n units of list in order until one fails; once the context broke,
 * only after_break phases still run. Returns the first failure, or 0. */
int khost__phases_run(khost__worker *w, const khost__phase *const *list, int n);

#endif

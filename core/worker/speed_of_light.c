/* The speed-of-light phase: khost's streaming kernels move the case's bytes
 * (core/sol.h), each timed exactly as the CUDA rows are (cold unless --hot,
 * launch included, by --timer's timer), and the fastest median, or for a
 * compute-bound case its FLOPs at the measured matrix peak when that is
 * slower, goes into every CUDA row with the name of what set it; each row
 * reports it against its own median (%sol). Not under --graph: a replay of N
 * calls has no launch per call, and one such kernel would not stand for it. */
#include <stdio.h>

#include "phases.h"
#include "sol.h"

static int run(khost__worker *w)
{
  const khost__options *o = w->job->o;
  double read = 0, written = 0;
  khost__sol sol;
  khost__err err;
  if (!w->cuda_ready || o->graph_calls > 0 || !khost__worker_any_active(w)) return KHOST__OK;
  khost__worker_announce(w, KHOST__NO_SLOT, "speed of light");
  khost__sol_bytes(w->job->c, &read, &written);
  if (khost__cuda_measure_sol((size_t)read, (size_t)written, !o->hot, &sol, &err) != KHOST__OK) {
    /* The rows lose their %sol, not their results. */
    fprintf(stderr, "khost: %s: speed of light not measured: %s\n", w->job->c->name, err.msg);
    sol.seconds = 0;
    sol.kernel = NULL;
  }
  char name[24];
  snprintf(name, sizeof name, "%s", sol.kernel ? sol.kernel->name : "");
  khost__peak_type type;
  double compute_s = khost__sol_compute_s(w->job->c, w->device.peak_tflops, &type);
  if (sol.seconds > 0 && compute_s > sol.seconds) {
    sol.seconds = compute_s;
    snprintf(name, sizeof name, "matrix_peak_%s", khost__peak_name(type));
  }
  for (int s = 0; s < w->job->nslots; s++) {
    if (w->job->slots[s].device_type != KHOST_DEVICE_CUDA) continue;
    w->rows[s].sol_s = sol.seconds;
    snprintf(w->rows[s].sol_kernel, sizeof w->rows[s].sol_kernel, "%s", name);
  }
  return KHOST__OK;
}

const khost__phase khost__phase_speed_of_light = {.whole = run};

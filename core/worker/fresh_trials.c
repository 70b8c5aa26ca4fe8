/* The fresh-input trials (pass 2): while a slot still passes, --trials times new
 * inputs from another seed, the oracle on them, then one checked call of each
 * active slot's prepared call. */
#include <stdio.h>

#include "check.h"
#include "checked_call.h"
#include "oracle.h"
#include "phases.h"

/* Pass 2 re-checks on inputs from other seeds: a kernel that returns a result
 * remembered from an earlier call cannot pass both. Trial t's seed is the case's
 * xor t times this odd number, so no trial meets the case's seed or another's. */
#define FRESH_SEED_MIX UINT64_C(0x9E3779B97F4A7C15)

/* Trial t's checks: fresh inputs in the same buffers, the same prepared calls
 * (same outputs and workspace); a result cached by address or in the workspace
 * fails the first trial, a kernel wrong on some inputs only may fail a later one. */
static int check_slots(khost__worker *w, int t)
{
  char phase[32];
  snprintf(phase, sizeof phase, "fresh check %d/%d", t, w->job->o->trials);
  for (int s = 0; s < w->job->nslots; s++) {
    if (!w->active[s]) continue;
    khost__check_stats before = w->rows[s].check;
    int rc = khost__worker_checked_call(w, s, phase);
    if (rc != KHOST__OK) return rc;
    if (w->active[s] && !w->rows[s].check.mismatches) {
      khost__check_merge(&before, &w->rows[s].check);
      w->rows[s].check = before;
    } else if (w->active[s]) {
      char when[128];
      snprintf(when, sizeof when, "on fresh inputs (trial %d of %d, seed %llu)%s", t, w->job->o->trials,
               (unsigned long long)w->data.seed, t == 1 ? ", a cached result? " : ": ");
      khost__worker_settle_mismatch(w, s, when);
    }
  }
  return KHOST__OK;
}

static int run(khost__worker *w)
{
  int rc = KHOST__OK, trials = w->job->o->trials;
  khost__err err;
  char phase[64]; /* --trials is at most 1000: every label fits a message's 32 bytes */
  for (int t = 1; t <= trials && rc == KHOST__OK && khost__worker_any_active(w); t++) {
    snprintf(phase, sizeof phase, "fresh inputs %d/%d", t, trials);
    khost__worker_announce(w, KHOST__NO_SLOT, phase);
    rc = khost__case_data_reseed(&w->data, w->job->c->seed ^ (FRESH_SEED_MIX * (uint64_t)t), &err);
    snprintf(phase, sizeof phase, "reference, trial %d/%d", t, trials);
    if (rc == KHOST__OK) rc = khost__worker_oracle(w, phase, &err);
    if (rc == KHOST__OK) rc = check_slots(w, t);
    khost__worker_send_rows(w);
  }
  if (rc == KHOST__OK || rc == KHOST__E_CUDA_BROKEN) return rc;
  return khost__worker_reference_failed(w, rc, &err);
}

const khost__phase khost__phase_fresh_trials = {.whole = run};

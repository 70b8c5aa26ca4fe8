/* The timed check, a guard after sampling: one more timed call into poisoned
 * outputs, then checked, so that a kernel that does less work when called again
 * on the same inputs (as timing does) is caught. It runs on inputs restored as
 * generated, so that damage done during another backend's samples is not blamed
 * on this one, and it adds no sample: its outputs were just poisoned (under
 * --hot, by a memset still in L2). */
#include "checked_call.h"
#include "phases.h"

static void settle_wrong(khost__worker *w, int s, const khost__check_stats *stats)
{
  w->rows[s].check = *stats; /* the row's counts are those of the failing call, not of pass 1 */
  khost__worker_settle(w, s, KHOST__ROW_FAIL,
                       "a timed call left %llu of %llu elements wrong (%llu never written): work skipped "
                       "when called again?",
                       (unsigned long long)stats->mismatches, (unsigned long long)stats->count,
                       (unsigned long long)stats->unwritten);
}

static int run(khost__worker *w, int s)
{
  khost__err err;
  khost__check_stats stats;
  khost__call *call = &w->calls[s];
  khost__worker_announce(w, s, "timed check");
  int rc = khost__case_data_restore(&w->data, &err);
  if (rc == KHOST__OK) rc = khost__call_poison(call, &err);
  if (rc != KHOST__OK)
    return khost__worker_settle(w, s, KHOST__ROW_ERROR, "host failure before the timed check: %s", err.msg),
           KHOST__OK;
  rc = khost__timer_call(&w->timers[s], &err);
  if (rc == KHOST__E_CUDA_BROKEN) return khost__worker_settle(w, s, KHOST__ROW_CRASH, "%s", err.msg), rc;
  if (rc != KHOST__OK) {
    khost__worker_settle(w, s, KHOST__ROW_ERROR, "on the timed check: %s", err.msg);
    khost__worker_restore_inputs(w);
    return KHOST__OK;
  }
  if (khost__worker_sync(w, s, &err) != KHOST__OK) {
    khost__worker_settle(w, s, KHOST__ROW_CRASH, "CUDA error after a timed call: %s", err.msg);
    return KHOST__E_CUDA_BROKEN;
  }
  rc = khost__call_check(call, &stats, &err);
  if (rc != KHOST__OK)
    khost__worker_settle_check_error(w, s, rc, &err);
  else if (stats.mismatches)
    settle_wrong(w, s, &stats);
  return KHOST__OK;
}

const khost__phase khost__phase_timed_check = {.slot = run};

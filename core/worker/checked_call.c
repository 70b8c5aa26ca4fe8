#include "checked_call.h"

void khost__worker_settle_mismatch(khost__worker *w, int s, const char *when)
{
  const khost__check_stats *st = &w->rows[s].check;
  khost__worker_settle(w, s, KHOST__ROW_FAIL, "%s%llu of %llu elements out of tolerance (%llu never written)",
                       when, (unsigned long long)st->mismatches, (unsigned long long)st->count,
                       (unsigned long long)st->unwritten);
}

void khost__worker_settle_check_error(khost__worker *w, int s, int rc, const khost__err *err)
{
  if (rc == KHOST__E_GUARD)
    khost__worker_settle(w, s, KHOST__ROW_FAIL, "out-of-bounds write: %s", err->msg);
  else if (rc == KHOST__E_MUTATED)
    khost__worker_settle(w, s, KHOST__ROW_ERROR, "%s", err->msg);
  else
    khost__worker_settle(w, s, KHOST__ROW_ERROR, "host failure while checking: %s", err->msg);
  khost__worker_restore_inputs(w);
}

int khost__worker_checked_call(khost__worker *w, int s, const char *phase)
{
  khost__err err;
  khost__call *call = &w->calls[s];
  khost__worker_announce(w, s, phase);
  int rc = khost__call_poison(call, &err);
  if (rc != KHOST__OK)
    return khost__worker_settle(w, s, KHOST__ROW_ERROR, "poisoning outputs: %s", err.msg), KHOST__OK;
  int status = khost__call_run(call);
  if (khost__worker_sync(w, s, &err) != KHOST__OK) {
    khost__worker_settle(w, s, KHOST__ROW_CRASH, "CUDA error after the call: %s", err.msg);
    return KHOST__E_CUDA_BROKEN;
  }
  if (status != KHOST_STATUS_OK) {
    khost__worker_settle(w, s, KHOST__ROW_ERROR, "kernel returned status %d: %s", status, call->error);
    khost__worker_restore_inputs(w);
    return KHOST__OK;
  }
  khost__check_stats stats;
  rc = khost__call_check(call, &stats, &err);
  w->rows[s].check = stats;
  if (rc != KHOST__OK) khost__worker_settle_check_error(w, s, rc, &err);
  return KHOST__OK;
}

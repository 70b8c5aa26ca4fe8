/* One checked call of a slot's prepared kernel (pass 1, each fresh trial), and
 * how a failed check settles the slot's row (those and the timed check). */
#ifndef KHOST_WORKER_CHECKED_CALL_H
#define KHOST_WORKER_CHECKED_CALL_H

#include "state.h"

/* Announces phase, poisons slot s's outputs, calls its kernel and checks the
 * result into the row's check statistics. Mismatches alone leave the slot
 * active, for the caller to judge. Returns KHOST__E_CUDA_BROKEN when the CUDA
 * context broke, else 0 (the slot's row says how it went). */
int khost__worker_checked_call(khost__worker *w, int s, const char *phase);

/* FAIL with the row's mismatch counts, the message starting with when. */
void khost__worker_settle_mismatch(khost__worker *w, int s, const char *when);

/* The row after khost__call_check's failure rc (a guard, a mutated input, the
 * host), with the inputs restored. */
void khost__worker_settle_check_error(khost__worker *w, int s, int rc, const khost__err *err);

#endif

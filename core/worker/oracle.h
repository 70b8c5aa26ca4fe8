/* The oracle: the reference plugin's CPU kernel, whose outputs on the current
 * inputs are what every backend is checked against (the oracle phase, each
 * fresh trial). */
#ifndef KHOST_WORKER_ORACLE_H
#define KHOST_WORKER_ORACLE_H

#include "state.h"

/* Runs the reference on w->data into its expected outputs, announced as phase.
 * 0, or the failure with its message in err. */
int khost__worker_oracle(khost__worker *w, const char *phase, khost__err *err);

/* Without inputs or their expected outputs no slot can be checked: every slot
 * still active is settled ERROR with err's message. Returns rc. */
int khost__worker_reference_failed(khost__worker *w, int rc, const khost__err *err);

#endif

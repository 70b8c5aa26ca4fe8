/* A case's speed of light: the bytes khost's own streaming kernel moves to
 * stand for the least any kernel of the case must do (docs/METHODOLOGY.md). */
#ifndef KHOST_SOL_H
#define KHOST_SOL_H

#include "catalog.h"

/* The bytes of c's speed-of-light kernel: *written is every output's bytes,
 * *read the rest of the op's byte count (each input read once, as the op
 * counts it: nvfp4_gemv's swizzled scales replacing the plain ones), so that
 * the two add up to the row's `bytes`. */
void khost__sol_bytes(const khost__case *c, double *read, double *written);

#endif

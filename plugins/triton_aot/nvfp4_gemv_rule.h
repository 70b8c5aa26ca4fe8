/* The triton_aot GEMV's variant rule (nvfp4_gemv.c), declared for the tests that
 * drive it with chosen device facts. */
#ifndef KHOST_TRITON_NVFP4_GEMV_RULE_H
#define KHOST_TRITON_NVFP4_GEMV_RULE_H

#include "select.h"

/* Static. */
extern const khost__triton_rule khost__triton_gemv_rule;

#endif

/* Test support: a plugin's fp8_block_gemm supports() on every case of both FP8
 * suites, read from the suite files, built by hand at fake addresses. Needs
 * KHOST_SOURCE_ROOT (the tests' c_args) and the core's suite reader. */
#ifndef KHOST_TEST_FP8_SUITES_H
#define KHOST_TEST_FP8_SUITES_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "khost/ops.h"
#include "suite.h"
#include "support/hand_call.h"

/* Expects OK for every case, except UNSUPPORTED for the ndeclined cases named in declined. */
static inline void khost_test_expect_fp8_suites(const khost_kernel *gemm, const char *const *declined,
                                                int ndeclined)
{
  const char *suites[] = {"fp8_gemm_correctness.ini", "fp8_gemm_performance.ini"};
  for (int f = 0; f < 2; f++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/suites/%s", KHOST_SOURCE_ROOT, suites[f]);
    khost__suite suite;
    khost__err err = {{0}};
    cr_assert_eq(khost__suite_load(path, &suite, &err), KHOST__OK, "%s: %s", path, err.msg);
    cr_assert_gt(suite.ncases, 0);
    for (int i = 0; i < suite.ncases; i++) {
      const khost__case *cs = &suite.cases[i];
      int want = KHOST_STATUS_OK;
      for (int d = 0; d < ndeclined; d++)
        if (strcmp(cs->name, declined[d]) == 0) want = KHOST_STATUS_UNSUPPORTED;
      hand_call c;
      hand_fp8_gemm_call(&c, KHOST_DEVICE_CUDA, khost__case_param(cs, "m"), khost__case_param(cs, "n"),
                         khost__case_param(cs, "k"), khost__case_param(cs, "qm"), khost__case_param(cs, "qn"),
                         khost__case_param(cs, "qk"));
      cr_expect_eq(gemm->supports(&c.in), want, "%s: %s", cs->name, c.error);
    }
    khost__suite_free(&suite);
  }
}

#endif

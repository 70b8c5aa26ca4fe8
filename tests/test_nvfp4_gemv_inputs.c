/* plugins/common/nvfp4_gemv.c: the nvfp4_gemv call every plugin validates alike. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "nvfp4_gemv.h"
#include "support/hand_call.h"

Test(nvfp4_gemv_inputs, a_well_formed_call_opens_with_its_pointers)
{
  hand_call c;
  hand_gemv_call(&c, KHOST_DEVICE_CUDA, 256, 512, 2);
  khost__gemv g;
  cr_assert_eq(khost__gemv_open(&c.in, KHOST_DEVICE_CUDA, INT64_MAX, &g), KHOST_STATUS_OK, "%s", c.error);
  cr_expect_eq(g.m, 256);
  cr_expect_eq(g.k, 512);
  cr_expect_eq(g.l, 2);
  cr_expect_eq(g.a, c.inputs[KHOST_NVFP4_GEMV_A].data);
  cr_expect_eq(g.v, c.inputs[KHOST_NVFP4_GEMV_V].data);
  cr_expect_eq(g.sfa, c.inputs[KHOST_NVFP4_GEMV_SFA].data);
  cr_expect_eq(g.sfv, c.inputs[KHOST_NVFP4_GEMV_SFV].data);
  cr_expect_eq(g.c, c.outputs[KHOST_NVFP4_GEMV_C].data);
}

Test(nvfp4_gemv_inputs, k_must_be_whole_scale_blocks)
{
  hand_call c;
  hand_gemv_call(&c, KHOST_DEVICE_CUDA, 128, 256, 1);
  c.params[1].value = 264;
  khost__gemv g;
  cr_expect_eq(khost__gemv_open(&c.in, KHOST_DEVICE_CUDA, INT64_MAX, &g), KHOST_STATUS_INVALID_ARGUMENT);
  cr_expect_str_eq(c.error, "nvfp4_gemv: k = 264 is not a multiple of 16");
}

Test(nvfp4_gemv_inputs, params_past_a_kernels_limit_are_refused)
{
  hand_call c;
  hand_gemv_call(&c, KHOST_DEVICE_CUDA, 128, 256, 1);
  khost__gemv g;
  cr_expect_eq(khost__gemv_open(&c.in, KHOST_DEVICE_CUDA, 200, &g), KHOST_STATUS_INVALID_ARGUMENT);
  cr_expect(strstr(c.error, "parameter k = 256 outside [16, 200]"), "%s", c.error);
}

/* The sizes the checks compute must not overflow first (UBSan in CI would stop here). */
Test(nvfp4_gemv_inputs, params_past_2_31_are_refused_whatever_the_caller_allows)
{
  hand_call c;
  hand_gemv_call(&c, KHOST_DEVICE_CUDA, 128, 256, 1);
  c.params[0].value = INT64_MAX;
  khost__gemv g;
  cr_expect_eq(khost__gemv_open(&c.in, KHOST_DEVICE_CUDA, INT64_MAX, &g), KHOST_STATUS_INVALID_ARGUMENT);
  cr_expect(strstr(c.error, "parameter m = 9223372036854775807 outside [1, 2147483647]"), "%s", c.error);
}

Test(nvfp4_gemv_inputs, every_tensor_is_checked_the_swizzled_scales_too)
{
  for (int i = 0; i < KHOST_NVFP4_GEMV_NINPUTS + KHOST_NVFP4_GEMV_NOUTPUTS; i++) {
    hand_call c;
    hand_gemv_call(&c, KHOST_DEVICE_CUDA, 128, 256, 1);
    khost_tensor *t = i < KHOST_NVFP4_GEMV_NINPUTS ? &c.inputs[i] : &c.outputs[i - KHOST_NVFP4_GEMV_NINPUTS];
    t->nbytes -= 1;
    khost__gemv g;
    cr_expect_eq(khost__gemv_open(&c.in, KHOST_DEVICE_CUDA, INT64_MAX, &g), KHOST_STATUS_INVALID_ARGUMENT,
                 "tensor %d one byte short", i);
    char role[64];
    snprintf(role, sizeof role, "%s %s: storage", i < KHOST_NVFP4_GEMV_NINPUTS ? "input" : "output", t->name);
    cr_expect(strstr(c.error, role), "the message names %s: %s", role, c.error);
  }
}

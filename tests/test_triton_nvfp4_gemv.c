/* The choices of the triton_aot GEMV rule (plugins/triton_aot/nvfp4_gemv.c) over the
 * plugin's real variant table, for the device facts of the GPUs it was measured on
 * written in: the rule reads the SM count and the memory bandwidth, which a machine
 * without a GPU cannot report. docs/PERF.md runs U, V and AC hold the measurements. */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "select.h"
#include "triton_aot.h"

/* 132 SMs each; 2619 MHz x 5120 bits and 3201 MHz x 6144 bits of HBM. */
static const khost__triton_device H100 = {.sms = 132, .dram_gbps = 3352};
static const khost__triton_device H200 = {.sms = 132, .dram_gbps = 4917};
/* Fewer SMs and slower memory, as the PCIe H100's published figures (114 SMs, about
 * 2 TB/s); no run of khost measured one. */
static const khost__triton_device H100_PCIE = {.sms = 114, .dram_gbps = 2039};

#define ONE_WARP  "gemv_m4_k1024_w1"
#define SPLIT     "gemv_split2_m8_k2048_w2"
#define TWO_WARPS "gemv_m4_k2048_w2"

static void rule_alone(void)
{
  unsetenv("KHOST_TRITON_VARIANT");
}

TestSuite(gemv_rule, .init = rule_alone);

static const char *choice(int64_t m, int64_t k, int64_t l, khost__triton_device device)
{
  khost__triton_shape s = {.m = m, .k = k, .l = l, .aligned = 1, .device = device};
  const khost__triton_variant *v = NULL;
  char err[256] = "";
  cr_assert_eq(khost__triton_select(&khost__triton_gemv_rule, &s, &v, err, sizeof err), 0, "%s", err);
  return v->name;
}

Test(gemv_rule, grids_of_96_rows_an_sm_or_more_take_the_one_warp_variant)
{
  /* GPU MODE's 4096x7168x8 and 7168x2048x4, perf_large, perf_medium. */
  const int64_t shapes[][3] = {{4096, 7168, 8}, {7168, 2048, 4}, {1024, 4096, 64}, {512, 2048, 32}};
  for (int i = 0; i < 4; i++) {
    cr_assert_str_eq(choice(shapes[i][0], shapes[i][1], shapes[i][2], H100), ONE_WARP, "shape %d", i);
    cr_assert_str_eq(choice(shapes[i][0], shapes[i][1], shapes[i][2], H200), ONE_WARP, "shape %d", i);
  }
}

Test(gemv_rule, a_smaller_grid_splits_only_where_memory_is_fast_for_the_sms)
{
  cr_assert_str_eq(choice(384, 7168, 2, H200), SPLIT);
  cr_assert_str_eq(choice(384, 7168, 2, H100), TWO_WARPS);
  cr_assert_str_eq(choice(384, 7168, 2, H100_PCIE), TWO_WARPS);
}

Test(gemv_rule, the_split_only_while_its_grid_fits_one_wave)
{
  /* 8 split programs of 8 rows an SM: 8 * 132 * 8 / 2 rows. */
  cr_assert_str_eq(choice(8 * 132 * 4, 16384, 1, H200), SPLIT);
  cr_assert_str_eq(choice(8 * 132 * 4 + 16, 16384, 1, H200), TWO_WARPS);
  cr_assert_str_eq(choice(8 * 66 * 4, 16384, 2, H200), SPLIT, "rows of all batches count");
  cr_assert_str_eq(choice(8 * 66 * 4 + 16, 16384, 2, H200), TWO_WARPS, "rows of all batches count");
  /* GPU MODE's 7168 x 16384: 1792 split programs for 1056 slots. */
  cr_assert_str_eq(choice(7168, 16384, 1, H200), TWO_WARPS);
}

Test(gemv_rule, the_threshold_is_96_rows_per_sm)
{
  cr_assert_str_eq(choice(96 * 132, 4096, 1, H100), ONE_WARP);
  cr_assert_str_eq(choice(96 * 132 - 16, 4096, 1, H100), TWO_WARPS);
  cr_assert_str_eq(choice(96 * 66, 4096, 2, H200), ONE_WARP, "rows of all batches count");
  cr_assert_str_eq(choice(96 * 132 - 16, 4096, 1, H100_PCIE), ONE_WARP, "fewer SMs fill sooner");
}

Test(gemv_rule, only_rows_of_6144_elements_or_more_split)
{
  cr_assert_str_eq(choice(384, 7168, 2, H200), SPLIT);
  cr_assert_str_eq(choice(128, 6144, 1, H200), SPLIT);
  cr_assert_str_eq(choice(2432, 4608, 2, H200), TWO_WARPS);
  cr_assert_str_eq(choice(128, 6080, 1, H200), TWO_WARPS);
}

Test(gemv_rule, where_the_split_cannot_run_the_two_warp_variant_does)
{
  /* k / 16 = 386 does not split into 2 slices of an even number of words. */
  cr_assert_str_eq(choice(128, 6176, 1, H200), TWO_WARPS);
}

Test(gemv_rule, without_device_facts_a_variant_is_still_found)
{
  /* supports() asks no device: any variant that can run the input will do. */
  khost__triton_device none = {0};
  cr_assert_str_eq(choice(7168, 16384, 1, none), TWO_WARPS);
  cr_assert_str_eq(choice(4096, 7168, 8, none), TWO_WARPS);
}

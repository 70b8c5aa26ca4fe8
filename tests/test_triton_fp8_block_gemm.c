/* The choices of the triton_aot fp8_block_gemm rule and its split of k
 * (plugins/triton_aot/fp8_block_gemm.c) over the plugin's real variant table, for the
 * device facts of a Hopper GPU written in: the rule reads the SM count, which a machine
 * without a GPU cannot report. The rule is a first guess, not yet measured on a GPU
 * (docs/TRITON_AOT.md); these tests pin what it does. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "fp8_block_gemm_rule.h"
#include "khost/plugin.h"
#include "select.h"

/* H100 and H200 (SXM) have 132 SMs. */
static const khost__triton_device HOPPER = {.sms = 132};

#define SMALL       "fp8_m64_n128_k128_w4_s4"
#define SMALL_SPLIT "fp8_m64_n128_k128_w4_s4_split"
#define LARGE       "fp8_m128_n128_k128_w8_s4"
#define LARGE_SPLIT "fp8_m128_n128_k128_w8_s4_split"
#define COLUMNS     "fp8_m128_n64_k128_w8_s4_column_scales"

static void rule_alone(void)
{
  unsetenv("KHOST_TRITON_VARIANT");
}

TestSuite(fp8_rule, .init = rule_alone);
TestSuite(fp8_split, .init = rule_alone);

static khost__triton_shape shape(int64_t m, int64_t n, int64_t k, int64_t qm, int64_t qn, int64_t qk,
                                 khost__triton_device device)
{
  return (khost__triton_shape){.m = m,
                               .n = n,
                               .k = k,
                               .qm = qm,
                               .qn = qn,
                               .qk = qk,
                               .dtype_code = KHOST_DTYPE_FLOAT8_E4M3FN,
                               .dtype_bits = 8,
                               .aligned = 1,
                               .device = device};
}

static const khost__triton_variant *chosen(khost__triton_shape s)
{
  const khost__triton_variant *v = NULL;
  char err[256] = "";
  cr_assert_eq(khost__triton_select(&khost__triton_fp8_gemm_rule, &s, &v, err, sizeof err), 0, "%s", err);
  return v;
}

/* The variant for a DeepSeek-V3 shape (1 x 128 and 128 x 128 blocks) on a Hopper GPU, and its splits. */
static void expect_deepseek(int64_t m, int64_t n, int64_t k, const char *name, int64_t splits)
{
  khost__triton_shape s = shape(m, n, k, 1, 128, 128, HOPPER);
  const khost__triton_variant *v = chosen(s);
  cr_expect_str_eq(v->name, name, "m=%lld n=%lld k=%lld", (long long)m, (long long)n, (long long)k);
  if (splits > 1)
    cr_expect_eq(khost__triton_fp8_split(v, &s).splits, splits, "m=%lld n=%lld k=%lld", (long long)m,
                 (long long)n, (long long)k);
}

Test(fp8_rule, m_64_takes_64_row_tiles_split_where_the_tiles_leave_sms_idle)
{
  /* 17, 56, 32 and 56 tiles of 64 x 128 on 132 SMs: 132 / tiles splits, spread over the steps of k. */
  expect_deepseek(64, 2112, 7168, SMALL_SPLIT, 7);
  expect_deepseek(64, 7168, 16384, SMALL_SPLIT, 2);
  expect_deepseek(64, 4096, 7168, SMALL_SPLIT, 4);
  expect_deepseek(64, 7168, 2048, SMALL_SPLIT, 2);
  /* 192 and 256 tiles: more than the SMs, whole k. */
  expect_deepseek(64, 24576, 1536, SMALL, 1);
  expect_deepseek(64, 32768, 512, SMALL, 1);
}

Test(fp8_rule, m_128_and_4096_take_128_row_tiles)
{
  expect_deepseek(128, 2112, 7168, LARGE_SPLIT, 7);
  expect_deepseek(128, 4096, 7168, LARGE_SPLIT, 4);
  expect_deepseek(128, 24576, 1536, LARGE, 1);
  const int64_t shapes[][2] = {{2112, 7168},  {24576, 1536}, {32768, 512},
                               {7168, 16384}, {4096, 7168},  {7168, 2048}};
  for (int i = 0; i < 6; i++) expect_deepseek(4096, shapes[i][0], shapes[i][1], LARGE, 1);
}

Test(fp8_rule, square_blocks_take_the_per_tile_variants)
{
  /* The seed scripts' 512^3 (qb 128: 16 tiles, 4 steps) and 1024^3 (qb 256: 64 tiles); 4096^3 (qb 512). */
  khost__triton_shape s = shape(512, 512, 512, 128, 128, 128, HOPPER);
  cr_expect_str_eq(chosen(s)->name, LARGE_SPLIT);
  cr_expect_eq(khost__triton_fp8_split(chosen(s), &s).splits, 4, "one split a step");
  s = shape(1024, 1024, 1024, 256, 256, 256, HOPPER);
  cr_expect_str_eq(chosen(s)->name, LARGE_SPLIT);
  cr_expect_eq(khost__triton_fp8_split(chosen(s), &s).splits, 2);
  cr_expect_str_eq(chosen(shape(4096, 4096, 4096, 512, 512, 512, HOPPER))->name, LARGE);
}

Test(fp8_rule, per_token_scales_of_b_take_the_per_column_variant)
{
  cr_expect_str_eq(chosen(shape(256, 384, 512, 1, 1, 128, HOPPER))->name, COLUMNS);
  cr_expect_str_eq(chosen(shape(1, 384, 512, 1, 1, 128, HOPPER))->name, COLUMNS);
  /* qn = 64 < the tiles' 128 columns: two scale blocks in a tile. */
  cr_expect_str_eq(chosen(shape(64, 384, 512, 1, 64, 128, HOPPER))->name, COLUMNS);
}

Test(fp8_rule, a_split_needs_two_splits_beside_the_tiles)
{
  /* 66 tiles of 64 x 128 leave room for 2 splits on 132 SMs, 67 for 1. */
  cr_expect_str_eq(chosen(shape(64, 66 * 128, 1024, 1, 128, 128, HOPPER))->name, SMALL_SPLIT);
  cr_expect_str_eq(chosen(shape(64, 67 * 128, 1024, 1, 128, 128, HOPPER))->name, SMALL);
  /* One step of k cannot be split. */
  cr_expect_str_eq(chosen(shape(64, 512, 128, 1, 128, 128, HOPPER))->name, SMALL);
}

Test(fp8_rule, m_past_64_leaves_the_64_row_tiles)
{
  cr_expect_str_eq(chosen(shape(65, 24576, 1536, 1, 128, 128, HOPPER))->name, LARGE);
  cr_expect_str_eq(chosen(shape(1, 24576, 1536, 1, 128, 128, HOPPER))->name, SMALL);
}

Test(fp8_rule, without_device_facts_k_is_not_split)
{
  khost__triton_device none = {0};
  cr_expect_str_eq(chosen(shape(64, 2112, 7168, 1, 128, 128, none))->name, SMALL);
  cr_expect_str_eq(chosen(shape(128, 2112, 7168, 1, 128, 128, none))->name, LARGE);
}

Test(fp8_rule, qk_not_a_multiple_of_128_has_no_variant)
{
  khost__triton_shape s = shape(64, 256, 512, 1, 128, 64, HOPPER);
  const khost__triton_variant *v = NULL;
  char err[256] = "";
  cr_assert_eq(khost__triton_select(&khost__triton_fp8_gemm_rule, &s, &v, err, sizeof err),
               KHOST_STATUS_UNSUPPORTED);
  cr_expect(strstr(err, "qk is not a multiple of the variant's block_k"), "%s", err);
}

Test(fp8_rule, the_reduction_is_never_a_gemm)
{
  const khost__triton_variant *r = khost__triton_find_variant("fp8_split_reduce_m8_n128_w4");
  cr_assert_not_null(r);
  khost__triton_shape s = shape(64, 2112, 7168, 1, 128, 128, HOPPER);
  cr_expect_str_eq(khost__triton_fp8_gemm_rule.cannot_run(r, &s),
                   "the split variants' reduction, not a GEMM");
}

static khost__triton_split split_at(int64_t m, int64_t n, int64_t k, int sms)
{
  const khost__triton_variant *v = khost__triton_find_variant(SMALL_SPLIT);
  cr_assert_not_null(v);
  khost__triton_shape s = shape(m, n, k, 1, 128, 128, (khost__triton_device){.sms = sms});
  return khost__triton_fp8_split(v, &s);
}

Test(fp8_split, splits_cover_k_and_none_is_empty)
{
  /* 7 steps, 3 splits wanted: 3 + 3 + 1. */
  khost__triton_split sp = split_at(64, 128, 7 * 128, 3);
  cr_expect_eq(sp.per_split, 3);
  cr_expect_eq(sp.splits, 3);
  /* 56 steps, 7 wanted: 8 each. */
  sp = split_at(64, 2112, 7168, 132);
  cr_expect_eq(sp.per_split, 8);
  cr_expect_eq(sp.splits, 7);
  /* 8 steps, 6 wanted: 2 each, 4 splits, so that no split is empty. */
  sp = split_at(64, 128, 8 * 128, 6);
  cr_expect_eq(sp.per_split, 2);
  cr_expect_eq(sp.splits, 4);
  for (int64_t steps = 1; steps <= 40; steps++)
    for (int sms = 0; sms <= 50; sms += 7) {
      sp = split_at(64, 128, steps * 128, sms);
      cr_expect(sp.splits >= 1 && sp.per_split * sp.splits >= steps && sp.per_split * (sp.splits - 1) < steps,
                "%lld steps on %d SMs: %lld x %lld", (long long)steps, sms, (long long)sp.splits,
                (long long)sp.per_split);
    }
}

Test(fp8_split, no_more_splits_than_steps)
{
  khost__triton_split sp = split_at(1, 512, 256, 132);
  cr_expect_eq(sp.splits, 2);
  cr_expect_eq(sp.per_split, 1);
}

/* Tests for core/ops/rowwise.c and the row ops' tolerance models (reduce_sum.c,
 * softmax_online.c): the generator draws exactly the documented values, and a
 * correct fp32 kernel passes every row while the usual bugs (a narrow
 * accumulator, a dropped element, no max subtraction) fail. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "formats.h"
#include "ops/rowwise.h"
#include "rng.h"

typedef struct rows {
  khost__case c;
  int64_t m, n;
  khost__dtype_id dtype;
  double *x; /* the generated input, decoded */
} rows;

static double decode(khost__dtype_id dtype, const void *p, int64_t e)
{
  if (dtype == KHOST__DT_FP32) return ((const float *)p)[e];
  if (dtype == KHOST__DT_BF16) return khost__bf16_decode(((const uint16_t *)p)[e]);
  return khost__fp16_decode(((const uint16_t *)p)[e]);
}

/* The value a correct kernel stores: its fp32 result rounded to the dtype. */
static double round_to(khost__dtype_id dtype, double v)
{
  if (dtype == KHOST__DT_FP32) return khost__fp32_encode(v);
  if (dtype == KHOST__DT_BF16) return khost__bf16_decode(khost__bf16_encode(v));
  return khost__fp16_decode(khost__fp16_encode(v));
}

static rows make(const char *op, const char *m, const char *n, const char *dtype, uint64_t seed)
{
  rows r;
  khost__err err = {{0}};
  khost__tensor_set s;
  khost__case_init(&r.c, khost__catalog_find(op), "t");
  cr_assert_eq(khost__case_set_param(&r.c, "m", m, &err), KHOST__OK);
  cr_assert_eq(khost__case_set_param(&r.c, "n", n, &err), KHOST__OK);
  cr_assert_eq(khost__case_set_param(&r.c, "dtype", dtype, &err), KHOST__OK);
  cr_assert_eq(khost__case_validate(&r.c, &err), KHOST__OK, "%s", err.msg);
  r.m = khost__case_param(&r.c, "m");
  r.n = khost__case_param(&r.c, "n");
  r.dtype = (khost__dtype_id)khost__case_param(&r.c, "dtype");
  r.c.op->tensors(&r.c, &s);
  void *raw = malloc(s.inputs[0].nbytes);
  r.x = malloc(sizeof(double) * (size_t)(r.m * r.n));
  cr_assert(raw && r.x);
  r.c.op->generate(&r.c, seed, 0, raw);
  for (int64_t e = 0; e < r.m * r.n; e++) r.x[e] = decode(r.dtype, raw, e);
  free(raw);
  return r;
}

static int passes(const khost__case *c, double got, double ref)
{
  return fabs(got - ref) <= c->atol + c->rtol * fabs(ref);
}

/* ---- the generator ---- */

/* Element e against the documented recipe, every `stride`-th element. */
static void expect_documented(const rows *r, uint64_t seed, double sigma, double offset_max, int64_t stride)
{
  for (int64_t e = 0; e < r->m * r->n; e += stride) {
    uint32_t w[4], o[4];
    double z[2];
    khost__rng_block(seed, 0, (uint64_t)e / 4, w);
    khost__rng_block(seed, 0x80000000u, (uint64_t)(e / r->n), o);
    khost__rng_normal_pair(w[e % 4 / 2 * 2], w[e % 4 / 2 * 2 + 1], z);
    double offset = offset_max * (2 * khost__rng_unit(o[0]) - 1);
    cr_assert_eq(r->x[e], round_to(r->dtype, offset + sigma * z[e % 2]), "%s element %ld",
                 khost__dtype_name(r->dtype), (long)e);
  }
}

Test(rowwise_generate, draws_the_documented_values)
{
  const char *dtypes[] = {"fp16", "bf16", "fp32"};
  for (int d = 0; d < 3; d++) {
    rows r = make("softmax_online", "3", "5", dtypes[d], 17);
    expect_documented(&r, 17, 2.0, 100.0, 1);
    free(r.x);
  }
}

/* 2^22 elements are split over threads; the split must not show. */
Test(rowwise_generate, a_large_tensor_is_the_same_however_it_is_split)
{
  rows r = make("reduce_sum", "64", "65536", "bf16", 18);
  expect_documented(&r, 18, 1.0, 0.0, 3);
  free(r.x);
}

Test(rowwise_generate, reduce_input_is_standard_normal)
{
  rows r = make("reduce_sum", "16", "4096", "fp32", 3);
  double sum = 0, sum2 = 0;
  int64_t count = r.m * r.n;
  for (int64_t e = 0; e < count; e++) {
    sum += r.x[e];
    sum2 += r.x[e] * r.x[e];
  }
  cr_expect(fabs(sum / (double)count) < 0.01, "mean %g", sum / (double)count);
  cr_expect(fabs(sum2 / (double)count - 1) < 0.02, "variance %g", sum2 / (double)count);
  free(r.x);
}

Test(rowwise_generate, softmax_rows_are_offset_and_spread)
{
  rows r = make("softmax_online", "64", "256", "fp32", 4);
  int high = 0, low = 0;
  double spread2 = 0;
  for (int64_t i = 0; i < r.m; i++) {
    double mean = 0, var = 0;
    for (int64_t j = 0; j < r.n; j++) mean += r.x[i * r.n + j] / (double)r.n;
    for (int64_t j = 0; j < r.n; j++) var += pow(r.x[i * r.n + j] - mean, 2) / (double)r.n;
    high += mean > 80;
    low += mean < -80;
    spread2 += var / (double)r.m;
  }
  cr_expect(high > 0 && low > 0, "rows beyond +-80: %d high, %d low", high, low);
  cr_expect(fabs(sqrt(spread2) - 2) < 0.1, "spread within rows %g", sqrt(spread2));
  free(r.x);
}

/* ---- reduce_sum's tolerance ---- */

typedef enum { SUM_FP32, SUM_IN_DTYPE, SUM_DROP_LAST } sum_kind;

static double kernel_sum(const rows *r, int64_t i, sum_kind kind)
{
  float acc = 0;
  int64_t n = kind == SUM_DROP_LAST ? r->n - 1 : r->n;
  for (int64_t j = 0; j < n; j++) {
    acc += (float)r->x[i * r->n + j];
    if (kind == SUM_IN_DTYPE) acc = (float)round_to(r->dtype, acc);
  }
  return round_to(r->dtype, acc);
}

static long failing_sums(const rows *r, sum_kind kind)
{
  long fails = 0;
  for (int64_t i = 0; i < r->m; i++) {
    long double exact = 0;
    for (int64_t j = 0; j < r->n; j++) exact += r->x[i * r->n + j];
    fails += !passes(&r->c, kernel_sum(r, i, kind), round_to(r->dtype, (double)exact));
  }
  return fails;
}

Test(reduce_sum_tolerance, passes_fp32_accumulation_and_fails_bugs)
{
  const char *dtypes[] = {"fp16", "bf16", "fp32"};
  const char *sizes[] = {"1", "7", "4096", "65536"};
  for (int d = 0; d < 3; d++) {
    for (int s = 0; s < 4; s++) {
      rows r = make("reduce_sum", "32", sizes[s], dtypes[d], 21);
      cr_expect_eq(failing_sums(&r, SUM_FP32), 0, "%s n=%s: fp32 accumulation fails", dtypes[d], sizes[s]);
      if (r.n == 4096) {
        cr_expect_geq(failing_sums(&r, SUM_DROP_LAST), d == 1 ? 8 : 20, "%s: a dropped element passes",
                      dtypes[d]);
        if (d < 2) {
          cr_expect_geq(failing_sums(&r, SUM_IN_DTYPE), 24, "%s: a narrow accumulator passes", dtypes[d]);
        }
      }
      free(r.x);
    }
  }
}

/* ---- softmax_online's tolerance ---- */

typedef enum { SOFTMAX_ONLINE_FP32, SOFTMAX_NO_MAX, SOFTMAX_SUM_IN_DTYPE } softmax_kind;

/* A running (max, sum) pair in fp32, merged as an online softmax does. */
typedef struct running {
  float max, sum;
} running;

static running merge(running a, running b)
{
  float max = fmaxf(a.max, b.max);
  if (max == -INFINITY) return a;
  return (running){max, a.sum * expf(a.max - max) + b.sum * expf(b.max - max)};
}

/* Row i of a kernel's softmax into out (n values as stored). The online pass
 * runs over blocks of `block` elements, whose (max, sum) are then merged, as a
 * parallel kernel does; block = n is one sequential accumulator. */
static void kernel_softmax(const rows *r, int64_t i, softmax_kind kind, int64_t block, double *out)
{
  const double *x = r->x + i * r->n;
  running total = {kind == SOFTMAX_NO_MAX ? 0.0f : -INFINITY, 0};
  for (int64_t b = 0; b < r->n; b += block) {
    running part = {total.max, 0};
    for (int64_t j = b; j < r->n && j < b + block; j++) {
      float v = (float)x[j];
      if (kind != SOFTMAX_NO_MAX && v > part.max) part = (running){v, part.sum * expf(part.max - v)};
      part.sum += expf(v - part.max);
      if (kind == SOFTMAX_SUM_IN_DTYPE) part.sum = (float)round_to(r->dtype, part.sum);
    }
    total = kind == SOFTMAX_NO_MAX ? (running){0, total.sum + part.sum} : merge(total, part);
  }
  for (int64_t j = 0; j < r->n; j++) out[j] = round_to(r->dtype, expf((float)x[j] - total.max) / total.sum);
}

static long failing_softmax_rows(const rows *r, softmax_kind kind, int64_t block)
{
  long fails = 0;
  double *got = malloc(sizeof(double) * (size_t)r->n);
  cr_assert_not_null(got);
  for (int64_t i = 0; i < r->m; i++) {
    const double *x = r->x + i * r->n;
    long double max = -INFINITY, sum = 0;
    int ok = 1;
    kernel_softmax(r, i, kind, block, got);
    for (int64_t j = 0; j < r->n; j++) max = fmaxl(max, x[j]);
    for (int64_t j = 0; j < r->n; j++) sum += expl(x[j] - max);
    for (int64_t j = 0; j < r->n; j++) {
      ok &= passes(&r->c, got[j], round_to(r->dtype, (double)(expl(x[j] - max) / sum)));
    }
    fails += !ok;
  }
  free(got);
  return fails;
}

Test(softmax_online_tolerance, passes_an_online_fp32_kernel_and_fails_bugs)
{
  const char *dtypes[] = {"fp16", "bf16", "fp32"};
  const char *sizes[] = {"1", "33", "4096", "32768"};
  for (int d = 0; d < 3; d++) {
    for (int s = 0; s < 4; s++) {
      rows r = make("softmax_online", "24", sizes[s], dtypes[d], 31);
      cr_expect_eq(failing_softmax_rows(&r, SOFTMAX_ONLINE_FP32, r.n), 0,
                   "%s n=%s: one fp32 accumulator fails", dtypes[d], sizes[s]);
      cr_expect_eq(failing_softmax_rows(&r, SOFTMAX_ONLINE_FP32, 256), 0, "%s n=%s: blocks of 256 fail",
                   dtypes[d], sizes[s]);
      if (r.n == 4096) {
        cr_expect_geq(failing_softmax_rows(&r, SOFTMAX_NO_MAX, r.n), 2, "%s: no max subtraction passes",
                      dtypes[d]);
        if (d < 2) {
          cr_expect_geq(failing_softmax_rows(&r, SOFTMAX_SUM_IN_DTYPE, r.n), 20, "%s: a narrow sum passes",
                        dtypes[d]);
        }
      }
      free(r.x);
    }
  }
}

/* Past about 2^17 terms one fp32 accumulator rounds small terms away (1e-3 of
 * the sum at 2^20): that error is real and fails; summing in blocks does not. */
Test(softmax_online_tolerance, long_rows_pass_in_blocks_but_not_in_one_accumulator)
{
  rows r = make("softmax_online", "2", "1048576", "fp32", 32);
  cr_expect_eq(failing_softmax_rows(&r, SOFTMAX_ONLINE_FP32, 4096), 0);
  cr_expect_eq(failing_softmax_rows(&r, SOFTMAX_ONLINE_FP32, r.n), 2);
  free(r.x);
}

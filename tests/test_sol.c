/* Tests for core/sol.c: the bytes each op's speed-of-light kernels move, and the candidates. */
#include <criterion/criterion.h>

#include "catalog.h"
#include "sol.h"

static khost__case make_case(const char *op, const char *const *keys, const char *const *values, int n)
{
  khost__case c;
  khost__err err = {{0}};
  khost__case_init(&c, khost__catalog_find(op), "c");
  for (int i = 0; i < n; i++)
    cr_assert_eq(khost__case_set_param(&c, keys[i], values[i], &err), KHOST__OK, "%s", err.msg);
  cr_assert_eq(khost__case_validate(&c, &err), KHOST__OK, "%s", err.msg);
  return c;
}

/* Read and written add up to the row's bytes, so %sol and GB/s count the same traffic. */
static void expect_split(const khost__case *c, double read, double written)
{
  double r = -1, w = -1;
  khost__sol_bytes(c, &r, &w);
  cr_expect_eq(r, read, "%s read %.0f, expected %.0f", c->op->name, r, read);
  cr_expect_eq(w, written, "%s written %.0f, expected %.0f", c->op->name, w, written);
  cr_expect_eq(r + w, c->op->bytes(c), "%s", c->op->name);
}

/* Each op: copy_transpose and softmax read and write the matrix, reduce_sum
 * writes a value a row, nvfp4_gemv reads the fp4 matrix and vector and one set
 * of scales (the swizzled ones stand in for the plain) per batch, fp16 out. */
Test(sol, each_op_writes_its_outputs_and_reads_the_rest_of_its_bytes)
{
  static const struct {
    const char *op, *keys[3], *values[3];
    double read, written;
  } cases[] = {
      {"copy_transpose", {"m", "n", "dtype"}, {"64", "100", "fp16"}, 64 * 100 * 2, 64 * 100 * 2},
      {"reduce_sum", {"m", "n", "dtype"}, {"7", "33", "bf16"}, 7 * 33 * 2, 7 * 2},
      {"softmax_online", {"m", "n", "dtype"}, {"8", "4096", "fp32"}, 8 * 4096 * 4, 8 * 4096 * 4},
      {"nvfp4_gemv",
       {"m", "k", "l"},
       {"128", "256", "2"},
       2 * (128 * 256 / 2 + 128 * 256 / 16 + 256 / 2 + 256 / 16),
       2 * 128 * 2},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    khost__case c = make_case(cases[i].op, cases[i].keys, cases[i].values, 3);
    expect_split(&c, cases[i].read, cases[i].written);
  }
}

/* The candidates: named once each (reports name the one that set the bound),
 * both kernel shapes and the device copy among them, and every kernel's grid
 * resident at once on an SM of sm_90 (2048 threads), so none pays a second wave
 * of blocks per SM. */
Test(sol, the_candidates_are_distinct_and_fit_an_sm)
{
  int n, shapes = 0;
  const khost__sol_kernel *k = khost__sol_kernels(&n);
  cr_assert_eq(n, KHOST__SOL_KERNELS);
  for (int i = 0; i < n; i++) {
    shapes |= 1 << k[i].shape;
    for (int j = 0; j < i; j++) cr_expect_str_neq(k[i].name, k[j].name);
    if (k[i].shape == KHOST__SOL_MEMCPY) continue;
    cr_expect_gt(k[i].blocks_per_sm, 0, "%s", k[i].name);
    cr_expect_leq(k[i].blocks_per_sm * k[i].threads, 2048, "%s", k[i].name);
    cr_expect_eq(k[i].threads % 32, 0, "%s: whole warps", k[i].name);
  }
  cr_expect_eq(shapes, 1 << KHOST__SOL_COPY | 1 << KHOST__SOL_READ_FIRST | 1 << KHOST__SOL_MEMCPY);
}

/* fp8_block_gemm's FLOPs at the e4m3 peak; no compute side for an op that names
 * no matrix peak or where that peak was not measured. */
Test(sol, a_matrix_op_is_bounded_by_its_flops_at_its_peak)
{
  static const char *const gemm_keys[] = {"m", "n", "k", "qm", "qn", "qk"}, *const gemm_values[] = {
                                                                                "256", "512", "1024",
                                                                                "1",   "128", "128"};
  static const char *const copy_keys[] = {"m", "n", "dtype"}, *const copy_values[] = {"64", "64", "fp16"};
  khost__case gemm = make_case("fp8_block_gemm", gemm_keys, gemm_values, 6);
  khost__case copy = make_case("copy_transpose", copy_keys, copy_values, 3);
  double peaks[KHOST__PEAKS] = {[KHOST__PEAK_E4M3] = 1000, [KHOST__PEAK_BF16] = 500};
  khost__peak_type type = KHOST__PEAK_BF16;
  double expected = 2.0 * 256 * 512 * 1024 / 1e15;
  cr_expect_float_eq(khost__sol_compute_s(&gemm, peaks, &type), expected, expected * 1e-12);
  cr_expect_eq(type, KHOST__PEAK_E4M3);
  cr_expect_eq(khost__sol_compute_s(&copy, peaks, &type), 0);
  peaks[KHOST__PEAK_E4M3] = 0;
  cr_expect_eq(khost__sol_compute_s(&gemm, peaks, &type), 0, "an unmeasured peak bounds nothing");
}

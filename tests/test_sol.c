/* Tests for core/sol.c: the bytes each op's speed-of-light kernel moves. */
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

Test(sol, copy_transpose_reads_and_writes_the_matrix)
{
  const char *k[] = {"m", "n", "dtype"}, *v[] = {"64", "100", "fp16"};
  khost__case c = make_case("copy_transpose", k, v, 3);
  expect_split(&c, 64 * 100 * 2, 64 * 100 * 2);
}

Test(sol, reduce_sum_reads_the_matrix_and_writes_a_value_per_row)
{
  const char *k[] = {"m", "n", "dtype"}, *v[] = {"7", "33", "bf16"};
  khost__case c = make_case("reduce_sum", k, v, 3);
  expect_split(&c, 7 * 33 * 2, 7 * 2);
}

Test(sol, softmax_reads_and_writes_the_matrix)
{
  const char *k[] = {"m", "n", "dtype"}, *v[] = {"8", "4096", "fp32"};
  khost__case c = make_case("softmax_online", k, v, 3);
  expect_split(&c, 8 * 4096 * 4, 8 * 4096 * 4);
}

/* The fp4 matrix and vector and one set of scales (the swizzled ones stand in
 * for the plain), per batch; fp16 out. */
Test(sol, nvfp4_gemv_reads_one_set_of_scales)
{
  const char *k[] = {"m", "k", "l"}, *v[] = {"128", "256", "2"};
  khost__case c = make_case("nvfp4_gemv", k, v, 3);
  double per_batch = 128 * 256 / 2 + 128 * 256 / 16 + 256 / 2 + 256 / 16;
  expect_split(&c, 2 * per_batch, 2 * 128 * 2);
}

/* core/variation.c: the draws (distinct permutations, never the identity), the
 * host's varying on a small tensor worked by hand, and every op's declaration
 * (each call's inputs new, its expected outputs new, signs only where every
 * sign axis is indexed). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buffers.h"
#include "catalog.h"
#include "variation.h"

Test(vary_draw, the_first_n_calls_permute_differently_and_none_is_the_identity)
{
  khost__variation v = {.extent = {1, 7, 1}, .permuted_axis = 1};
  uint64_t seen[7] = {0};
  for (uint64_t i = 1; i <= 7; i++) {
    khost__vary_call c;
    khost__vary_draw(&v, 42, i, &c);
    cr_expect_eq(c.n, 7);
    cr_expect(!(c.a == 1 && c.b == 0), "call %llu is the identity", (unsigned long long)i);
    cr_expect_eq(seen[c.b]++, 0, "calls share the image of 0 (b = %llu)", (unsigned long long)c.b);
  }
  for (uint64_t i = 8; i < 200; i++) {
    khost__vary_call c;
    khost__vary_draw(&v, 42, i, &c);
    cr_expect(!(c.a == 1 && c.b == 0), "call %llu is the identity", (unsigned long long)i);
    cr_expect(c.a >= 1 && c.a < 7, "a = %llu", (unsigned long long)c.a);
  }
}

/* in [2][3] fp32, columns permuted by x -> (2x + 1) mod 3, signs per row. */
Test(vary_host, moves_the_permuted_axis_and_flips_by_source_coordinates)
{
  khost__tensor_spec t;
  const int64_t shape[2] = {2, 3};
  static const char *const dims[2] = {"row", "col"};
  const int axes[2] = {0, 1};
  khost__tensor_spec_fill(&t, "in", KHOST__DT_FP32, 2, shape, dims);
  khost__vary_map m;
  khost__vary_map_of(&m, &t, axes, 1);
  cr_assert_eq(m.sign_mask, 0x80000000u);
  khost__vary_call c = {
      .permuted_axis = 1, .a = 2, .b = 1, .n = 3, .sign_axes = 1u << 0, .extent = {2, 3, 1}};
  const float src[6] = {1, 2, 3, 4, 5, 6};
  float dst[6];
  int flip[2];
  for (int r = 0; r < 2; r++) khost__vary_source(&m, &c, (uint64_t)r * 3, &flip[r]);
  khost__vary_host(&m, &c, src, dst);
  /* col 0 <- 1, col 1 <- 0, col 2 <- 2 */
  const int from[3] = {1, 0, 2};
  for (int r = 0; r < 2; r++)
    for (int j = 0; j < 3; j++)
      cr_expect_eq(dst[r * 3 + j], (flip[r] ? -1 : 1) * src[r * 3 + from[j]], "[%d][%d]", r, j);
}

/* A case of op with parameters small enough to vary many times. */
static khost__case small_case(const khost__op *op)
{
  khost__case c;
  khost__err err = {{0}};
  khost__case_init(&c, op, "small");
  for (int i = 0; i < op->nparams; i++) {
    const khost__param_spec *p = &op->params[i];
    if (p->kind == KHOST__PARAM_INT && !p->has_default) {
      char text[32];
      snprintf(text, sizeof text, "%lld", (long long)(p->min > 16 ? p->min : 16 - 16 % p->multiple_of));
      cr_assert_eq(khost__case_set_param(&c, p->name, text, &err), KHOST__OK, "%s", err.msg);
    }
  }
  cr_assert_eq(khost__case_validate(&c, &err), KHOST__OK, "%s: %s", op->name, err.msg);
  return c;
}

/* The bytes of every tensor of set varied by call `index` (0: as generated), hashed together. */
static uint64_t hash_varied(const khost__case *c, const khost__variation *v, int outputs, uint64_t index,
                            void *const *data)
{
  khost__tensor_set set;
  c->op->tensors(c, &set);
  int n = outputs ? set.noutputs : set.ninputs;
  uint64_t h = 0;
  for (int t = 0; t < n; t++) {
    size_t bytes = outputs ? set.outputs[t].nbytes : set.inputs[t].nbytes;
    unsigned char *out = malloc(bytes);
    cr_assert_not_null(out);
    khost__vary_call call;
    khost__vary_draw(v, c->seed, index, &call);
    if (index == 0)
      memcpy(out, data[t], bytes);
    else
      khost__vary_host(outputs ? &v->outputs[t] : &v->inputs[t], &call, data[t], out);
    h = h * 31 + khost__hash_bytes(out, bytes);
    free(out);
  }
  return h;
}

/* Outputs of plausible values (distinct, non-zero) stand in for the oracle's:
 * what matters is that each call's expected outputs differ from its predecessor's. */
static void fill_distinct(void *data, size_t bytes)
{
  unsigned char *p = data;
  for (size_t i = 0; i < bytes; i++) p[i] = (unsigned char)(17 + 37 * i % 191);
}

Test(vary_ops, every_op_gives_each_call_new_inputs_and_new_expected_outputs)
{
  for (const khost__op *const *op = khost__catalog_ops(); *op; op++) {
    cr_assert_not_null((*op)->vary, "%s declares no variation", (*op)->name);
    khost__case c = small_case(*op);
    khost__variation v;
    (*op)->vary(&c, &v);
    khost__tensor_set set;
    (*op)->tensors(&c, &set);
    void *in[KHOST__MAX_TENSORS] = {0}, *out[KHOST__MAX_TENSORS] = {0};
    for (int t = 0; t < set.ninputs; t++) {
      cr_assert_not_null(in[t] = malloc(set.inputs[t].nbytes));
      (*op)->generate(&c, c.seed, t, in[t]);
      cr_expect_eq(khost__vary_units(&v.inputs[t]) * (uint64_t)v.inputs[t].unit_bytes, set.inputs[t].nbytes,
                   "%s input %d", (*op)->name, t);
    }
    for (int t = 0; t < set.noutputs; t++) {
      cr_assert_not_null(out[t] = malloc(set.outputs[t].nbytes));
      fill_distinct(out[t], set.outputs[t].nbytes);
    }
    enum { CALLS = 24 };
    uint64_t inputs[CALLS + 1], outputs[CALLS + 1];
    for (uint64_t i = 0; i <= CALLS; i++) {
      inputs[i] = hash_varied(&c, &v, 0, i, in);
      outputs[i] = hash_varied(&c, &v, 1, i, out);
      for (uint64_t j = 0; j < i; j++)
        cr_expect_neq(inputs[i], inputs[j], "%s: calls %llu and %llu read the same inputs", (*op)->name,
                      (unsigned long long)i, (unsigned long long)j);
      if (i)
        cr_expect_neq(outputs[i], outputs[i - 1], "%s: call %llu expects its predecessor's outputs",
                      (*op)->name, (unsigned long long)i);
    }
    for (int t = 0; t < set.ninputs; t++) free(in[t]);
    for (int t = 0; t < set.noutputs; t++) free(out[t]);
  }
}

/* A flipped tensor must index every sign axis: its signs are those of the coordinates. */
Test(vary_ops, signs_only_on_tensors_that_index_every_sign_axis)
{
  for (const khost__op *const *op = khost__catalog_ops(); *op; op++) {
    khost__case c = small_case(*op);
    khost__variation v;
    khost__tensor_set set;
    (*op)->vary(&c, &v);
    (*op)->tensors(&c, &set);
    for (int t = 0; t < set.ninputs + set.noutputs; t++) {
      const khost__vary_map *m = t < set.ninputs ? &v.inputs[t] : &v.outputs[t - set.ninputs];
      unsigned indexed = 0;
      for (int d = 0; d < m->ndim; d++)
        if (m->axis[d] >= 0) indexed |= 1u << m->axis[d];
      if (m->sign_mask) cr_expect_eq(indexed & v.sign_axes, v.sign_axes, "%s tensor %d", (*op)->name, t);
    }
  }
}

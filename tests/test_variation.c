/* core/variation.c: the draws (distinct permutations, never the identity), the
 * host's walks against the documented formula computed unit by unit, the
 * device's strided cursor, and every op's declaration
 * (each call's inputs new, its expected outputs new, signs only where every
 * sign axis is indexed). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buffers.h"
#include "catalog.h"
#include "support/vary_walks.h"
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

/* The documented variation, element by element with divisions, independent of
 * the walks under test: unit e of the varied tensor copies the source unit at
 * its coordinates with the permuted axis's index i replaced by (a i + b) mod n,
 * and flips when the top bit of the 32-bit sum of the top halves of
 * vary_mix(key ^ (x * 3 + axis)) over the source coordinates x of the sign
 * axes the tensor indexes is set. */
static uint64_t source_of(const khost__vary_map *m, const khost__vary_call *c, uint64_t e, int *flip)
{
  uint64_t src = 0, stride = 1;
  uint32_t sum = 0;
  for (int d = m->ndim - 1; d >= 0; d--) {
    uint64_t extent = (uint64_t)m->shape[d], i = e % extent;
    int axis = m->axis[d];
    e /= extent;
    if (axis >= 0 && axis == c->permuted_axis) i = (c->a * i + c->b) % c->n;
    if (axis >= 0 && (c->sign_axes >> axis & 1))
      sum += (uint32_t)(khost__vary_mix(c->key ^ (i * KHOST__VARY_AXES + (uint64_t)axis)) >> 32);
    src += i * stride;
    stride *= extent;
  }
  *flip = m->sign_mask && sum >> 31;
  return src;
}

/* vary_host on a tensor of varied bytes against source_of, unit by unit; returns how many units flipped. */
static uint64_t expect_documented(const khost__vary_map *m, const khost__vary_call *c, const char *what)
{
  uint64_t n = khost__vary_units(m), bytes = n * (uint64_t)m->unit_bytes;
  unsigned char *src = malloc(bytes), *dst = malloc(bytes);
  khost__err err = {{0}};
  cr_assert(src && dst);
  for (uint64_t i = 0; i < bytes; i++) src[i] = (unsigned char)(i * 7 + 3);
  cr_assert_eq(khost__vary_host(m, c, src, dst, 3, &err), KHOST__OK, "%s", err.msg);
  uint64_t flipped = 0;
  for (uint64_t e = 0; e < n; e++) {
    int flip;
    uint64_t from = source_of(m, c, e, &flip);
    flipped += (uint64_t)flip;
    for (int b = 0; b < m->unit_bytes; b++) {
      unsigned char want =
          (unsigned char)(src[from * m->unit_bytes + b] ^ (flip ? m->sign_mask >> 8 * b : 0));
      cr_assert_eq(dst[e * m->unit_bytes + b], want, "%s: unit %llu byte %d", what, (unsigned long long)e, b);
    }
  }
  free(src);
  free(dst);
  return flipped;
}

static khost__vary_map map_of(khost__dtype_id dtype, int ndim, const int64_t *shape, const int *axes,
                              int is_signed)
{
  static const char *const names[4] = {"a", "b", "c", "d"};
  khost__tensor_spec t;
  khost__vary_map m;
  khost__tensor_spec_fill(&t, "t", dtype, ndim, shape, names);
  khost__vary_map_of(&m, &t, axes, is_signed);
  return m;
}

/* Every walk of tests/support/vary_walks.h, nine calls each. */
Test(vary_host, equals_the_documented_formula_on_every_walk)
{
  for (size_t k = 0; k < VARY_WALKS; k++) {
    khost__variation v = vary_walk_variation(&vary_walks[k]);
    uint64_t flipped = 0, units = 9 * khost__vary_units(&v.inputs[0]);
    for (uint64_t call = 1; call <= 9; call++) {
      khost__vary_call c;
      char what[128];
      khost__vary_draw(&v, 77 + k, call, &c);
      snprintf(what, sizeof what, "%s, call %llu", vary_walks[k].what, (unsigned long long)call);
      flipped += expect_documented(&v.inputs[0], &c, what);
    }
    if (vary_walks[k].signs)
      cr_expect(flipped > 0 && flipped < units, "%s: %llu of %llu units flipped", vary_walks[k].what,
                (unsigned long long)flipped, (unsigned long long)units);
  }
}

/* The device's walk: units i0, i0 + stride, ... of a row reached by adding,
 * as the permutation says, for strides below, equal to and above the row. */
Test(vary_cursor, strided_walks_follow_the_permutation)
{
  const int64_t shape[2] = {3, 12};
  const int axes[2] = {0, 1};
  khost__vary_map m = map_of(KHOST__DT_FP32, 2, shape, axes, 0);
  khost__vary_call c = {.permuted_axis = 1, .a = 5, .b = 7, .n = 12, .extent = {3, 12, 1}};
  for (uint64_t stride = 1; stride <= 30; stride++)
    for (uint64_t i0 = 0; i0 < stride && i0 < 12; i0++) {
      khost__vary_cursor k = khost__vary_cursor_at(&m, &c, i0, stride);
      for (uint64_t i = i0; i < 12; i += stride, khost__vary_next(&k))
        cr_assert_eq(k.j, (5 * i + 7) % 12, "stride %llu, unit %llu", (unsigned long long)stride,
                     (unsigned long long)i);
    }
}

/* A case of op with parameters small enough to vary many times. */
static khost__case small_case(const khost__op *op)
{
  khost__case c;
  khost__err err = {{0}};
  khost__case_init(&c, op, "small");
  for (int i = 0; i < op->nparams; i++) {
    const khost__param_spec *p = &op->params[i];
    char text[32];
    if (p->has_default) continue;
    if (p->kind == KHOST__PARAM_INT) {
      int64_t value = p->min > 16 ? p->min : 16 - 16 % p->multiple_of;
      snprintf(text, sizeof text, "%lld", (long long)(value < p->max ? value : p->max));
    } else if (p->kind == KHOST__PARAM_DTYPE) { /* the first the op takes */
      int id = 0;
      while (!(p->dtypes >> id & 1u)) id++;
      snprintf(text, sizeof text, "%s", khost__dtype_name((khost__dtype_id)id));
    } else {
      snprintf(text, sizeof text, "%s", p->names[0]);
    }
    cr_assert_eq(khost__case_set_param(&c, p->name, text, &err), KHOST__OK, "%s", err.msg);
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
      cr_assert_eq(khost__vary_host(outputs ? &v->outputs[t] : &v->inputs[t], &call, data[t], out, 1, NULL),
                   KHOST__OK);
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

/* The KV-cache layout conversions (core/ops/kv_cache.c, khost/ops/kv_cache.h and
 * the reference kernels): each layout's index map against an independent
 * formula (row-major strides of the layout's shape), the reference's outputs
 * through real arenas and tables against the same formula, and round trips
 * through both conversions of each pair as the identity. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/plugin_under_test.h"
#include "call.h"
#include "casedata.h"
#include "catalog.h"

static const khost_kv_dims dims = {.nb = 3, .nh = 3, .nl = 2, .no = 2, .nt = 4, .hd = 5};

/* Element (i0, ..., i_{n-1}) of a row-major tensor of shape: the formula every layout is defined by. */
static int64_t row_major(int n, const int64_t *shape, const int64_t *index)
{
  int64_t at = 0;
  for (int d = 0; d < n; d++) at = at * shape[d] + index[d];
  return at;
}

Test(kv_cache, each_index_map_is_its_layouts_row_major_order)
{
  const khost_kv_dims *k = &dims;
  for (int64_t l = 0; l < k->nl; l++)
    for (int64_t o = 0; o < k->no; o++)
      for (int64_t t = 0; t < k->nt; t++)
        for (int64_t h = 0; h < k->nh; h++)
          for (int64_t d = 0; d < k->hd; d++) {
            const int64_t nhd[] = {k->nt, k->nh, k->hd}, nhd_i[] = {t, h, d};
            const int64_t hnd[] = {k->nh, k->nt, k->hd}, hnd_i[] = {h, t, d};
            const int64_t uni[] = {k->nh, k->nl, k->no, k->nt, k->hd}, uni_i[] = {h, l, o, t, d};
            const int64_t op[] = {k->nl, k->no, k->nt * k->nh * k->hd}, op_i[] = {l, o, 0};
            cr_expect_eq(khost_kv_chunk_index(k, KHOST_KV_NHD, t, h, d), row_major(3, nhd, nhd_i));
            cr_expect_eq(khost_kv_chunk_index(k, KHOST_KV_HND, t, h, d), row_major(3, hnd, hnd_i));
            cr_expect_eq(khost_kv_universal_index(k, h, l, o, t, d), row_major(5, uni, uni_i));
            cr_expect_eq(khost_kv_operational_index(k, l, o), row_major(3, op, op_i));
          }
  const int64_t table[] = {k->nb, k->nl, k->no}, entry[] = {2, 1, 0};
  cr_expect_eq(khost_kv_block_entry(k, 2, 1, 0), row_major(3, table, entry));
}

Test(kv_cache, each_map_visits_every_element_of_its_chunk_or_block_once)
{
  const khost_kv_dims *k = &dims;
  int64_t block = k->nh * k->nl * k->no * k->nt * k->hd, chunk = k->nt * k->nh * k->hd;
  int *hits = calloc((size_t)block, sizeof *hits), *nhd = calloc((size_t)chunk, sizeof *nhd),
      *hnd = calloc((size_t)chunk, sizeof *hnd);
  for (int64_t l = 0; l < k->nl; l++)
    for (int64_t o = 0; o < k->no; o++)
      for (int64_t t = 0; t < k->nt; t++)
        for (int64_t h = 0; h < k->nh; h++)
          for (int64_t d = 0; d < k->hd; d++) {
            hits[khost_kv_universal_index(k, h, l, o, t, d)]++;
            if (l == 0 && o == 0) {
              nhd[khost_kv_chunk_index(k, KHOST_KV_NHD, t, h, d)]++;
              hnd[khost_kv_chunk_index(k, KHOST_KV_HND, t, h, d)]++;
            }
          }
  for (int64_t i = 0; i < block; i++) cr_expect_eq(hits[i], 1, "universal element %lld", (long long)i);
  for (int64_t i = 0; i < chunk; i++)
    cr_expect(nhd[i] == 1 && hnd[i] == 1, "chunk element %lld", (long long)i);
  free(hits);
  free(nhd);
  free(hnd);
}

/* ---- the reference through real arenas and tables ---- */

typedef struct conversion {
  khost__case c;
  khost__case_data d;
  khost__call call;
  unsigned char *src, *dst; /* packed, in the specs' order */
} conversion;

static void make_case(khost__case *c, const char *op, const char *dtype, const char *layout)
{
  const char *keys[] = {"nb", "nh", "nl", "no", "nt", "hd"};
  const int64_t values[] = {dims.nb, dims.nh, dims.nl, dims.no, dims.nt, dims.hd};
  khost__err err;
  khost__case_init(c, khost__catalog_find(op), op);
  cr_assert_not_null(c->op, "no op %s", op);
  for (int i = 0; i < 6; i++) {
    char text[32];
    snprintf(text, sizeof text, "%lld", (long long)values[i]);
    cr_assert_eq(khost__case_set_param(c, keys[i], text, &err), KHOST__OK, "%s", err.msg);
  }
  cr_assert_eq(khost__case_set_param(c, "dtype", dtype, &err), KHOST__OK, "%s", err.msg);
  if (layout) cr_assert_eq(khost__case_set_param(c, "layout", layout, &err), KHOST__OK, "%s", err.msg);
  c->seed = 4242;
  cr_assert_eq(khost__case_validate(c, &err), KHOST__OK, "%s", err.msg);
}

/* Runs the reference CPU kernel of op; src, when given, replaces the generated source (packed). */
static void convert(conversion *v, const char *op, const char *dtype, const char *layout, const void *src)
{
  khost__err err;
  make_case(&v->c, op, dtype, layout);
  cr_assert_eq(khost__case_data_make(&v->d, &v->c, v->c.seed, &err), KHOST__OK, "%s", err.msg);
  const khost__tensor_spec *in = &v->d.set.inputs[KHOST_KV_SRC], *out = &v->d.set.outputs[KHOST_KV_DST];
  if (src) {
    khost__arena_scatter(&v->d.arena[KHOST_KV_SRC], src, v->d.pristine[KHOST_KV_SRC]);
    v->d.in_hash[KHOST_KV_SRC] =
        khost__hash_bytes(v->d.pristine[KHOST_KV_SRC], khost__tensor_storage_bytes(in));
    cr_assert_eq(khost__case_data_restore(&v->d, &err), KHOST__OK, "%s", err.msg);
  }
  v->src = malloc(in->nbytes);
  khost__arena_gather(&v->d.arena[KHOST_KV_SRC], v->d.pristine[KHOST_KV_SRC], v->src);
  const khost_kernel *k =
      khost_test_kernel(khost_test_plugin("KHOST_REFERENCE_PLUGIN"), op, KHOST_DEVICE_CPU);
  cr_assert_eq(khost__call_prepare(&v->call, k, &v->d, 2, 0, &err), KHOST__OK, "%s", err.msg);
  cr_assert_eq(khost__call_poison(&v->call, &err), KHOST__OK);
  cr_assert_eq(khost__call_run(&v->call), KHOST_STATUS_OK, "%s", v->call.error);
  cr_assert_eq(khost__call_check_side_effects(&v->call, &err), KHOST__OK, "%s", err.msg);
  v->dst = malloc(out->nbytes);
  cr_assert_eq(khost__call_read_checked_output(&v->call, KHOST_KV_DST, v->dst, &err), KHOST__OK, "%s",
               err.msg);
}

static void release(conversion *v)
{
  khost__call_free(&v->call);
  khost__case_data_free(&v->d);
  free(v->src);
  free(v->dst);
}

/* Element (b, h, l, o, t, d) of the universal blocks equals the chunk element (b, l, o, t, h, d). */
static void expect_universal_of_stack(const conversion *v, int hnd, const unsigned char *stack,
                                      const unsigned char *universal)
{
  const khost_kv_dims *k = &dims;
  size_t es = khost__dtype_bits(v->d.set.inputs[KHOST_KV_SRC].dtype) / 8;
  const int64_t ushape[] = {k->nb, k->nh, k->nl, k->no, k->nt, k->hd};
  const int64_t sshape[] = {k->nb, k->nl, k->no, hnd ? k->nh : k->nt, hnd ? k->nt : k->nh, k->hd};
  for (int64_t b = 0; b < k->nb; b++)
    for (int64_t h = 0; h < k->nh; h++)
      for (int64_t l = 0; l < k->nl; l++)
        for (int64_t o = 0; o < k->no; o++)
          for (int64_t t = 0; t < k->nt; t++)
            for (int64_t d = 0; d < k->hd; d++) {
              const int64_t ui[] = {b, h, l, o, t, d};
              const int64_t si[] = {b, l, o, hnd ? h : t, hnd ? t : h, d};
              cr_assert_arr_eq(universal + row_major(6, ushape, ui) * (int64_t)es,
                               stack + row_major(6, sshape, si) * (int64_t)es, es,
                               "b=%lld h=%lld l=%lld o=%lld t=%lld d=%lld", (long long)b, (long long)h,
                               (long long)l, (long long)o, (long long)t, (long long)d);
            }
}

Test(kv_cache, block_to_universal_and_back_match_the_formula_and_round_trip)
{
  const char *dtypes[] = {"fp16", "bf16", "fp32", "e4m3"}, *layouts[] = {"NHD", "HND"};
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 2; j++) {
      conversion there, back;
      convert(&there, "kv_block_to_universal", dtypes[i], layouts[j], NULL);
      expect_universal_of_stack(&there, j, there.src, there.dst);
      convert(&back, "kv_universal_to_block", dtypes[i], layouts[j], there.dst);
      expect_universal_of_stack(&back, j, back.dst, back.src);
      cr_expect_arr_eq(back.dst, there.src, there.d.set.inputs[KHOST_KV_SRC].nbytes, "%s %s", dtypes[i],
                       layouts[j]);
      release(&there);
      release(&back);
    }
}

Test(kv_cache, block_to_operational_and_back_copy_chunks_flat_and_round_trip)
{
  conversion there, back;
  convert(&there, "kv_block_to_operational", "bf16", NULL, NULL);
  /* Both specs list the elements as (b, l, o, t, h, d): the operational block is the chunks in order. */
  cr_expect_arr_eq(there.dst, there.src, there.d.set.inputs[KHOST_KV_SRC].nbytes);
  convert(&back, "kv_operational_to_block", "bf16", NULL, there.dst);
  cr_expect_arr_eq(back.dst, there.src, there.d.set.inputs[KHOST_KV_SRC].nbytes);
  release(&there);
  release(&back);
}

Test(kv_cache, the_generated_source_is_finite_and_never_the_poison)
{
  conversion v;
  convert(&v, "kv_block_to_operational", "e4m3", NULL, NULL);
  size_t n = v.d.set.inputs[KHOST_KV_SRC].nbytes, zeros = 0;
  for (size_t i = 0; i < n; i++) {
    cr_expect_neq(v.src[i] & 0x7f, 0x7f, "element %zu is NaN", i);
    zeros += v.src[i] == 0;
  }
  cr_expect_lt(zeros, n / 16, "mostly zeros");
  release(&v);
}

Test(kv_cache, the_tables_and_arenas_are_what_the_op_declares)
{
  khost__case c;
  make_case(&c, "kv_universal_to_block", "bf16", "HND");
  khost__tensor_set set;
  c.op->tensors(&c, &set);
  cr_expect_eq(set.ninputs, 3);
  cr_expect_eq(set.inputs[KHOST_KV_SRC].chunk_dims, 1);
  cr_expect_eq(set.outputs[KHOST_KV_DST].chunk_dims, 3);
  cr_expect_eq(set.inputs[KHOST_KV_SRC_TABLE].table_of, KHOST_KV_SRC);
  cr_expect_eq(set.inputs[KHOST_KV_SRC_TABLE].shape[0], dims.nb);
  cr_expect_eq(set.inputs[KHOST_KV_DST_TABLE].table_of, 3);
  cr_expect_eq(set.inputs[KHOST_KV_DST_TABLE].shape[0], dims.nb * dims.nl * dims.no);
  cr_expect_str_eq(set.outputs[KHOST_KV_DST].dim_names[3], "h", "HND chunks are [nh, nt, hd]");
  cr_expect_eq(c.op->bytes(&c), 2.0 * 3 * 3 * 2 * 2 * 4 * 5 * 2);
  char params[128];
  khost__case_format_params(&c, params, sizeof params);
  cr_expect_str_eq(params, "nb=3 nh=3 nl=2 no=2 nt=4 hd=5 dtype=bf16 layout=HND");
}

/* The cute plugin as an artifact, without a GPU: one export, its descriptor,
 * supports() on well-formed and malformed inputs, and describe() (device pointers
 * are never dereferenced there, so fake addresses serve). Skips when cute is not
 * built. */
#include <criterion/criterion.h>
#include <string.h>

#include "khost/ops.h"
#include "support/fp8_suites.h"
#include "support/hand_call.h"
#include "support/plugin_under_test.h"

static const khost_kernel *kernel(const char *op)
{
  return khost_test_kernel(khost_test_plugin("KHOST_CUTE_PLUGIN"), op, KHOST_DEVICE_CUDA);
}

Test(cute, descriptor_lists_every_op_on_cuda)
{
  khost_plugin_entry_fn entry = khost_test_entry("KHOST_CUTE_PLUGIN");
  cr_expect_null(entry(KHOST_ABI_MAJOR + 1, 0), "another ABI major is refused");
  const khost_plugin *plugin = khost_test_plugin("KHOST_CUTE_PLUGIN");
  cr_expect_str_eq(plugin->name, "cute");
  cr_expect_str_eq(plugin->language, "cute");
  cr_expect_eq(plugin->nkernels, KHOST_TEST_GPU_OPS);
  const char *const *ops = khost_test_gpu_ops();
  for (int i = 0; i < KHOST_TEST_GPU_OPS; i++)
    cr_expect_not_null(kernel(ops[i])->supports, "%s declares what it declines", ops[i]);
}

Test(cute, gemv_supports_valid_input_and_declines_or_refuses_the_rest)
{
  hand_call c;
  hand_gemv_call(&c, KHOST_DEVICE_CUDA, 256, 512, 2);
  const khost_kernel *g = kernel("nvfp4_gemv");
  cr_expect_eq(g->supports(&c.in), KHOST_STATUS_OK, "%s", c.error);
  khost_tensor *a = &c.inputs[KHOST_NVFP4_GEMV_A];
  a->data = (char *)a->data + 8;
  cr_expect_eq(g->supports(&c.in), KHOST_STATUS_UNSUPPORTED, "a misaligned matrix is declined");
  a->data = (char *)a->data - 8;
  c.inputs[KHOST_NVFP4_GEMV_SFA].nbytes -= 1;
  cr_expect_eq(g->supports(&c.in), KHOST_STATUS_INVALID_ARGUMENT, "short scales are refused");
  c.inputs[KHOST_NVFP4_GEMV_SFA].nbytes += 1;
  c.inputs[KHOST_NVFP4_GEMV_SFV].device_type = KHOST_DEVICE_CPU;
  cr_expect_eq(g->supports(&c.in), KHOST_STATUS_INVALID_ARGUMENT, "a host tensor is refused");
  cr_expect(strstr(c.error, "nvfp4_gemv: input sfv: device type"), "%s", c.error);
}

Test(cute, row_ops_support_every_float_dtype_and_refuse_mixtures)
{
  static const char *const ops[3] = {"copy_transpose", "reduce_sum", "softmax_online"};
  const khost_dtype dtypes[3] = {FP16, BF16, FP32};
  for (int o = 0; o < 3; o++)
    for (int d = 0; d < 3; d++) {
      hand_call c;
      hand_rows_call(&c, ops[o], KHOST_DEVICE_CUDA, dtypes[d], 37, 1000);
      cr_expect_eq(kernel(ops[o])->supports(&c.in), KHOST_STATUS_OK, "%s dtype %d/%d: %s", ops[o],
                   dtypes[d].code, dtypes[d].bits, c.error);
      c.inputs[0].dtype.code = c.outputs[0].dtype.code = KHOST_DTYPE_INT;
      cr_expect_eq(kernel(ops[o])->supports(&c.in), KHOST_STATUS_UNSUPPORTED, "%s: int is declined", ops[o]);
      c.inputs[0].dtype = FP16;
      c.outputs[0].dtype = BF16;
      cr_expect_eq(kernel(ops[o])->supports(&c.in), KHOST_STATUS_INVALID_ARGUMENT, "%s: mixed dtypes",
                   ops[o]);
    }
}

/* describe() walks run()'s own choice of kernel and stops before the launch, which
 * would fail here: 65536-long rows take a cluster of 2 CTAs (16-bit) or 4 (fp32),
 * rows past 8 CTAs stream, rows not in 16-byte words go element by element. */
Test(cute, describe_names_the_kernel_each_shape_takes_without_launching)
{
  const khost_test_row_name rows[] = {
      {"softmax_online", FP16, 1024, 65536, "softmax_resident<tpr=256,nv=16,cluster=2,words>"},
      {"softmax_online", FP32, 1024, 65536, "softmax_resident<tpr=256,nv=16,cluster=4,words>"},
      {"softmax_online", BF16, 4, 1 << 20, "softmax_streaming<tpr=512,nv=2,words>"},
      {"softmax_online", FP32, 37, 1001, "softmax_resident<tpr=64,nv=16,cluster=1,elements>"},
      {"reduce_sum", FP32, 4096, 16384, "reduce_rows<tpr=256,nv=8,words>"},
      {"reduce_sum", FP16, 16384, 4096, "reduce_rows<tpr=32,nv=8,words>"},
      {"copy_transpose", FP16, 8192, 8192, "transpose_words"},
      {"copy_transpose", FP16, 37, 1000, "transpose_elements"},
  };
  khost_test_expect_row_names(kernel, rows, sizeof rows / sizeof rows[0]);
  char b[64];
  hand_call c;
  hand_gemv_call(&c, KHOST_DEVICE_CUDA, 256, 512, 2);
  cr_expect_str_eq(khost_test_describe(kernel("nvfp4_gemv"), &c.in, b, sizeof b), "gemv_rows<tpr=16,w=1>",
                   "rows of 16 chunks: 16 lanes a row group");
}

/* fp8_block_gemm takes the three block shapes of the suites and declines, with the
 * reason, what CUTLASS's collective or the TMA store cannot do. */
Test(cute, fp8_gemm_supports_the_suites_block_shapes_and_declines_the_rest)
{
  const khost_kernel *gemm = kernel("fp8_block_gemm");
  const int64_t ok[][6] = {{64, 2112, 7168, 1, 128, 128},   {1, 512, 1024, 1, 128, 128},
                           {129, 2112, 256, 128, 128, 128}, {4096, 4096, 4096, 512, 512, 512},
                           {256, 384, 512, 1, 1, 128},      {100, 136, 768, 1, 1, 256}};
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
    hand_call c;
    hand_fp8_gemm_call(&c, KHOST_DEVICE_CUDA, ok[i][0], ok[i][1], ok[i][2], ok[i][3], ok[i][4], ok[i][5]);
    cr_expect_eq(gemm->supports(&c.in), KHOST_STATUS_OK, "case %zu: %s", i, c.error);
  }
  const struct {
    int64_t m, n, k, qm, qn, qk;
    const char *reason;
  } declined[] = {
      {256, 512, 1024, 1, 1, 64, "qk = 64: CUTLASS's block-scaled collective promotes once per 128 of k"},
      {65, 77, 512, 512, 512, 512, "n = 77: the TMA store needs out's rows in 16-byte units"},
      {384, 256, 512, 3, 1, 128,
       "qm = 3, qn = 1, qk = 128: the variants take 1 x 128 (a) with 128 x 128 (b)"},
      {384, 256, 512, 1, 128, 256, "qm = 1, qn = 128, qk = 256: the variants take"},
      {384, 256, 512, 128, 1, 128, "qm = 128, qn = 1, qk = 128: the variants take"},
  };
  for (size_t i = 0; i < sizeof declined / sizeof declined[0]; i++) {
    hand_call c;
    hand_fp8_gemm_call(&c, KHOST_DEVICE_CUDA, declined[i].m, declined[i].n, declined[i].k, declined[i].qm,
                       declined[i].qn, declined[i].qk);
    cr_expect_eq(gemm->supports(&c.in), KHOST_STATUS_UNSUPPORTED, "%s", c.error);
    cr_expect_not_null(strstr(c.error, declined[i].reason), "got: %s", c.error);
  }
  hand_call c;
  hand_fp8_gemm_call(&c, KHOST_DEVICE_CUDA, 64, 256, 512, 1, 128, 128);
  khost_tensor *a = &c.inputs[KHOST_FP8_BLOCK_GEMM_A];
  a->data = (char *)a->data + 8;
  cr_expect_eq(gemm->supports(&c.in), KHOST_STATUS_UNSUPPORTED, "a misaligned a is declined");
  cr_expect_not_null(strstr(c.error, "16-byte aligned (TMA)"), "got: %s", c.error);
  a->data = (char *)a->data - 8;
  c.params[2].value = 500; /* k, no longer a multiple of qk */
  cr_expect_eq(gemm->supports(&c.in), KHOST_STATUS_INVALID_ARGUMENT, "%s", c.error);
}

/* Every case of both FP8 suites, read from the suite files, but n = 77: the TMA
 * store's rows are 16-byte units. supports() runs CUTLASS's can_implement too. */
Test(cute, fp8_gemm_supports_every_suite_case_but_n_77)
{
  const char *const declined[] = {"fp8_edge_k_is_qk_512"};
  khost_test_expect_fp8_suites(kernel("fp8_block_gemm"), declined, 1);
}

/* A shape and the name describe() gives the variant it takes. */
typedef struct gemm_name {
  int64_t m, n, k, qm, qn, qk;
  const char *name;
} gemm_name;

#define FP8_VARIANT(tile, cluster, schedule, scales)                                                         \
  "sm90_fp8_blockscaled<tile=" tile ",cluster=" cluster "," schedule ",scales=" scales ">"

static void expect_gemm_names(const gemm_name *rows, size_t count)
{
  for (size_t i = 0; i < count; i++) {
    hand_call c;
    char b[128];
    hand_fp8_gemm_call(&c, KHOST_DEVICE_CUDA, rows[i].m, rows[i].n, rows[i].k, rows[i].qm, rows[i].qn,
                       rows[i].qk);
    cr_expect_str_eq(khost_test_describe(kernel("fp8_block_gemm"), &c.in, b, sizeof b), rows[i].name,
                     "m = %lld, q = %lld x %lld x %lld", (long long)rows[i].m, (long long)rows[i].qm,
                     (long long)rows[i].qn, (long long)rows[i].qk);
  }
}

/* The variant each shape takes (the rule in docs/CUTE.md), named without a GPU:
 * DeepSeek-V3's scales by m, then the other block shapes. */
Test(cute, fp8_gemm_describe_names_tile_and_cluster_by_the_rule)
{
  const gemm_name deepseek[] = {
      {64, 2112, 7168, 1, 128, 128, FP8_VARIANT("64x128x128", "1x1", "pingpong", "1x128_128x128")},
      {7, 512, 1024, 1, 128, 128, FP8_VARIANT("64x128x128", "1x1", "pingpong", "1x128_128x128") " pad_sa"},
      {128, 2112, 7168, 1, 128, 128, FP8_VARIANT("128x128x128", "1x1", "cooperative", "1x128_128x128")},
      {4096, 7168, 2048, 1, 128, 128, FP8_VARIANT("128x128x128", "2x1", "cooperative", "1x128_128x128")},
  };
  expect_gemm_names(deepseek, sizeof deepseek / sizeof deepseek[0]);
  const gemm_name others[] = {
      {4096, 4096, 4096, 512, 512, 512, FP8_VARIANT("128x128x128", "1x1", "cooperative", "128x128_blocks")},
      {256, 384, 512, 1, 1, 128, FP8_VARIANT("128x128x128", "1x1", "cooperative", "rows")},
      {256, 384, 1024, 1, 1, 256, FP8_VARIANT("128x128x128", "1x1", "cooperative", "rows")},
  };
  expect_gemm_names(others, sizeof others / sizeof others[0]);
}

/* The workspace holds sa_t padded to rows of 4 floats exactly when TMA would
 * read it (DeepSeek-V3's scales) and m % 4 != 0: 8 k-steps x 8 floats for m = 7. */
Test(cute, fp8_gemm_workspace_pads_sa_t_only_for_tma_and_ragged_m)
{
  const struct {
    int64_t m, qm, qn;
    size_t bytes;
  } cases[] = {{7, 1, 128, 256}, {64, 1, 128, 0}, {7, 1, 1, 0}, {129, 128, 128, 0}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    hand_call c;
    hand_fp8_gemm_call(&c, KHOST_DEVICE_CUDA, cases[i].m, 512, 1024, cases[i].qm, cases[i].qn, 128);
    size_t bytes = 1;
    cr_expect_eq(kernel("fp8_block_gemm")->workspace_size(&c.in, &bytes), KHOST_STATUS_OK, "%s", c.error);
    cr_expect_eq(bytes, cases[i].bytes, "m = %lld, qm = %lld, qn = %lld: %zu bytes", (long long)cases[i].m,
                 (long long)cases[i].qm, (long long)cases[i].qn, bytes);
  }
}

/* 16-byte words where a run of hd elements is whole words, else the element's bits; the
 * suites' shapes all supported, nb = 0 included. */
Test(cute, kv_ops_name_words_or_elements_by_the_run_length)
{
  const khost_kv_dims llama = {64, 8, 80, 2, 16, 128}, odd = {4, 3, 2, 1, 5, 129}, none = {0, 3, 2, 2, 4, 5};
  struct {
    const khost_kv_dims *dims;
    khost_dtype dtype;
    const char *name;
  } cases[] = {{&llama, BF16, "kv_copy<words,cta_per_chunk>"},
               {&llama, E4M3, "kv_copy<words,cta_per_chunk>"},
               {&odd, FP32, "kv_copy<b32,cta_per_chunk>"},
               {&odd, E4M3, "kv_copy<b8,cta_per_chunk>"},
               {&none, FP16, "kv_copy<b16,cta_per_chunk>"}};
  for (int o = 0; o < KHOST_TEST_KV_OPS; o++) {
    const char *kv_op = khost_test_kv_ops()[o];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
      for (int layout = KHOST_KV_NHD; layout <= KHOST_KV_HND; layout++) {
        hand_call c;
        char name[64];
        hand_kv_call(&c, kv_op, KHOST_DEVICE_CUDA, cases[i].dtype, cases[i].dims, layout);
        cr_expect_eq(kernel(kv_op)->supports(&c.in), KHOST_STATUS_OK, "%s: %s", kv_op, c.error);
        cr_expect_str_eq(khost_test_describe(kernel(kv_op), &c.in, name, sizeof name), cases[i].name,
                         "%s case %zu", kv_op, i);
      }
  }
}

/* nb = 0 enqueues nothing and succeeds, GPU or not. */
Test(cute, kv_ops_run_nothing_for_no_blocks)
{
  const khost_kv_dims none = {0, 3, 2, 2, 4, 5};
  for (int o = 0; o < KHOST_TEST_KV_OPS; o++) {
    const char *kv_op = khost_test_kv_ops()[o];
    hand_call c;
    hand_kv_call(&c, kv_op, KHOST_DEVICE_CUDA, BF16, &none, KHOST_KV_HND);
    cr_expect_eq(kernel(kv_op)->run(&c.in), KHOST_STATUS_OK, "%s: %s", kv_op, c.error);
  }
}

Test(cute, kv_ops_refuse_a_table_of_the_wrong_length)
{
  const khost_kv_dims dims = {3, 3, 2, 2, 4, 5};
  hand_call c;
  hand_kv_call(&c, "kv_block_to_operational", KHOST_DEVICE_CUDA, FP16, &dims, KHOST_KV_NHD);
  c.shapes[KHOST_KV_SRC_TABLE][0] -= 1;
  cr_expect_eq(kernel("kv_block_to_operational")->supports(&c.in), KHOST_STATUS_INVALID_ARGUMENT);
  cr_expect(strstr(c.error, "src_table"), "%s", c.error);
}

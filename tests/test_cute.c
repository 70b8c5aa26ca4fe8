/* The cute plugin as an artifact, without a GPU: one export, its descriptor,
 * supports() on well-formed and malformed inputs, and describe() (device pointers
 * are never dereferenced there, so fake addresses serve). Skips when cute is not
 * built. */
#include <criterion/criterion.h>
#include <string.h>

#include "khost/ops.h"
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

/* Tests of the triton_aot plugin through its real artifact (KHOST_TRITON_AOT_PLUGIN),
 * on any machine: the descriptor, input validation, variant selection and the
 * KHOST_TRITON_VARIANT override, all of which run before the CUDA driver is touched,
 * and a launch where no driver or no context exists, which must fail cleanly.
 * Tensors carry fake device addresses: nothing here dereferences them. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "khost/ops.h"
#include "support/hand_call.h"
#include "support/plugin_under_test.h"

static const khost_plugin *load_plugin(void)
{
  return khost_test_plugin("KHOST_TRITON_AOT_PLUGIN");
}

static const khost_kernel *kernel(const char *op)
{
  return khost_test_kernel(load_plugin(), op, KHOST_DEVICE_CUDA);
}

static void rows_call(hand_call *c, const char *op, khost_dtype dtype, int64_t m, int64_t n)
{
  hand_rows_call(c, op, KHOST_DEVICE_CUDA, dtype, m, n);
}

static void gemv_call(hand_call *c, int64_t m, int64_t k, int64_t l)
{
  hand_gemv_call(c, KHOST_DEVICE_CUDA, m, k, l);
}

Test(triton_aot, descriptor_names_the_plugin_and_its_eight_ops)
{
  const khost_plugin *p = load_plugin();
  cr_assert_eq(p->magic, KHOST_PLUGIN_MAGIC);
  cr_assert_eq(p->abi_major, KHOST_ABI_MAJOR);
  cr_assert_str_eq(p->name, "triton_aot");
  cr_assert_str_eq(p->language, "triton");
  cr_assert_eq(p->nkernels, KHOST_TEST_GPU_OPS);
  const char *const *ops = khost_test_gpu_ops();
  for (int i = 0; i < KHOST_TEST_GPU_OPS; i++) {
    cr_assert_str_eq(p->kernels[i]->op, ops[i]);
    cr_assert_eq(p->kernels[i]->device_type, KHOST_DEVICE_CUDA);
    cr_assert_not_null(p->kernels[i]->supports);
  }
  khost_plugin_entry_fn entry = khost_test_entry("KHOST_TRITON_AOT_PLUGIN");
  cr_assert_null(entry(KHOST_ABI_MAJOR + 1, 0), "a host of another major must be refused");
}

/* Shapes every op handles: awkward sizes go to the masked variants. */
Test(triton_aot, supports_every_float_shape_of_the_suites)
{
  const char *ops[] = {"copy_transpose", "reduce_sum", "softmax_online"};
  const khost_dtype types[] = {FP16, BF16, FP32};
  const int64_t shapes[][2] = {{1, 1},      {7, 3},       {33, 33},     {2048, 17},
                               {257, 8195}, {8192, 8192}, {2048, 65536}};
  for (int o = 0; o < 3; o++)
    for (int t = 0; t < 3; t++)
      for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        hand_call c;
        rows_call(&c, ops[o], types[t], shapes[s][0], shapes[s][1]);
        cr_assert_eq(kernel(ops[o])->supports(&c.in), KHOST_STATUS_OK, "%s %lldx%lld: %s", ops[o],
                     (long long)shapes[s][0], (long long)shapes[s][1], c.error);
      }
}

Test(triton_aot, supports_the_gemv_shapes_of_the_suites)
{
  const int64_t shapes[][3] = {{128, 256, 1}, {7168, 16384, 1}, {4096, 7168, 8}, {1024, 4096, 64}};
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
    hand_call c;
    gemv_call(&c, shapes[s][0], shapes[s][1], shapes[s][2]);
    cr_assert_eq(kernel("nvfp4_gemv")->supports(&c.in), KHOST_STATUS_OK, "%s", c.error);
  }
}

Test(triton_aot, declines_fp64_as_unsupported)
{
  hand_call c;
  rows_call(&c, "softmax_online", FP64, 4, 4);
  cr_assert_eq(kernel("softmax_online")->supports(&c.in), KHOST_STATUS_UNSUPPORTED);
  cr_assert(strstr(c.error, "fp16, bf16 and fp32"), "%s", c.error);
}

Test(triton_aot, declines_a_misaligned_gemv_tensor_with_the_reason)
{
  hand_call c;
  gemv_call(&c, 128, 256, 1);
  c.inputs[KHOST_NVFP4_GEMV_A].data = (char *)c.inputs[KHOST_NVFP4_GEMV_A].data + 8;
  cr_assert_eq(kernel("nvfp4_gemv")->supports(&c.in), KHOST_STATUS_UNSUPPORTED);
  cr_assert(strstr(c.error, "aligned"), "%s", c.error);
}

Test(triton_aot, rejects_a_tensor_smaller_than_its_shape)
{
  hand_call c;
  rows_call(&c, "reduce_sum", FP32, 16, 16);
  c.inputs[0].nbytes -= 4;
  cr_assert_eq(kernel("reduce_sum")->supports(&c.in), KHOST_STATUS_INVALID_ARGUMENT);
  cr_assert(strstr(c.error, "bytes"), "%s", c.error);
}

Test(triton_aot, rejects_a_missing_parameter)
{
  hand_call c;
  rows_call(&c, "copy_transpose", FP16, 16, 16);
  c.in.nparams = 1;
  cr_assert_eq(kernel("copy_transpose")->supports(&c.in), KHOST_STATUS_INVALID_ARGUMENT);
  cr_assert(strstr(c.error, "parameter n is missing"), "%s", c.error);
}

Test(triton_aot, a_forced_variant_that_cannot_run_is_declined_with_its_name)
{
  setenv("KHOST_TRITON_VARIANT", "softmax_fp16_tile_m16_n64_w4", 1);
  hand_call c;
  rows_call(&c, "softmax_online", FP16, 8, 100);
  cr_assert_eq(kernel("softmax_online")->supports(&c.in), KHOST_STATUS_UNSUPPORTED);
  cr_assert(strstr(c.error, "softmax_fp16_tile_m16_n64_w4 cannot run this input"), "%s", c.error);
  rows_call(&c, "softmax_online", FP16, 8, 64);
  cr_assert_eq(kernel("softmax_online")->supports(&c.in), KHOST_STATUS_OK, "%s", c.error);
}

Test(triton_aot, a_forced_variant_of_another_op_leaves_this_op_alone)
{
  setenv("KHOST_TRITON_VARIANT", "gemv_m4_k1024_w1_top", 1);
  hand_call c;
  rows_call(&c, "reduce_sum", BF16, 33, 33);
  cr_assert_eq(kernel("reduce_sum")->supports(&c.in), KHOST_STATUS_OK, "%s", c.error);
}

Test(triton_aot, an_unknown_forced_variant_is_an_error_not_a_decline)
{
  setenv("KHOST_TRITON_VARIANT", "no_such_variant", 1);
  hand_call c;
  rows_call(&c, "reduce_sum", FP32, 4, 4);
  cr_assert_eq(kernel("reduce_sum")->supports(&c.in), KHOST_STATUS_INTERNAL);
  cr_assert(strstr(c.error, "no_such_variant names no variant"), "%s", c.error);
}

/* Rows split over a cluster exchange a maximum and a sum per program through the
 * workspace; rows one program holds need none. */
Test(triton_aot, softmax_asks_a_workspace_only_for_rows_split_over_a_cluster)
{
  const khost_kernel *k = kernel("softmax_online");
  cr_assert_not_null(k->workspace_size);
  const khost_dtype types[] = {FP16, BF16, FP32};
  for (int t = 0; t < 3; t++) {
    hand_call c;
    size_t bytes = 1;
    rows_call(&c, "softmax_online", types[t], 8192, 8192);
    cr_assert_eq(k->workspace_size(&c.in, &bytes), KHOST_STATUS_OK, "%s", c.error);
    cr_assert_eq(bytes, 0);
    rows_call(&c, "softmax_online", types[t], 1024, 65536);
    cr_assert_eq(k->workspace_size(&c.in, &bytes), KHOST_STATUS_OK, "%s", c.error);
    /* Two floats per row and program; at least two programs hold a 65536-long row. */
    cr_assert(bytes >= 1024 * 2 * 2 * sizeof(float) && bytes % (1024 * 2 * sizeof(float)) == 0, "%zu", bytes);
  }
}

Test(triton_aot, a_cluster_variant_without_its_workspace_is_refused_before_any_launch)
{
  hand_call c;
  rows_call(&c, "softmax_online", FP16, 1024, 65536);
  cr_assert_eq(kernel("softmax_online")->run(&c.in), KHOST_STATUS_INVALID_ARGUMENT, "%s", c.error);
  cr_assert(strstr(c.error, "workspace"), "%s", c.error);
}

/* describe() names the variant the rule (or the override) picks, which needs no
 * device for the row-wise ops and for a forced GEMV variant. 16-bit rows one
 * 16384-element program would hold go to the next cluster shape. */
Test(triton_aot, describe_names_the_selected_variant)
{
  const khost_test_row_name rows[] = {
      {"softmax_online", FP16, 1024, 65536, "softmax_fp16_cluster_c4_n16384_w4"},
      {"softmax_online", BF16, 1024, 16384, "softmax_bf16_cluster_c8_n8192_w4"},
      {"softmax_online", FP32, 1024, 65536, "softmax_fp32_cluster_c8_n8192_w4"},
      {"reduce_sum", FP32, 4096, 16384, "reduce_fp32_m1_n8192_w8"},
  };
  khost_test_expect_row_names(kernel, rows, sizeof rows / sizeof rows[0]);
  char name[64];
  hand_call c;
  gemv_call(&c, 7168, 16384, 1);
  setenv("KHOST_TRITON_VARIANT", "gemv_m4_k2048_w2", 1);
  khost_test_describe(kernel("nvfp4_gemv"), &c.in, name, sizeof name);
  unsetenv("KHOST_TRITON_VARIANT");
  cr_expect_str_eq(name, "gemv_m4_k2048_w2");
}

/* Without libcuda.so.1 (CI) the driver cannot load; with a driver but no current
 * context (this process never made one) the launch is refused: a device error
 * naming file and line either way, never a crash. */
Test(triton_aot, run_without_a_usable_driver_is_a_device_error)
{
  const char *ops[] = {"copy_transpose", "reduce_sum", "softmax_online"};
  for (int o = 0; o < 3; o++) {
    hand_call c;
    rows_call(&c, ops[o], FP16, 64, 64);
    cr_assert_eq(kernel(ops[o])->run(&c.in), KHOST_STATUS_DEVICE_ERROR, "%s", c.error);
    cr_assert(strstr(c.error, ".c:"), "no file:line in \"%s\"", c.error);
  }
  hand_call c;
  gemv_call(&c, 128, 256, 1);
  cr_assert_eq(kernel("nvfp4_gemv")->run(&c.in), KHOST_STATUS_DEVICE_ERROR, "%s", c.error);
  cr_assert(strstr(c.error, "driver") || strstr(c.error, "CUDA_ERROR") || strstr(c.error, "context"), "%s",
            c.error);
}

/* Every KV shape of kv_correctness and the largest of kv_performance, in each dtype and
 * layout, has a variant. */
Test(triton_aot, supports_every_kv_shape_of_the_suites)
{
  const khost_kv_dims shapes[] = {{3, 3, 2, 2, 4, 5},   {2, 2, 3, 2, 4, 3}, {1, 2, 1, 2, 3, 4},
                                  {4, 3, 2, 1, 5, 129}, {0, 3, 2, 2, 4, 5}, {4096, 1, 32, 2, 16, 128}};
  const khost_dtype types[] = {FP16, BF16, FP32, E4M3};
  for (int o = 0; o < KHOST_TEST_KV_OPS; o++) {
    const char *kv_op = khost_test_kv_ops()[o];
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
      for (int t = 0; t < 4; t++)
        for (int layout = KHOST_KV_NHD; layout <= KHOST_KV_HND; layout++) {
          hand_call c;
          hand_kv_call(&c, kv_op, KHOST_DEVICE_CUDA, types[t], &shapes[s], layout);
          cr_assert_eq(kernel(kv_op)->supports(&c.in), KHOST_STATUS_OK, "%s shape %zu: %s", kv_op, s,
                       c.error);
        }
  }
}

/* The 16-byte-vector variant of the element size where hd runs are whole vectors and the
 * arenas aligned; the element-wise one otherwise. */
Test(triton_aot, kv_ops_take_the_vector_variant_where_runs_are_whole_vectors)
{
  const khost_kv_dims llama = {64, 8, 80, 2, 16, 128}, odd = {4, 3, 2, 1, 5, 129},
                      fp32_vector = {2, 2, 2, 2, 4, 4};
  struct {
    const khost_kv_dims *dims;
    khost_dtype dtype;
    const char *variant; /* after the op's name */
  } cases[] = {{&llama, BF16, "_b16_r32x128_w4"},         {&llama, E4M3, "_b8_r64x128_w4"},
               {&llama, FP32, "_b32_r16x128_w4"},         {&odd, FP16, "_b16_r32x32_w4_any"},
               {&odd, E4M3, "_b8_r32x32_w4_any"},         {&fp32_vector, FP32, "_b32_r16x128_w4"},
               {&fp32_vector, FP16, "_b16_r32x32_w4_any"}};
  for (int o = 0; o < KHOST_TEST_KV_OPS; o++) {
    const char *kv_op = khost_test_kv_ops()[o];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
      hand_call c;
      char name[96], want[96];
      hand_kv_call(&c, kv_op, KHOST_DEVICE_CUDA, cases[i].dtype, cases[i].dims, KHOST_KV_HND);
      snprintf(want, sizeof want, "%s%s", kv_op, cases[i].variant);
      cr_expect_str_eq(khost_test_describe(kernel(kv_op), &c.in, name, sizeof name), want, "case %zu", i);
    }
  }
}

Test(triton_aot, a_misaligned_kv_arena_takes_the_element_wise_variant)
{
  const khost_kv_dims llama = {64, 8, 80, 2, 16, 128};
  hand_call c;
  char name[96];
  hand_kv_call(&c, "kv_block_to_operational", KHOST_DEVICE_CUDA, BF16, &llama, KHOST_KV_NHD);
  c.outputs[KHOST_KV_DST].data = (char *)c.outputs[KHOST_KV_DST].data + 2;
  cr_expect_str_eq(khost_test_describe(kernel("kv_block_to_operational"), &c.in, name, sizeof name),
                   "kv_block_to_operational_b16_r32x32_w4_any");
}

/* The kernels' offsets are 32-bit: a larger block is declined with the reason, not run. */
Test(triton_aot, declines_a_kv_block_past_32_bit_offsets)
{
  const khost_kv_dims huge = {1, 64, 1024, 2, 256, 128}; /* 2^32 elements a block */
  hand_call c;
  hand_kv_call(&c, "kv_block_to_universal", KHOST_DEVICE_CUDA, E4M3, &huge, KHOST_KV_NHD);
  cr_assert_eq(kernel("kv_block_to_universal")->supports(&c.in), KHOST_STATUS_UNSUPPORTED, "%s", c.error);
  cr_assert(strstr(c.error, "32 bits"), "%s", c.error);
}

Test(triton_aot, a_kv_call_of_an_unknown_layout_is_invalid)
{
  const khost_kv_dims dims = {3, 3, 2, 2, 4, 5};
  hand_call c;
  hand_kv_call(&c, "kv_universal_to_block", KHOST_DEVICE_CUDA, FP16, &dims, 2);
  cr_assert_eq(kernel("kv_universal_to_block")->supports(&c.in), KHOST_STATUS_INVALID_ARGUMENT);
  cr_assert(strstr(c.error, "layout"), "%s", c.error);
}

/* nb = 0 launches nothing, so it succeeds without touching the driver; any other call
 * without a usable driver is a device error with file:line. */
Test(triton_aot, kv_runs_nothing_for_no_blocks_and_fail_cleanly_without_a_driver)
{
  const khost_kv_dims none = {0, 3, 2, 2, 4, 5}, some = {3, 3, 2, 2, 4, 5};
  for (int o = 0; o < KHOST_TEST_KV_OPS; o++) {
    const char *kv_op = khost_test_kv_ops()[o];
    hand_call c;
    hand_kv_call(&c, kv_op, KHOST_DEVICE_CUDA, BF16, &none, KHOST_KV_NHD);
    cr_assert_eq(kernel(kv_op)->run(&c.in), KHOST_STATUS_OK, "%s: %s", kv_op, c.error);
    hand_kv_call(&c, kv_op, KHOST_DEVICE_CUDA, BF16, &some, KHOST_KV_NHD);
    cr_assert_eq(kernel(kv_op)->run(&c.in), KHOST_STATUS_DEVICE_ERROR, "%s: %s", kv_op, c.error);
    cr_assert(strstr(c.error, ".c:"), "no file:line in \"%s\"", c.error);
  }
}

/* The vendor plugin as an artifact: its one export, its descriptor and the
 * CUB version its description names, cuBLASLt opened only when used, reduce_sum's supports(), and
 * fp8_block_gemm's refusals (block shapes cuBLASLt has no scale mode for, a
 * missing libcublasLt, malformed calls). None of it needs a GPU; the kernels'
 * answers on one are checked end to end (tests/e2e/gpu.c, tools/gpu-check.sh).
 * Skips when vendor is not built. */
#include <criterion/criterion.h>
#include <dlfcn.h>
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#define lsan_disable __lsan_disable
#define lsan_enable  __lsan_enable
#else
#define lsan_disable()
#define lsan_enable()
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "catalog.h"
#include "khost/ops.h"
#include "khost/ops/fp8_block_gemm.h"
#include "support/hand_call.h"
#include "support/plugin_under_test.h"

#define PLUGIN "KHOST_VENDOR_PLUGIN"

static const khost_kernel *kernel(const char *op)
{
  return khost_test_kernel(khost_test_plugin(PLUGIN), op, KHOST_DEVICE_CUDA);
}

/* The fp8 kernel, once the op is in this build's catalog (the table follows the op list). */
static const khost_kernel *gemm_kernel(void)
{
  if (!khost__catalog_find("fp8_block_gemm")) cr_skip_test("fp8_block_gemm is not an op of this build");
  return kernel("fp8_block_gemm");
}

Test(vendor, exports_one_entry_and_a_valid_descriptor)
{
  khost_plugin_entry_fn entry = khost_test_entry(PLUGIN);
  cr_expect_null(entry(KHOST_ABI_MAJOR + 1, 0), "another ABI major is refused");
  const khost_plugin *plugin = khost_test_plugin(PLUGIN);
  cr_expect_str_eq(plugin->name, "vendor");
  /* reduce_sum, fp8_block_gemm where the build has it, and the four KV-cache ops. */
  cr_expect_eq(plugin->nkernels, (khost__catalog_find("fp8_block_gemm") ? 2 : 1) + 4);
  const khost_kernel *sum = kernel("reduce_sum");
  cr_expect(sum->supports && sum->workspace_size && sum->describe, "reduce_sum declares all it can");
  cr_expect_not_null(plugin->fini, "fini releases the cuBLASLt handle");
}

Test(vendor, a_missing_cublaslt_leaves_the_plugin_and_cub_working)
{
  setenv("KHOST_VENDOR_CUBLASLT", "/nonexistent/libcublasLt.so.13", 1);
  hand_call c;
  hand_rows_call(&c, "reduce_sum", KHOST_DEVICE_CUDA, FP16, 37, 1000);
  cr_expect_eq(kernel("reduce_sum")->supports(&c.in), KHOST_STATUS_OK, "CUB needs no cuBLASLt: %s", c.error);
}

Test(vendor, reduce_sum_supports_every_float_dtype_and_refuses_malformed_calls)
{
  const khost_dtype dtypes[3] = {FP16, BF16, FP32};
  for (int d = 0; d < 3; d++) {
    hand_call c;
    hand_rows_call(&c, "reduce_sum", KHOST_DEVICE_CUDA, dtypes[d], 37, 1000);
    cr_expect_eq(kernel("reduce_sum")->supports(&c.in), KHOST_STATUS_OK, "dtype %d: %s", d, c.error);
    c.inputs[0].dtype.code = c.outputs[0].dtype.code = KHOST_DTYPE_INT;
    cr_expect_eq(kernel("reduce_sum")->supports(&c.in), KHOST_STATUS_UNSUPPORTED, "int is declined");
    c.inputs[0].dtype = FP16;
    c.outputs[0].dtype = BF16;
    cr_expect_eq(kernel("reduce_sum")->supports(&c.in), KHOST_STATUS_INVALID_ARGUMENT, "mixed dtypes");
  }
  hand_call c;
  hand_rows_call(&c, "reduce_sum", KHOST_DEVICE_CPU, FP32, 4, 4);
  cr_expect_eq(kernel("reduce_sum")->supports(&c.in), KHOST_STATUS_INVALID_ARGUMENT, "a host tensor");
}

/* The CUB the plugin was compiled with; cuBLASLt left unopened until an
 * fp8_block_gemm call needs it, then found (the toolkit's own copy where the
 * soname is not on the loader's path). */
Test(vendor, description_names_cub_and_cublaslt_is_opened_at_its_first_use)
{
  unsetenv("KHOST_VENDOR_CUBLASLT");
  const char *text = khost_test_plugin(PLUGIN)->description;
  int cub[3];
  cr_expect_eq(sscanf(text, "CUB %d.%d.%d;", &cub[0], &cub[1], &cub[2]), 3, "%s", text);
  cr_expect_not_null(strstr(text, "; cuBLASLt (libcublasLt.so.13) opened at the first fp8_block_gemm case"),
                     "%s", text);
  cr_expect_null(dlopen("libcublasLt.so.13", RTLD_NOW | RTLD_NOLOAD), "loading the plugin opened cuBLASLt");
  const char *libdir = getenv("KHOST_CUDA_LIBDIR");
  char toolkit_copy[512];
  snprintf(toolkit_copy, sizeof toolkit_copy, "%s/libcublasLt.so.13", libdir ? libdir : "");
  if (!libdir || access(toolkit_copy, R_OK) != 0) cr_skip_test("no %s: no cuBLASLt to find", toolkit_copy);
  hand_call c;
  hand_fp8_gemm_call(&c, KHOST_DEVICE_CUDA, 64, 2112, 7168, 1, 128, 128);
  /* Without a GPU, supports() fails at cublasLtCreate (CUBLAS_STATUS_NOT_INITIALIZED), after
   * opening the library; that failed create keeps 192 bytes of cuBLASLt's own, which
   * LeakSanitizer would lay on this test. Only this call is exempt: it runs only here,
   * as khost's workers reach no CUDA kernel's supports() without a device. */
  lsan_disable();
  (void)gemm_kernel()->supports(&c.in);
  lsan_enable();
  void *opened = dlopen("libcublasLt.so.13", RTLD_NOW | RTLD_NOLOAD);
  cr_expect_not_null(opened, "the first fp8 call did not open it: %s", c.error);
  if (opened) dlclose(opened);
  /* As khost does at the end of a run: the handle supports() may have made goes. */
  khost_test_plugin(PLUGIN)->fini();
}

/* Each block shape without a cuBLASLt scale mode is a SKIP whose reason says why. */
Test(vendor, fp8_gemm_declines_block_shapes_cublaslt_cannot_scale)
{
  const khost_kernel *gemm = gemm_kernel();
  const struct {
    int64_t qm, qn, qk;
    const char *reason;
  } shapes[] = {
      {128, 128, 128, "cuBLASLt has no 2D x 2D block scaling"},
      {256, 256, 256, "qk = 256: cuBLASLt's FP8 block scales span 128 elements of k"},
      {512, 512, 512, "qk = 512"},
      {1, 1, 64, "qk = 64"},
      {128, 1, 128, "qm = 128: a is scaled here in 1 x 128 blocks only"},
      {1, 64, 128, "qn = 64: b is scaled in 1 x 128 (VEC128_32F) or 128 x 128 (BLK128x128_32F) blocks only"},
  };
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
    hand_call c;
    hand_fp8_gemm_call(&c, KHOST_DEVICE_CUDA, 256, 512, 1024, shapes[i].qm, shapes[i].qn, shapes[i].qk);
    cr_expect_eq(gemm->supports(&c.in), KHOST_STATUS_UNSUPPORTED, "%lld x %lld x %lld: %s",
                 (long long)shapes[i].qm, (long long)shapes[i].qn, (long long)shapes[i].qk, c.error);
    cr_expect_not_null(strstr(c.error, shapes[i].reason), "got: %s", c.error);
  }
}

Test(vendor, fp8_gemm_without_cublaslt_declines_with_the_loader_s_reason)
{
  setenv("KHOST_VENDOR_CUBLASLT", "/nonexistent/libcublasLt.so.13", 1);
  const khost_kernel *gemm = gemm_kernel();
  hand_call c;
  hand_fp8_gemm_call(&c, KHOST_DEVICE_CUDA, 64, 2112, 7168, 1, 128, 128);
  cr_expect_eq(gemm->supports(&c.in), KHOST_STATUS_UNSUPPORTED, "%s", c.error);
  cr_expect_str_eq(c.error,
                   "fp8_block_gemm: libcublasLt.so.13 not found: /nonexistent/libcublasLt.so.13: cannot "
                   "open shared object file: No such file or directory");
}

Test(vendor, fp8_gemm_refuses_malformed_calls_before_anything_else)
{
  const khost_kernel *gemm = gemm_kernel();
  hand_call c;
  hand_fp8_gemm_call(&c, KHOST_DEVICE_CUDA, 64, 256, 512, 1, 128, 128);
  c.params[2].value = 500; /* k, no longer a multiple of qk */
  cr_expect_eq(gemm->supports(&c.in), KHOST_STATUS_INVALID_ARGUMENT, "%s", c.error);
  hand_fp8_gemm_call(&c, KHOST_DEVICE_CUDA, 64, 256, 512, 128, 128, 128);
  c.inputs[KHOST_FP8_BLOCK_GEMM_SA_T].device_type = KHOST_DEVICE_CPU;
  cr_expect_eq(gemm->supports(&c.in), KHOST_STATUS_INVALID_ARGUMENT,
               "a host tensor, even in a declined shape");
}

/* The operational ops are one batch of flat chunk copies, described with the copies and
 * the read-back of the tables the batch needs on the host. They are accepted (a driver
 * before CUDA 12.8 declines, with the reason) and flagged as not capturable, so khost
 * never captures them; the universal ops, never run, carry no flag. */
Test(vendor, kv_flat_ops_are_a_batch_of_chunk_copies_flagged_not_capturable)
{
  const khost_kv_dims llama = {64, 8, 80, 2, 16, 128};
  const char *ops[] = {"kv_block_to_operational", "kv_operational_to_block"};
  for (int o = 0; o < 2; o++) {
    hand_call c;
    char name[96];
    hand_kv_call(&c, ops[o], KHOST_DEVICE_CUDA, BF16, &llama, KHOST_KV_NHD);
    int status = kernel(ops[o])->supports(&c.in);
    cr_expect(status == KHOST_STATUS_OK ||
                  (status == KHOST_STATUS_UNSUPPORTED && strstr(c.error, "needs 12.8")),
              "%s: status %d: %s", ops[o], status, c.error);
    cr_expect_eq(kernel(ops[o])->flags, KHOST_KERNEL_NOT_CAPTURABLE, "%s", ops[o]);
    cr_expect_str_eq(khost_test_describe(kernel(ops[o]), &c.in, name, sizeof name),
                     "cudaMemcpyBatchAsync 10240 x 32768 B, tables read back first");
  }
}

/* A host before ABI 1.3 cannot read the flag and would capture the batch: declined
 * there with the reason, accepted again by a host that can. */
Test(vendor, kv_flat_ops_are_declined_by_a_host_that_cannot_read_the_flag)
{
  const khost_kv_dims dims = {3, 3, 2, 2, 4, 5};
  khost_plugin_entry_fn entry = khost_test_entry(PLUGIN);
  hand_call c;
  hand_kv_call(&c, "kv_block_to_operational", KHOST_DEVICE_CUDA, BF16, &dims, KHOST_KV_NHD);
  const khost_plugin *old = entry(KHOST_ABI_MAJOR, 2);
  cr_assert_not_null(old, "a 1.2 host still loads the plugin");
  const khost_kernel *k = khost_test_kernel(old, "kv_block_to_operational", KHOST_DEVICE_CUDA);
  cr_expect_eq(k->supports(&c.in), KHOST_STATUS_UNSUPPORTED);
  cr_expect(strstr(c.error, "this host (ABI 1.2) cannot read KHOST_KERNEL_NOT_CAPTURABLE"), "%s", c.error);
  entry(KHOST_ABI_MAJOR, KHOST_ABI_MINOR);
  int status = k->supports(&c.in);
  cr_expect(status == KHOST_STATUS_OK || strstr(c.error, "needs 12.8"), "status %d: %s", status, c.error);
}

/* nb = 0 enqueues nothing: no batch of none, no CUDA call at all. */
Test(vendor, kv_flat_ops_run_nothing_for_no_blocks)
{
  const khost_kv_dims none = {0, 3, 2, 2, 4, 5};
  hand_call c;
  hand_kv_call(&c, "kv_operational_to_block", KHOST_DEVICE_CUDA, E4M3, &none, KHOST_KV_NHD);
  cr_expect_eq(kernel("kv_operational_to_block")->run(&c.in), KHOST_STATUS_OK, "%s", c.error);
}

/* The universal ops permute each chunk: declined with the reason, also by run(). */
Test(vendor, kv_universal_ops_are_declined_with_the_reason)
{
  const khost_kv_dims dims = {3, 3, 2, 2, 4, 5};
  const char *ops[] = {"kv_block_to_universal", "kv_universal_to_block"};
  for (int o = 0; o < 2; o++) {
    hand_call c;
    hand_kv_call(&c, ops[o], KHOST_DEVICE_CUDA, FP16, &dims, KHOST_KV_HND);
    cr_expect_eq(kernel(ops[o])->supports(&c.in), KHOST_STATUS_UNSUPPORTED, "%s: %s", ops[o], c.error);
    cr_expect(strstr(c.error, "runs of hd elements (10 bytes), nt * nh = 12 copies a chunk"), "%s", c.error);
    cr_expect_eq(kernel(ops[o])->run(&c.in), KHOST_STATUS_UNSUPPORTED, "%s: %s", ops[o], c.error);
    cr_expect_eq(kernel(ops[o])->flags, 0u, "%s is never run: nothing to flag", ops[o]);
  }
}

Test(vendor, kv_ops_refuse_a_zero_dimension)
{
  const khost_kv_dims dims = {3, 3, 0, 2, 4, 5};
  hand_call c;
  hand_kv_call(&c, "kv_block_to_operational", KHOST_DEVICE_CUDA, FP32, &dims, KHOST_KV_NHD);
  cr_expect_eq(kernel("kv_block_to_operational")->supports(&c.in), KHOST_STATUS_INVALID_ARGUMENT);
  cr_expect(strstr(c.error, "nl"), "%s", c.error);
}

/* Tests of the triton_aot plugin through its real artifact (KHOST_TRITON_AOT_PLUGIN),
 * on any machine: the descriptor, input validation, variant selection and the
 * KHOST_TRITON_VARIANT override, all of which run before the CUDA driver is touched,
 * and a launch where no driver or no context exists, which must fail cleanly.
 * Tensors carry fake device addresses: nothing here dereferences them. */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "khost/ops.h"

static const khost_dtype FP16 = {KHOST_DTYPE_FLOAT, 16, 1};
static const khost_dtype BF16 = {KHOST_DTYPE_BFLOAT, 16, 1};
static const khost_dtype FP32 = {KHOST_DTYPE_FLOAT, 32, 1};
static const khost_dtype FP64 = {KHOST_DTYPE_FLOAT, 64, 1};
static const khost_dtype E2M1 = {KHOST_DTYPE_FLOAT4_E2M1FN, 4, 1};
static const khost_dtype E4M3 = {KHOST_DTYPE_FLOAT8_E4M3FN, 8, 1};
/* A 256-byte aligned address no test dereferences. */
#define FAKE_DEVICE_BASE ((uintptr_t)0x7f0000000000)

static void *lib;

static const khost_plugin *load_plugin(void)
{
  const char *path = getenv("KHOST_TRITON_AOT_PLUGIN");
  if (!path || !*path) cr_skip_test("KHOST_TRITON_AOT_PLUGIN is not set (plugin not built)");
  lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  cr_assert_not_null(lib, "dlopen(%s): %s", path, dlerror());
  khost_plugin_entry_fn entry = (khost_plugin_entry_fn)dlsym(lib, KHOST_PLUGIN_ENTRY_SYMBOL);
  cr_assert_not_null(entry);
  const khost_plugin *plugin = entry(KHOST_ABI_MAJOR, KHOST_ABI_MINOR);
  cr_assert_not_null(plugin);
  return plugin;
}

static const khost_kernel *kernel(const char *op)
{
  const khost_plugin *plugin = load_plugin();
  for (int32_t i = 0; i < plugin->nkernels; i++)
    if (strcmp(plugin->kernels[i]->op, op) == 0) return plugin->kernels[i];
  cr_assert_fail("triton_aot has no kernel for %s", op);
  return NULL;
}

#define MAX_TENSORS 8

typedef struct call {
  khost_param params[4];
  khost_tensor inputs[MAX_TENSORS], outputs[2];
  int64_t shapes[MAX_TENSORS + 2][KHOST_MAX_DIMS];
  int nshapes;
  uintptr_t next_address;
  char error[512];
  khost_input in;
} call;

static void call_init(call *c, const char *op)
{
  memset(c, 0, sizeof *c);
  c->next_address = FAKE_DEVICE_BASE;
  c->in = (khost_input){.struct_size = sizeof(khost_input),
                        .op = op,
                        .params = c->params,
                        .inputs = c->inputs,
                        .outputs = c->outputs,
                        .error = c->error,
                        .error_size = sizeof c->error,
                        .num_threads = 1};
}

static void add_param(call *c, const char *name, int64_t value)
{
  c->params[c->in.nparams++] = (khost_param){name, value};
}

/* A contiguous CUDA tensor at a fresh fake, 256-byte aligned address. */
static khost_tensor *add_tensor(call *c, bool output, const char *name, khost_dtype dtype, int ndim,
                                const int64_t *shape)
{
  int64_t *dims = c->shapes[c->nshapes++];
  int64_t elements = 1;
  for (int d = 0; d < ndim; d++) elements *= (dims[d] = shape[d]);
  size_t nbytes = (size_t)elements * dtype.bits / 8;
  khost_tensor *t = output ? &c->outputs[c->in.noutputs++] : &c->inputs[c->in.ninputs++];
  *t = (khost_tensor){.struct_size = sizeof(khost_tensor),
                      .name = name,
                      .data = (void *)c->next_address,
                      .device_type = KHOST_DEVICE_CUDA,
                      .dtype = dtype,
                      .ndim = ndim,
                      .shape = dims,
                      .nbytes = nbytes};
  c->next_address += (nbytes + 255) / 256 * 256 + 256;
  return t;
}

static void rows_call(call *c, const char *op, khost_dtype dtype, int64_t m, int64_t n)
{
  call_init(c, op);
  add_param(c, "m", m);
  add_param(c, "n", n);
  const int64_t in[] = {m, n}, transposed[] = {n, m}, reduced[] = {m};
  add_tensor(c, false, "in", dtype, 2, in);
  if (strcmp(op, "copy_transpose") == 0)
    add_tensor(c, true, "out", dtype, 2, transposed);
  else if (strcmp(op, "reduce_sum") == 0)
    add_tensor(c, true, "out", dtype, 1, reduced);
  else
    add_tensor(c, true, "out", dtype, 2, in);
}

static void gemv_call(call *c, int64_t m, int64_t k, int64_t l)
{
  call_init(c, "nvfp4_gemv");
  add_param(c, "m", m);
  add_param(c, "k", k);
  add_param(c, "l", l);
  const int64_t a[] = {l, m, k}, v[] = {l, k}, sfa[] = {l, m, k / 16}, sfv[] = {l, k / 16};
  const int64_t sfa_swz[] = {l, (m + 127) / 128 * ((k / 16 + 3) / 4) * 512},
                sfv_swz[] = {l, (k / 16 + 3) / 4 * 512};
  const int64_t out[] = {l, m};
  add_tensor(c, false, "a", E2M1, 3, a);
  add_tensor(c, false, "v", E2M1, 2, v);
  add_tensor(c, false, "sfa", E4M3, 3, sfa);
  add_tensor(c, false, "sfv", E4M3, 2, sfv);
  add_tensor(c, false, "sfa_swz", E4M3, 2, sfa_swz);
  add_tensor(c, false, "sfv_swz", E4M3, 2, sfv_swz);
  add_tensor(c, true, "c", FP16, 2, out);
}

Test(triton_aot, descriptor_names_the_plugin_and_its_four_ops)
{
  const khost_plugin *p = load_plugin();
  cr_assert_eq(p->magic, KHOST_PLUGIN_MAGIC);
  cr_assert_eq(p->abi_major, KHOST_ABI_MAJOR);
  cr_assert_str_eq(p->name, "triton_aot");
  cr_assert_str_eq(p->language, "triton");
  cr_assert_eq(p->nkernels, 4);
  const char *ops[] = {"nvfp4_gemv", "copy_transpose", "reduce_sum", "softmax_online"};
  for (int i = 0; i < 4; i++) {
    cr_assert_str_eq(p->kernels[i]->op, ops[i]);
    cr_assert_eq(p->kernels[i]->device_type, KHOST_DEVICE_CUDA);
    cr_assert_not_null(p->kernels[i]->supports);
  }
  khost_plugin_entry_fn entry = (khost_plugin_entry_fn)dlsym(lib, KHOST_PLUGIN_ENTRY_SYMBOL);
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
        call c;
        rows_call(&c, ops[o], types[t], shapes[s][0], shapes[s][1]);
        cr_assert_eq(kernel(ops[o])->supports(&c.in), KHOST_STATUS_OK, "%s %lldx%lld: %s", ops[o],
                     (long long)shapes[s][0], (long long)shapes[s][1], c.error);
      }
}

Test(triton_aot, supports_the_gemv_shapes_of_the_suites)
{
  const int64_t shapes[][3] = {{128, 256, 1}, {7168, 16384, 1}, {4096, 7168, 8}, {1024, 4096, 64}};
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
    call c;
    gemv_call(&c, shapes[s][0], shapes[s][1], shapes[s][2]);
    cr_assert_eq(kernel("nvfp4_gemv")->supports(&c.in), KHOST_STATUS_OK, "%s", c.error);
  }
}

Test(triton_aot, declines_fp64_as_unsupported)
{
  call c;
  rows_call(&c, "softmax_online", FP64, 4, 4);
  cr_assert_eq(kernel("softmax_online")->supports(&c.in), KHOST_STATUS_UNSUPPORTED);
  cr_assert(strstr(c.error, "fp16, bf16 and fp32"), "%s", c.error);
}

Test(triton_aot, declines_a_misaligned_gemv_tensor_with_the_reason)
{
  call c;
  gemv_call(&c, 128, 256, 1);
  c.inputs[KHOST_NVFP4_GEMV_A].data = (char *)c.inputs[KHOST_NVFP4_GEMV_A].data + 8;
  cr_assert_eq(kernel("nvfp4_gemv")->supports(&c.in), KHOST_STATUS_UNSUPPORTED);
  cr_assert(strstr(c.error, "aligned"), "%s", c.error);
}

Test(triton_aot, rejects_a_tensor_smaller_than_its_shape)
{
  call c;
  rows_call(&c, "reduce_sum", FP32, 16, 16);
  c.inputs[0].nbytes -= 4;
  cr_assert_eq(kernel("reduce_sum")->supports(&c.in), KHOST_STATUS_INVALID_ARGUMENT);
  cr_assert(strstr(c.error, "bytes"), "%s", c.error);
}

Test(triton_aot, rejects_a_missing_parameter)
{
  call c;
  rows_call(&c, "copy_transpose", FP16, 16, 16);
  c.in.nparams = 1;
  cr_assert_eq(kernel("copy_transpose")->supports(&c.in), KHOST_STATUS_INVALID_ARGUMENT);
  cr_assert(strstr(c.error, "parameter n is missing"), "%s", c.error);
}

Test(triton_aot, a_forced_variant_that_cannot_run_is_declined_with_its_name)
{
  setenv("KHOST_TRITON_VARIANT", "softmax_fp16_tile_m16_n64_w4", 1);
  call c;
  rows_call(&c, "softmax_online", FP16, 8, 100);
  cr_assert_eq(kernel("softmax_online")->supports(&c.in), KHOST_STATUS_UNSUPPORTED);
  cr_assert(strstr(c.error, "softmax_fp16_tile_m16_n64_w4 cannot run this input"), "%s", c.error);
  rows_call(&c, "softmax_online", FP16, 8, 64);
  cr_assert_eq(kernel("softmax_online")->supports(&c.in), KHOST_STATUS_OK, "%s", c.error);
}

Test(triton_aot, a_forced_variant_of_another_op_leaves_this_op_alone)
{
  setenv("KHOST_TRITON_VARIANT", "gemv_m16_k1024_w4", 1);
  call c;
  rows_call(&c, "reduce_sum", BF16, 33, 33);
  cr_assert_eq(kernel("reduce_sum")->supports(&c.in), KHOST_STATUS_OK, "%s", c.error);
}

Test(triton_aot, an_unknown_forced_variant_is_declined)
{
  setenv("KHOST_TRITON_VARIANT", "no_such_variant", 1);
  call c;
  rows_call(&c, "reduce_sum", FP32, 4, 4);
  cr_assert_eq(kernel("reduce_sum")->supports(&c.in), KHOST_STATUS_UNSUPPORTED);
  cr_assert(strstr(c.error, "no_such_variant names no variant"), "%s", c.error);
}

/* Without libcuda.so.1 (CI) the driver cannot load; with a driver but no current
 * context (this process never made one) the launch is refused: a device error
 * naming file and line either way, never a crash. */
Test(triton_aot, run_without_a_usable_driver_is_a_device_error)
{
  const char *ops[] = {"copy_transpose", "reduce_sum", "softmax_online"};
  for (int o = 0; o < 3; o++) {
    call c;
    rows_call(&c, ops[o], FP16, 64, 64);
    cr_assert_eq(kernel(ops[o])->run(&c.in), KHOST_STATUS_DEVICE_ERROR, "%s", c.error);
    cr_assert(strstr(c.error, ".c:"), "no file:line in \"%s\"", c.error);
  }
  call c;
  gemv_call(&c, 128, 256, 1);
  cr_assert_eq(kernel("nvfp4_gemv")->run(&c.in), KHOST_STATUS_DEVICE_ERROR, "%s", c.error);
  cr_assert(strstr(c.error, "driver") || strstr(c.error, "CUDA_ERROR") || strstr(c.error, "context"), "%s",
            c.error);
}

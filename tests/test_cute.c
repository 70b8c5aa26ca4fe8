/* The cute plugin as an artifact, without a GPU: one export, its descriptor,
 * and supports() on well-formed and malformed inputs (device pointers are never
 * dereferenced there, so fake addresses serve). Skips when cute is not built. */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "khost/ops.h"

static const khost_plugin *plugin;
static char err[512];

static void load(void)
{
  const char *path = getenv("KHOST_CUTE_PLUGIN");
  if (!path || !*path) cr_skip_test("the cute plugin is not built here (no CUTLASS headers or nvcc)");
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  cr_assert_not_null(h, "%s", dlerror());
  khost_plugin_entry_fn entry = (khost_plugin_entry_fn)dlsym(h, KHOST_PLUGIN_ENTRY_SYMBOL);
  cr_assert_not_null(entry);
  cr_expect_null(entry(KHOST_ABI_MAJOR + 1, 0), "another ABI major is refused");
  plugin = entry(KHOST_ABI_MAJOR, KHOST_ABI_MINOR);
  cr_assert_not_null(plugin);
}

static const khost_kernel *kernel(const char *op)
{
  for (int i = 0; i < plugin->nkernels; i++)
    if (!strcmp(plugin->kernels[i]->op, op)) return plugin->kernels[i];
  cr_assert_fail("cute has no kernel for %s", op);
  return NULL;
}

static khost_tensor tensor(uintptr_t address, int code, int bits, int ndim, const int64_t *shape,
                           size_t nbytes)
{
  khost_tensor t = {
      sizeof t, "t",  (void *)address, KHOST_DEVICE_CUDA, 0, {(uint8_t)code, (uint8_t)bits, 1}, ndim,
      shape,    NULL, nbytes};
  return t;
}

Test(cute, descriptor_lists_every_op_on_cuda, .init = load)
{
  cr_expect_str_eq(plugin->name, "cute");
  cr_expect_str_eq(plugin->language, "cute");
  cr_expect_eq(plugin->nkernels, 4);
  static const char *const ops[] = {"nvfp4_gemv", "copy_transpose", "reduce_sum", "softmax_online"};
  for (int i = 0; i < 4; i++) {
    cr_expect_eq(kernel(ops[i])->device_type, KHOST_DEVICE_CUDA);
    cr_expect_not_null(kernel(ops[i])->supports, "%s declares what it declines", ops[i]);
  }
}

Test(cute, gemv_supports_valid_input_and_declines_or_refuses_the_rest, .init = load)
{
  const uintptr_t base = 0x7f0000000000u;
  int64_t m = 256, k = 512, l = 2;
  int64_t sa[3] = {l, m, k}, sv[2] = {l, k}, ssa[3] = {l, m, k / 16}, ssv[2] = {l, k / 16};
  int64_t sw[2] = {l, 2 * 8 * 512}, swv[2] = {l, 8 * 512}, sc[2] = {l, m};
  khost_tensor ins[6] = {tensor(base, 17, 4, 3, sa, l * m * k / 2),
                         tensor(base + (1 << 24), 17, 4, 2, sv, l * k / 2),
                         tensor(base + (2 << 24), 10, 8, 3, ssa, l * m * k / 16),
                         tensor(base + (3 << 24), 10, 8, 2, ssv, l * k / 16),
                         tensor(base + (4 << 24), 10, 8, 2, sw, 2 * 16 * 512),
                         tensor(base + (5 << 24), 10, 8, 2, swv, 2 * 8 * 512)};
  khost_tensor outs[1] = {tensor(base + (6 << 24), 2, 16, 2, sc, l * m * 2)};
  khost_param params[3] = {{"m", m}, {"k", k}, {"l", l}};
  khost_input in = {sizeof in, "nvfp4_gemv", 3, params, 6, ins, 1, outs, NULL, NULL, 0, err, sizeof err, 1};
  const khost_kernel *g = kernel("nvfp4_gemv");
  cr_expect_eq(g->supports(&in), KHOST_STATUS_OK, "%s", err);
  ins[0].data = (void *)(base + 8);
  cr_expect_eq(g->supports(&in), KHOST_STATUS_UNSUPPORTED, "a misaligned matrix is declined");
  ins[0].data = (void *)base;
  ins[2].nbytes -= 1;
  cr_expect_eq(g->supports(&in), KHOST_STATUS_INVALID_ARGUMENT, "short scales are refused");
  ins[2].nbytes += 1;
  ins[3].device_type = KHOST_DEVICE_CPU;
  cr_expect_eq(g->supports(&in), KHOST_STATUS_INVALID_ARGUMENT, "a host tensor is refused");
  cr_expect_neq(err[0], '\0', "with a message");
}

Test(cute, row_ops_support_every_float_dtype_and_refuse_mixtures, .init = load)
{
  const uintptr_t base = 0x7f0000000000u;
  int64_t rs[2] = {37, 1000}, rt[2] = {1000, 37}, rr[1] = {37};
  khost_param rp[2] = {{"m", 37}, {"n", 1000}};
  static const char *const ops[3] = {"copy_transpose", "reduce_sum", "softmax_online"};
  static const struct {
    int code, bits;
  } dtypes[3] = {{2, 16}, {4, 16}, {2, 32}};
  for (int o = 0; o < 3; o++)
    for (int d = 0; d < 3; d++) {
      size_t es = (size_t)dtypes[d].bits / 8;
      const int64_t *oshape = o == 0 ? rt : o == 1 ? rr : rs;
      khost_tensor ri = tensor(base, dtypes[d].code, dtypes[d].bits, 2, rs, 37 * 1000 * es);
      khost_tensor ro = tensor(base + (1 << 24), dtypes[d].code, dtypes[d].bits, o == 1 ? 1 : 2, oshape,
                               o == 1 ? 37 * es : 37 * 1000 * es);
      khost_input in = {sizeof in, ops[o], 2, rp, 1, &ri, 1, &ro, NULL, NULL, 0, err, sizeof err, 1};
      cr_expect_eq(kernel(ops[o])->supports(&in), KHOST_STATUS_OK, "%s dtype %d/%d: %s", ops[o],
                   dtypes[d].code, dtypes[d].bits, err);
      ri.dtype.code = ro.dtype.code = 0;
      cr_expect_eq(kernel(ops[o])->supports(&in), KHOST_STATUS_UNSUPPORTED, "%s: int16 is declined", ops[o]);
      ri.dtype.code = 2;
      ro.dtype.code = 4;
      ri.dtype.bits = ro.dtype.bits = 16;
      cr_expect_eq(kernel(ops[o])->supports(&in), KHOST_STATUS_INVALID_ARGUMENT, "%s: mixed dtypes", ops[o]);
    }
}

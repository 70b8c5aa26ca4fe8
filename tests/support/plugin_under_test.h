/* Test support: a built plugin loaded through its real entry symbol, as the
 * host loads it (dlopen, then khost_plugin_entry), and its kernels. */
#ifndef KHOST_TEST_PLUGIN_UNDER_TEST_H
#define KHOST_TEST_PLUGIN_UNDER_TEST_H

#include <criterion/criterion.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "hand_call.h"
#include "khost/plugin.h"

/* The entry function of the plugin whose path is in environment variable
 * env_var (set by tests/meson.build); skips the test when unset. The library
 * stays loaded. */
static inline khost_plugin_entry_fn khost_test_entry(const char *env_var)
{
  const char *path = getenv(env_var);
  if (!path || !*path) cr_skip_test("%s is not set: that plugin is not built here", env_var);
  void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  cr_assert_not_null(lib, "dlopen(%s): %s", path, dlerror());
  khost_plugin_entry_fn entry = (khost_plugin_entry_fn)dlsym(lib, KHOST_PLUGIN_ENTRY_SYMBOL);
  cr_assert_not_null(entry, "no %s in %s", KHOST_PLUGIN_ENTRY_SYMBOL, path);
  return entry;
}

/* That plugin's descriptor for this host's ABI version. */
static inline const khost_plugin *khost_test_plugin(const char *env_var)
{
  const khost_plugin *plugin = khost_test_entry(env_var)(KHOST_ABI_MAJOR, KHOST_ABI_MINOR);
  cr_assert_not_null(plugin, "the entry of the plugin in %s refused this host's ABI version", env_var);
  return plugin;
}

/* The plugin's kernel for op on device_type (0: any device); fails the test when there is none. */
static inline const khost_kernel *khost_test_kernel(const khost_plugin *plugin, const char *op,
                                                    int device_type)
{
  for (int32_t i = 0; i < plugin->nkernels; i++)
    if (!strcmp(plugin->kernels[i]->op, op) &&
        (!device_type || plugin->kernels[i]->device_type == device_type))
      return plugin->kernels[i];
  cr_assert_fail("plugin %s has no kernel for %s on device type %d", plugin->name, op, device_type);
  return NULL;
}

/* The ops the cute and triton_aot plugins implement, KHOST_TEST_GPU_OPS of them in the op list's
 * order; the last KHOST_TEST_KV_OPS are the KV-cache conversions (khost_test_kv_ops). */
#define KHOST_TEST_GPU_OPS 8
#define KHOST_TEST_KV_OPS  4
static inline const char *const *khost_test_gpu_ops(void)
{
  static const char *const ops[KHOST_TEST_GPU_OPS] = {"nvfp4_gemv",
                                                      "copy_transpose",
                                                      "reduce_sum",
                                                      "softmax_online",
                                                      "kv_block_to_universal",
                                                      "kv_universal_to_block",
                                                      "kv_block_to_operational",
                                                      "kv_operational_to_block"};
  return ops;
}

static inline const char *const *khost_test_kv_ops(void)
{
  return khost_test_gpu_ops() + KHOST_TEST_GPU_OPS - KHOST_TEST_KV_OPS;
}

/* The name kernel's describe() gives for the call in, in buf; "" (and a failed
 * expectation) when it fails. */
static inline const char *khost_test_describe(const khost_kernel *kernel, const khost_input *in, char *buf,
                                              size_t size)
{
  buf[0] = '\0';
  cr_assert_not_null(kernel->describe, "%s has no describe()", kernel->op);
  int status = kernel->describe(in, buf, size);
  cr_expect_eq(status, KHOST_STATUS_OK, "%s describe(): %s", kernel->op, in->error);
  return buf;
}

/* An expected describe() answer for a well-formed m x n call of a row-wise op. */
typedef struct khost_test_row_name {
  const char *op;
  khost_dtype dtype;
  int64_t m, n;
  const char *name;
} khost_test_row_name;

/* Expects each case's name from describe() of kernel_of(case's op). */
static inline void khost_test_expect_row_names(const khost_kernel *(*kernel_of)(const char *op),
                                               const khost_test_row_name *cases, size_t count)
{
  for (size_t i = 0; i < count; i++) {
    const khost_test_row_name *t = &cases[i];
    const khost_kernel *kernel = kernel_of(t->op);
    hand_call c;
    char buf[64];
    hand_rows_call(&c, t->op, kernel->device_type, t->dtype, t->m, t->n);
    cr_expect_str_eq(khost_test_describe(kernel, &c.in, buf, sizeof buf), t->name, "%s %lldx%lld", t->op,
                     (long long)t->m, (long long)t->n);
  }
}

#endif

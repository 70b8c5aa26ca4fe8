/* Test support: a built plugin loaded through its real entry symbol, as the
 * host loads it (dlopen, then khost_plugin_entry), and its kernels. */
#ifndef KHOST_TEST_PLUGIN_UNDER_TEST_H
#define KHOST_TEST_PLUGIN_UNDER_TEST_H

#include <criterion/criterion.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

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

#endif

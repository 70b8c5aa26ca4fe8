/* The python plugin: khost backends written in Python (docs/PYTHON.md). One
 * library serves a backend per Python module through the ABI 1.2 set entry.
 * The entry runs in khost's process before any case: it starts the embedded
 * interpreter and imports every module there, so that no start-up or import is
 * ever inside a timed region, and the processes khost forks inherit both. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "backends.h"
#include "interpreter.h"
#include "khost/plugin.h"

static khost_plugin_set set = {.struct_size = sizeof(khost_plugin_set)};

/* The interpreter keeps pointers into this library (khost.Tensor's methods),
 * so it must never be unloaded, even when no backend loaded and khost closes
 * it. */
static void build(void)
{
  Dl_info self;
  char dir[4096] = ".", why[4096];
  if (dladdr((void *)&build, &self) && self.dli_fname) {
    dlopen(self.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
    snprintf(dir, sizeof dir, "%s", self.dli_fname);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = '\0';
  }
  if (khost__interpreter_start(dir, why, sizeof why) != 0)
    return khost__python_backends_fail(&set, self.dli_fname ? self.dli_fname : "python.so", why);
  khost__python_backends_load(dir, &set);
}

KHOST_EXPORT const khost_plugin_set *khost_plugin_set_entry(uint32_t host_major, uint32_t host_minor)
{
  static int built;
  (void)host_minor;
  if (host_major != KHOST_ABI_MAJOR) return NULL;
  if (!built) build();
  built = 1;
  return &set;
}

/* A host before ABI 1.2 knows no set: refused there, with the host's own message. */
KHOST_EXPORT const khost_plugin *khost_plugin_entry(uint32_t host_major, uint32_t host_minor)
{
  (void)host_major;
  (void)host_minor;
  return NULL;
}

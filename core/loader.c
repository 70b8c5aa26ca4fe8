#include "loader.h"

#include <dirent.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "descriptor.h"

static const char *const stage_names[KHOST__STAGE_COUNT] = {
    "dlopen", "symbol", "entry", "magic", "abi", "struct_size", "descriptor", "duplicate", "init",
};

const char *khost__load_stage_name(khost__load_stage stage)
{
  return stage < KHOST__STAGE_COUNT ? stage_names[stage] : "?";
}

/* Appends to a failure list (the failures, or the shadowed plugins with the
 * path of the plugin that shadows them). */
static int append(khost__load_failure **list, int *n, const char *path, khost__load_stage stage,
                  const char *reason, const char *shadowed_by, khost__err *err)
{
  khost__load_failure *grown = realloc(*list, (size_t)(*n + 1) * sizeof *grown);
  if (!grown) return khost__errorf(err, KHOST__E_NOMEM, "out of memory recording a plugin failure");
  *list = grown;
  khost__load_failure *f = &grown[(*n)++];
  snprintf(f->path, sizeof f->path, "%s", path);
  f->stage = stage;
  snprintf(f->reason, sizeof f->reason, "%s", reason);
  snprintf(f->shadowed_by, sizeof f->shadowed_by, "%s", shadowed_by);
  return KHOST__OK;
}

int khost__registry_add_failure(khost__registry *reg, const char *path, khost__load_stage stage,
                                const char *reason, khost__err *err)
{
  return append(&reg->failures, &reg->nfailures, path, stage, reason, "", err);
}

const khost__plugin *khost__registry_find(const khost__registry *reg, const char *name)
{
  for (int i = 0; i < reg->nplugins; i++)
    if (!strcmp(reg->plugins[i].desc->name, name)) return &reg->plugins[i];
  return NULL;
}

static int already_loaded(const khost__registry *reg, const char *path)
{
  for (int i = 0; i < reg->nplugins; i++)
    if (!strcmp(reg->plugins[i].path, path)) return 1;
  return 0;
}

/* Opens the library and takes its descriptor; the check reads the descriptor in a
 * child process. On success *handle and *desc are set, else *stage and why. Only
 * failing to start the check is an error. */
static int open_plugin(const char *path, void **handle, const khost_plugin **desc, khost__load_stage *stage,
                       char *why, size_t n, khost__err *err)
{
  dlerror();
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    snprintf(why, n, "%s", dlerror());
    *stage = KHOST__STAGE_DLOPEN;
    return KHOST__OK;
  }
  int rc = KHOST__OK;
  union {
    void *object;
    khost_plugin_entry_fn fn;
  } entry = {.object = dlsym(h, KHOST_PLUGIN_ENTRY_SYMBOL)};
  if (!entry.object) {
    snprintf(why, n, "no symbol %s", KHOST_PLUGIN_ENTRY_SYMBOL);
    *stage = KHOST__STAGE_SYMBOL;
    goto fail;
  }
  const khost_plugin *d = entry.fn(KHOST_ABI_MAJOR, KHOST_ABI_MINOR);
  if (!d) {
    snprintf(why, n, "%s returned NULL for host ABI %d.%d", KHOST_PLUGIN_ENTRY_SYMBOL, KHOST_ABI_MAJOR,
             KHOST_ABI_MINOR);
    *stage = KHOST__STAGE_ENTRY;
    goto fail;
  }
  rc = khost__descriptor_check_isolated(d, stage, why, n, err);
  if (rc != KHOST__OK || *stage != KHOST__STAGE_COUNT) goto fail;
  *handle = h;
  *desc = d;
  return KHOST__OK;
fail:
  dlclose(h);
  return rc;
}

/* Loads one file found in search folder `folder` (0: named by the user). */
static int add_file(khost__registry *reg, const char *path, int folder, khost__err *err)
{
  char real[PATH_MAX];
  /* dlopen searches the library path for names without a slash; a plugin path never should. */
  const char *p = realpath(path, real) ? real : path;
  if (already_loaded(reg, p)) return KHOST__OK;
  char why[5120] = "";
  void *handle = NULL;
  const khost_plugin *desc = NULL;
  char slashed[PATH_MAX + 2];
  snprintf(slashed, sizeof slashed, "%s%s", strchr(p, '/') ? "" : "./", p);
  khost__load_stage stage = KHOST__STAGE_COUNT;
  int rc = open_plugin(slashed, &handle, &desc, &stage, why, sizeof why, err);
  if (rc != KHOST__OK) return rc;
  if (stage != KHOST__STAGE_COUNT) return khost__registry_add_failure(reg, p, stage, why, err);
  const khost__plugin *same = khost__registry_find(reg, desc->name);
  if (same) {
    int shadowed = folder > 0 && same->search_folder > 0 && same->search_folder < folder;
    snprintf(why, sizeof why, "plugin name '%s' is already loaded from %s%s", desc->name, same->path,
             shadowed ? ", an earlier search folder" : "");
    rc = shadowed ? append(&reg->shadowed, &reg->nshadowed, p, KHOST__STAGE_DUPLICATE, why, same->path, err)
                  : khost__registry_add_failure(reg, p, KHOST__STAGE_DUPLICATE, why, err);
    goto close;
  }
  khost__plugin *grown = realloc(reg->plugins, (size_t)(reg->nplugins + 1) * sizeof *grown);
  if (!grown) {
    rc = khost__errorf(err, KHOST__E_NOMEM, "out of memory loading %s", p);
    goto close;
  }
  reg->plugins = grown;
  khost__plugin *slot = &reg->plugins[reg->nplugins++];
  snprintf(slot->path, sizeof slot->path, "%s", p);
  slot->handle = handle;
  slot->desc = desc;
  slot->search_folder = folder;
  return KHOST__OK;
close:
  dlclose(handle);
  return rc;
}

static int ends_with_so(const char *name)
{
  size_t n = strlen(name);
  return n > 3 && !strcmp(name + n - 3, ".so");
}

int khost__registry_add_file(khost__registry *reg, const char *path, khost__err *err)
{
  return add_file(reg, path, 0, err);
}

/* Plugins in dir (and, when depth > 0, its subfolders), in name order. */
static int scan(khost__registry *reg, const char *dir, int depth, int folder, khost__err *err)
{
  struct dirent **list = NULL;
  int rc = KHOST__OK;
  int n = scandir(dir, &list, NULL, alphasort);
  if (n < 0) return KHOST__OK;
  for (int i = 0; i < n && rc == KHOST__OK; i++) {
    const char *name = list[i]->d_name;
    char path[PATH_MAX];
    struct stat st;
    if (name[0] == '.' || snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path) continue;
    if (stat(path, &st) != 0) continue;
    if (S_ISDIR(st.st_mode) && depth > 0)
      rc = scan(reg, path, depth - 1, folder, err);
    else if (S_ISREG(st.st_mode) && ends_with_so(name))
      rc = add_file(reg, path, folder, err);
  }
  for (int i = 0; i < n; i++) free(list[i]);
  free(list);
  return rc;
}

int khost__registry_add_dir(khost__registry *reg, const char *dir, khost__err *err)
{
  return scan(reg, dir, 1, 0, err);
}

int khost__registry_search_dir(khost__registry *reg, const char *dir, khost__err *err)
{
  return scan(reg, dir, 1, ++reg->nsearch_folders, err);
}

const khost_kernel *khost__plugin_kernel(const khost__plugin *p, const char *op, int device_type)
{
  for (int i = 0; i < p->desc->nkernels; i++) {
    const khost_kernel *k = p->desc->kernels[i];
    if (k->device_type == device_type && !strcmp(k->op, op)) return k;
  }
  return NULL;
}

khost_supports_fn khost__kernel_supports(const khost_kernel *k)
{
  return KHOST__HAS_FIELD(k, khost_kernel, supports) ? k->supports : NULL;
}

khost_workspace_fn khost__kernel_workspace(const khost_kernel *k)
{
  return KHOST__HAS_FIELD(k, khost_kernel, workspace_size) ? k->workspace_size : NULL;
}

khost_describe_fn khost__kernel_describe(const khost_kernel *k)
{
  return KHOST__HAS_FIELD(k, khost_kernel, describe) ? k->describe : NULL;
}

void khost__registry_names(const khost__registry *reg, char *buf, size_t size)
{
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; i < reg->nplugins && used < size; i++)
    used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? ", " : "", reg->plugins[i].desc->name);
  if (reg->nplugins == 0) snprintf(buf, size, "(none loaded)");
}

void khost__registry_remove(khost__registry *reg, int index)
{
  dlclose(reg->plugins[index].handle);
  memmove(&reg->plugins[index], &reg->plugins[index + 1],
          (size_t)(reg->nplugins - index - 1) * sizeof reg->plugins[0]);
  reg->nplugins--;
}

void khost__registry_free(khost__registry *reg)
{
  for (int i = reg->nplugins - 1; i >= 0; i--) dlclose(reg->plugins[i].handle);
  free(reg->plugins);
  free(reg->failures);
  free(reg->shadowed);
  memset(reg, 0, sizeof *reg);
}

#include "loader.h"

#include <dirent.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "descriptor.h"

/* The longest stage name a plugin set may give a failure, and the most
 * descriptors or failures one set may hold (a bound on what khost reads). */
#define KHOST__NAMED_STAGE_MAX 31
#define KHOST__SET_MAX         4096

static const char *const stage_names[KHOST__STAGE_COUNT] = {
    "dlopen", "symbol", "entry", "magic", "abi", "struct_size", "descriptor", "duplicate", "init", "plugin",
};

const char *khost__load_stage_name(khost__load_stage stage)
{
  return stage < KHOST__STAGE_COUNT ? stage_names[stage] : "?";
}

const char *khost__load_failure_stage(const khost__load_failure *f)
{
  return f->stage == KHOST__STAGE_NAMED && f->named_stage[0] ? f->named_stage
                                                             : khost__load_stage_name(f->stage);
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
  f->named_stage[0] = '\0';
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

/* A descriptor the entry returned, checked in a child process; *stage is
 * KHOST__STAGE_COUNT when it passed. Only failing to start the check is an error. */
static int check_descriptor(const khost_plugin *d, const char *if_null, khost__load_stage *stage, char *why,
                            size_t n, khost__err *err)
{
  *stage = KHOST__STAGE_COUNT;
  if (d) return khost__descriptor_check_isolated(d, stage, why, n, err);
  snprintf(why, n, "%s", if_null);
  *stage = KHOST__STAGE_ENTRY;
  return KHOST__OK;
}

/* Registers d, checked, from the library at path: a failure, a shadowed copy or
 * a plugin holding a reference of its own to the library (so that each plugin of
 * a set unloads alone). */
static int add_descriptor(khost__registry *reg, const char *path, const char *slashed, int folder,
                          const khost_plugin *d, const char *if_null, khost__err *err)
{
  char why[5120] = "";
  khost__load_stage stage;
  int rc = check_descriptor(d, if_null, &stage, why, sizeof why, err);
  if (rc != KHOST__OK) return rc;
  if (stage != KHOST__STAGE_COUNT) return khost__registry_add_failure(reg, path, stage, why, err);
  const khost__plugin *same = khost__registry_find(reg, d->name);
  if (same) {
    int shadowed = folder > 0 && same->search_folder > 0 && same->search_folder < folder;
    snprintf(why, sizeof why, "plugin name '%s' is already loaded from %s%s", d->name, same->path,
             shadowed ? ", an earlier search folder" : "");
    return shadowed
               ? append(&reg->shadowed, &reg->nshadowed, path, KHOST__STAGE_DUPLICATE, why, same->path, err)
               : khost__registry_add_failure(reg, path, KHOST__STAGE_DUPLICATE, why, err);
  }
  khost__plugin *grown = realloc(reg->plugins, (size_t)(reg->nplugins + 1) * sizeof *grown);
  if (!grown) return khost__errorf(err, KHOST__E_NOMEM, "out of memory loading %s", path);
  reg->plugins = grown;
  void *handle = dlopen(slashed, RTLD_NOW | RTLD_LOCAL); /* open already: only counts a reference */
  if (!handle) return khost__errorf(err, KHOST__E_IO, "cannot reopen %s: %s", path, dlerror());
  khost__plugin *slot = &reg->plugins[reg->nplugins++];
  snprintf(slot->path, sizeof slot->path, "%s", path);
  slot->handle = handle;
  slot->desc = d;
  slot->search_folder = folder;
  return KHOST__OK;
}

/* The plugin's own stage name: what the user reads after "stage". */
static int valid_stage_name(const char *s)
{
  size_t n = s ? strnlen(s, KHOST__NAMED_STAGE_MAX + 1) : 0;
  if (n == 0 || n > KHOST__NAMED_STAGE_MAX) return 0;
  for (size_t i = 0; i < n; i++)
    if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_')) return 0;
  return 1;
}

/* One failure of a set: recorded at its own stage under its source, or, when
 * the plugin wrote it wrongly, as the library's failure at stage descriptor. */
static int add_set_failure(khost__registry *reg, const char *path, const khost_plugin_failure *f, int i,
                           khost__err *err)
{
  char why[5120];
  if (!f || !KHOST__HAS_FIELD(f, khost_plugin_failure, message) || !valid_stage_name(f->stage)) {
    snprintf(why, sizeof why,
             "plugin set failure %d is NULL, too small or has no stage name of [a-z0-9_]{1,%d}", i,
             KHOST__NAMED_STAGE_MAX);
    return khost__registry_add_failure(reg, path, KHOST__STAGE_DESCRIPTOR, why, err);
  }
  const char *source = f->source && *f->source ? f->source : path;
  char where[4096];
  snprintf(where, sizeof where, "%.*s", (int)strnlen(source, sizeof where - 1), source);
  snprintf(why, sizeof why, "%.*s", (int)strnlen(f->message ? f->message : "", sizeof why - 1),
           f->message ? f->message : "");
  int rc = khost__registry_add_failure(reg, where, KHOST__STAGE_NAMED, why, err);
  if (rc == KHOST__OK)
    snprintf(reg->failures[reg->nfailures - 1].named_stage, sizeof reg->failures[0].named_stage, "%s",
             f->stage);
  return rc;
}

/* The ABI 1.2 set: each descriptor registered as if it had a library of its
 * own, each failure recorded. The set itself is read here, in khost's process,
 * where the entry that built it has just run; its descriptors are checked in a
 * child like any other. */
static int add_set(khost__registry *reg, const char *path, const char *slashed, int folder,
                   khost_plugin_set_entry_fn entry, khost__err *err)
{
  const khost_plugin_set *set = entry(KHOST_ABI_MAJOR, KHOST_ABI_MINOR);
  char why[256];
  if (!set) {
    snprintf(why, sizeof why, "%s returned NULL for host ABI %d.%d", KHOST_PLUGIN_SET_ENTRY_SYMBOL,
             KHOST_ABI_MAJOR, KHOST_ABI_MINOR);
    return khost__registry_add_failure(reg, path, KHOST__STAGE_ENTRY, why, err);
  }
  if (!KHOST__HAS_FIELD(set, khost_plugin_set, failures) || set->nplugins < 0 || set->nfailures < 0 ||
      set->nplugins > KHOST__SET_MAX || set->nfailures > KHOST__SET_MAX || (set->nplugins && !set->plugins) ||
      (set->nfailures && !set->failures)) {
    snprintf(why, sizeof why, "the plugin set is too small (struct_size %zu) or counts outside 0..%d",
             set->struct_size, KHOST__SET_MAX);
    return khost__registry_add_failure(reg, path, KHOST__STAGE_STRUCT_SIZE, why, err);
  }
  int rc = KHOST__OK;
  for (int i = 0; i < set->nplugins && rc == KHOST__OK; i++) {
    snprintf(why, sizeof why, "plugin %d of the set of %s is NULL", i, KHOST_PLUGIN_SET_ENTRY_SYMBOL);
    rc = add_descriptor(reg, path, slashed, folder, set->plugins[i], why, err);
  }
  for (int i = 0; i < set->nfailures && rc == KHOST__OK; i++)
    rc = add_set_failure(reg, path, set->failures[i], i, err);
  return rc;
}

/* Loads one file found in search folder `folder` (0: named by the user). */
static int add_file(khost__registry *reg, const char *path, int folder, khost__err *err)
{
  char real[PATH_MAX];
  /* dlopen searches the library path for names without a slash; a plugin path never should. */
  const char *p = realpath(path, real) ? real : path;
  if (already_loaded(reg, p)) return KHOST__OK;
  char slashed[PATH_MAX + 2];
  snprintf(slashed, sizeof slashed, "%s%s", strchr(p, '/') ? "" : "./", p);
  dlerror();
  void *h = dlopen(slashed, RTLD_NOW | RTLD_LOCAL);
  if (!h) return khost__registry_add_failure(reg, p, KHOST__STAGE_DLOPEN, dlerror(), err);
  union {
    void *object;
    khost_plugin_entry_fn one;
    khost_plugin_set_entry_fn set;
  } entry = {.object = dlsym(h, KHOST_PLUGIN_SET_ENTRY_SYMBOL)};
  int rc;
  char why[128];
  if (entry.object) {
    rc = add_set(reg, p, slashed, folder, entry.set, err);
  } else if ((entry.object = dlsym(h, KHOST_PLUGIN_ENTRY_SYMBOL))) {
    snprintf(why, sizeof why, "%s returned NULL for host ABI %d.%d", KHOST_PLUGIN_ENTRY_SYMBOL,
             KHOST_ABI_MAJOR, KHOST_ABI_MINOR);
    rc = add_descriptor(reg, p, slashed, folder, entry.one(KHOST_ABI_MAJOR, KHOST_ABI_MINOR), why, err);
  } else {
    snprintf(why, sizeof why, "no symbol %s", KHOST_PLUGIN_ENTRY_SYMBOL);
    rc = khost__registry_add_failure(reg, p, KHOST__STAGE_SYMBOL, why, err);
  }
  dlclose(h); /* each registered plugin holds its own reference */
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

khost_call_overhead_fn khost__kernel_call_overhead(const khost_kernel *k)
{
  return KHOST__HAS_FIELD(k, khost_kernel, call_overhead) ? k->call_overhead : NULL;
}

uint32_t khost__kernel_flags(const khost_kernel *k)
{
  return KHOST__HAS_FIELD(k, khost_kernel, flags) ? k->flags : 0;
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

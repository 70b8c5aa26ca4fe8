#include "loader.h"

#include <dirent.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

/* A field is readable when the struct, as the plugin compiled it, reaches past it. */
#define HAS_FIELD(ptr, type, field) ((ptr)->struct_size >= offsetof(type, field) + sizeof((ptr)->field))

static int check_kernel(const khost_kernel *k, int i, char *why, size_t n)
{
  if (!k) return snprintf(why, n, "kernel %d is NULL", i), 1;
  if (!HAS_FIELD(k, khost_kernel, run))
    return snprintf(why, n, "kernel %d: struct_size %zu is smaller than the %zu bytes the host reads", i,
                    k->struct_size, offsetof(khost_kernel, run) + sizeof k->run),
           2;
  if (!k->op || !*k->op) return snprintf(why, n, "kernel %d has an empty op name", i), 1;
  if (k->device_type != KHOST_DEVICE_CPU && k->device_type != KHOST_DEVICE_CUDA)
    return snprintf(why, n, "kernel %d (%s) has unknown device type %d", i, k->op, (int)k->device_type), 1;
  if (!k->run) return snprintf(why, n, "kernel %d (%s) has a NULL kernel function", i, k->op), 1;
  return 0;
}

static int duplicate_kernel(const khost_plugin *d, int i)
{
  for (int j = 0; j < i; j++)
    if (d->kernels[j]->device_type == d->kernels[i]->device_type &&
        !strcmp(d->kernels[j]->op, d->kernels[i]->op))
      return 1;
  return 0;
}

#define TEXT_OF(x)     #x
#define NUMBER_TEXT(x) TEXT_OF(x)

/* What is wrong with a plugin name, or NULL. Names key --backends, --baseline and
 * the reports' fixed-size fields, so they are short as well as plain. */
static const char *name_problem(const char *s)
{
  if (!s || !*s) return "is empty";
  if (strnlen(s, KHOST_PLUGIN_NAME_MAX + 1) > KHOST_PLUGIN_NAME_MAX)
    return "is longer than " NUMBER_TEXT(KHOST_PLUGIN_NAME_MAX) " characters";
  if (strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(s)) return "is not [a-z0-9_]+";
  return NULL;
}

/* Returns the failing stage, or KHOST__STAGE_COUNT when the descriptor is good. */
static khost__load_stage validate(const khost_plugin *d, char *why, size_t n)
{
  if (d->magic != KHOST_PLUGIN_MAGIC)
    return snprintf(why, n, "bad magic 0x%016llx (expected 0x%016llx)", (unsigned long long)d->magic,
                    (unsigned long long)KHOST_PLUGIN_MAGIC),
           KHOST__STAGE_MAGIC;
  if (d->abi_major != KHOST_ABI_MAJOR)
    return snprintf(why, n, "ABI major %u, host has %d (minor %u vs %d)", d->abi_major, KHOST_ABI_MAJOR,
                    d->abi_minor, KHOST_ABI_MINOR),
           KHOST__STAGE_ABI;
  /* Every field of ABI 1.0 up to fini is read; later minors only append. */
  if (!HAS_FIELD(d, khost_plugin, fini))
    return snprintf(why, n, "descriptor struct_size %zu is smaller than the %zu bytes the host reads",
                    d->struct_size, offsetof(khost_plugin, fini) + sizeof d->fini),
           KHOST__STAGE_STRUCT_SIZE;
  const char *problem = name_problem(d->name);
  if (problem)
    return snprintf(why, n, "plugin name '%.80s' %s", d->name ? d->name : "(null)", problem),
           KHOST__STAGE_DESCRIPTOR;
  if (d->nkernels < 1 || !d->kernels)
    return snprintf(why, n, "plugin '%s' lists no kernels", d->name), KHOST__STAGE_DESCRIPTOR;
  for (int i = 0; i < d->nkernels; i++) {
    int bad = check_kernel(d->kernels[i], i, why, n);
    if (bad) return bad == 2 ? KHOST__STAGE_STRUCT_SIZE : KHOST__STAGE_DESCRIPTOR;
    if (duplicate_kernel(d, i))
      return snprintf(why, n, "duplicate op '%s' for one device in plugin '%s'", d->kernels[i]->op, d->name),
             KHOST__STAGE_DESCRIPTOR;
  }
  return KHOST__STAGE_COUNT;
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

/* Opens and validates; on success *handle and *desc are set, else *stage/why. */
static khost__load_stage open_plugin(const char *path, void **handle, const khost_plugin **desc, char *why,
                                     size_t n)
{
  dlerror();
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) return snprintf(why, n, "%s", dlerror()), KHOST__STAGE_DLOPEN;
  khost__load_stage stage = KHOST__STAGE_COUNT;
  union {
    void *object;
    khost_plugin_entry_fn fn;
  } entry = {.object = dlsym(h, KHOST_PLUGIN_ENTRY_SYMBOL)};
  if (!entry.object) {
    snprintf(why, n, "no symbol %s", KHOST_PLUGIN_ENTRY_SYMBOL);
    stage = KHOST__STAGE_SYMBOL;
    goto fail;
  }
  const khost_plugin *d = entry.fn(KHOST_ABI_MAJOR, KHOST_ABI_MINOR);
  if (!d) {
    snprintf(why, n, "%s returned NULL for host ABI %d.%d", KHOST_PLUGIN_ENTRY_SYMBOL, KHOST_ABI_MAJOR,
             KHOST_ABI_MINOR);
    stage = KHOST__STAGE_ENTRY;
    goto fail;
  }
  stage = validate(d, why, n);
  if (stage != KHOST__STAGE_COUNT) goto fail;
  *handle = h;
  *desc = d;
  return KHOST__STAGE_COUNT;
fail:
  dlclose(h);
  return stage;
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
  khost__load_stage stage = open_plugin(slashed, &handle, &desc, why, sizeof why);
  if (stage != KHOST__STAGE_COUNT) return khost__registry_add_failure(reg, p, stage, why, err);
  int rc = KHOST__OK;
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
  return HAS_FIELD(k, khost_kernel, supports) ? k->supports : NULL;
}

khost_workspace_fn khost__kernel_workspace(const khost_kernel *k)
{
  return HAS_FIELD(k, khost_kernel, workspace_size) ? k->workspace_size : NULL;
}

khost_describe_fn khost__kernel_describe(const khost_kernel *k)
{
  return HAS_FIELD(k, khost_kernel, describe) ? k->describe : NULL;
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

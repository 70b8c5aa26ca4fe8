/* Loading backend plugins: dlopen, validate the descriptor, and remember every
 * failure with the stage it happened at, so that one bad plugin never stops
 * khost and `khost --list` can say exactly what went wrong. */
#ifndef KHOST_LOADER_H
#define KHOST_LOADER_H

#include <stdbool.h>

#include "error.h"
#include "khost/plugin.h"

/* Where loading a plugin can fail, in the order the loader tries things. */
typedef enum {
  KHOST__STAGE_DLOPEN,      /* not a loadable shared object (dlerror says why) */
  KHOST__STAGE_SYMBOL,      /* no khost_plugin_entry symbol */
  KHOST__STAGE_ENTRY,       /* the entry refused this host (returned NULL) */
  KHOST__STAGE_MAGIC,       /* the descriptor does not start with KHOST_PLUGIN_MAGIC */
  KHOST__STAGE_ABI,         /* ABI major differs */
  KHOST__STAGE_STRUCT_SIZE, /* a struct is smaller than the fields the host reads */
  KHOST__STAGE_DESCRIPTOR,  /* empty name, NULL kernel function, duplicate op, unreadable, ... */
  KHOST__STAGE_DUPLICATE,   /* another plugin already has this name */
  KHOST__STAGE_INIT,        /* init() failed or crashed (probed in a child process) */
  KHOST__STAGE_NAMED,       /* a part of a plugin set failed at a stage the plugin names ("python") */
  KHOST__STAGE_COUNT
} khost__load_stage;

/* A plugin that loaded. `desc` points into the library; valid until unloaded. */
typedef struct khost__plugin {
  char path[4096];
  void *handle;
  const khost_plugin *desc;
  int search_folder; /* 1, 2, ... in search order when found by khost__registry_search_dir; 0 when named */
} khost__plugin;

/* A plugin that did not load. Plain value. */
typedef struct khost__load_failure {
  char path[4096];
  khost__load_stage stage;
  char reason[5120];
  /* Under KHOST__STAGE_NAMED: the plugin's name for the stage; else "". */
  char named_stage[32];
  /* A shadowed plugin's: the path of the plugin loaded in its place, so that the
   * latter's init failure can name it; "" in the failures. */
  char shadowed_by[4096];
} khost__load_failure;

/* All plugins found so far, every failure, and the plugins that a plugin of the
 * same name from an earlier search folder shadows (stage DUPLICATE, not
 * failures). Owns the libraries it opened. */
typedef struct khost__registry {
  int nplugins;
  khost__plugin *plugins;
  int nfailures;
  khost__load_failure *failures;
  int nshadowed;
  khost__load_failure *shadowed;
  int nsearch_folders; /* search folders scanned so far */
} khost__registry;

/* Name of a stage as shown to users ("dlopen", "symbol", ...). Static string. */
const char *khost__load_stage_name(khost__load_stage stage);

/* The stage of a failure as shown to users: the plugin's own name under
 * KHOST__STAGE_NAMED, else khost__load_stage_name. Borrowed from f or static. */
const char *khost__load_failure_stage(const khost__load_failure *f);

/* Loads one file: dlopen, the entry's descriptor (or, from a library that
 * exports the ABI 1.2 set entry, each descriptor of its set, and each part the
 * set says failed), and its check in a child process (descriptor.h), so that a
 * descriptor that cannot be read fails that plugin only. A plugin that fails is recorded in reg->failures and
 * the call still returns 0; only running out of memory or of processes is an error. */
int khost__registry_add_file(khost__registry *reg, const char *path, khost__err *err);

/* Loads every *.so in dir and in its direct subfolders, in name order. A
 * missing dir is not an error (discovery paths are optional). */
int khost__registry_add_dir(khost__registry *reg, const char *dir, khost__err *err);

/* As khost__registry_add_dir, for the next folder of a search path (as PATH): a
 * plugin whose name is already loaded from an earlier search folder is
 * shadowed, not a failure, so that a build's own plugins take precedence over
 * an installed copy. Two of a name in one folder stay a duplicate failure. */
int khost__registry_search_dir(khost__registry *reg, const char *dir, khost__err *err);

/* Records a failure of the plugin at path (copied). 0 or KHOST__E_NOMEM. */
int khost__registry_add_failure(khost__registry *reg, const char *path, khost__load_stage stage,
                                const char *reason, khost__err *err);

/* Unloads plugin `index` and removes it from the list. */
void khost__registry_remove(khost__registry *reg, int index);

/* Calls every plugin's init() (and fini()) in a child process and moves those
 * that fail, crash or stay silent longer than timeout_s (<= 0: no limit) to the
 * failures with stage INIT. The parent stays free of whatever init touches (a
 * CUDA context must never exist before fork). A plugin that fails stays the one
 * of its name, as in PATH, so its failure's reason ends by naming the copies it
 * shadows: they are not tried in its place. */
int khost__registry_probe_init(khost__registry *reg, double timeout_s, khost__err *err);

/* The plugin called name, or NULL. Borrowed pointer into reg. */
const khost__plugin *khost__registry_find(const khost__registry *reg, const char *name);

/* The plugin's kernel for (op, device), or NULL. Borrowed from the library. */
const khost_kernel *khost__plugin_kernel(const khost__plugin *p, const char *op, int device_type);

/* A kernel's optional functions, NULL when absent or outside its struct_size. */
khost_supports_fn khost__kernel_supports(const khost_kernel *k);
khost_workspace_fn khost__kernel_workspace(const khost_kernel *k);
khost_describe_fn khost__kernel_describe(const khost_kernel *k);
khost_call_overhead_fn khost__kernel_call_overhead(const khost_kernel *k);
/* Its KHOST_KERNEL_* flags, 0 when its struct_size ends before flags (ABI < 1.3). */
uint32_t khost__kernel_flags(const khost_kernel *k);

/* Comma-separated plugin names into buf (for "unknown backend" messages). */
void khost__registry_names(const khost__registry *reg, char *buf, size_t size);

/* Closes every library and frees the arrays. */
void khost__registry_free(khost__registry *reg);

#endif

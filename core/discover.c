#include "discover.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "folder.h"
#include "start_folder.h"

static int add_exe_dir(khost__registry *reg, khost__err *err)
{
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 16);
  if (n <= 0) return KHOST__OK;
  exe[n] = '\0';
  char *slash = strrchr(exe, '/');
  if (!slash) return KHOST__OK;
  strcpy(slash, "/plugins");
  return khost__registry_search_dir(reg, exe, err);
}

static int add_path_list(khost__registry *reg, const char *list, khost__err *err)
{
  char *copy = list ? strdup(list) : NULL;
  if (list && !copy) return khost__errorf(err, KHOST__E_NOMEM, "out of memory reading KHOST_PLUGIN_PATH");
  int rc = KHOST__OK;
  char *save = NULL;
  char at[PATH_MAX];
  for (char *dir = copy ? strtok_r(copy, ":", &save) : NULL; dir && rc == KHOST__OK;
       dir = strtok_r(NULL, ":", &save))
    rc = khost__registry_search_dir(reg, khost__start_folder_path(dir, at, sizeof at), err);
  free(copy);
  return rc;
}

/* A folder the user named: unlike the search paths, it must be there. */
static int add_named_dir(khost__registry *reg, const char *dir, khost__err *err)
{
  char at[PATH_MAX];
  int rc = khost__folder_check("--plugin-dir", dir, R_OK | X_OK, err);
  return rc == KHOST__OK ? khost__registry_add_dir(reg, khost__start_folder_path(dir, at, sizeof at), err)
                         : rc;
}

/* A file the user named: a missing one is a typo to report (exit 2), as for
 * --plugin-dir; one that is there but does not load is recorded like any other. */
static int add_named_file(khost__registry *reg, const char *file, khost__err *err)
{
  char buf[PATH_MAX];
  const char *at = khost__start_folder_path(file, buf, sizeof buf);
  if (access(at, F_OK) != 0)
    return khost__errorf(err, KHOST__E_CONFIG, "--plugin %s: %s", file, strerror(errno));
  return khost__registry_add_file(reg, at, err);
}

int khost__discover(khost__registry *reg, const khost__options *o, khost__err *err)
{
  int rc = add_exe_dir(reg, err);
  if (rc == KHOST__OK) rc = add_path_list(reg, getenv("KHOST_PLUGIN_PATH"), err);
  if (rc == KHOST__OK) rc = khost__registry_search_dir(reg, KHOST_PLUGIN_INSTALL_DIR, err);
  for (int i = 0; i < o->nplugin_dirs && rc == KHOST__OK; i++)
    rc = add_named_dir(reg, o->plugin_dirs[i], err);
  for (int i = 0; i < o->nplugin_files && rc == KHOST__OK; i++)
    rc = add_named_file(reg, o->plugin_files[i], err);
  if (rc == KHOST__OK) rc = khost__registry_probe_init(reg, o->timeout_s, err);
  return rc;
}

static void list_kernels(FILE *out, const khost_plugin *d)
{
  fprintf(out, "    ops:");
  for (int k = 0; k < d->nkernels; k++)
    fprintf(out, "%s %s (%s)", k ? "," : "", d->kernels[k]->op,
            d->kernels[k]->device_type == KHOST_DEVICE_CUDA ? "cuda" : "cpu");
  fprintf(out, "\n");
}

void khost__discover_list(FILE *out, const khost__registry *reg)
{
  fprintf(out, "plugins (%d loaded):\n", reg->nplugins);
  for (int i = 0; i < reg->nplugins; i++) {
    const khost_plugin *d = reg->plugins[i].desc;
    fprintf(out, "  %-12s %-10s %-8s %s\n", d->name, d->version ? d->version : "?",
            d->language ? d->language : "?", reg->plugins[i].path);
    if (d->description && *d->description) fprintf(out, "    %s\n", d->description);
    list_kernels(out, d);
  }
  if (reg->nshadowed) fprintf(out, "shadowed, not loaded (%d):\n", reg->nshadowed);
  for (int i = 0; i < reg->nshadowed; i++)
    fprintf(out, "  %s\n    %s\n", reg->shadowed[i].path, reg->shadowed[i].reason);
  fprintf(out, "load failures (%d):\n", reg->nfailures);
  for (int i = 0; i < reg->nfailures; i++)
    fprintf(out, "  %s\n    stage %s: %s\n", reg->failures[i].path,
            khost__load_failure_stage(&reg->failures[i]), reg->failures[i].reason);
}

/* Python modules into khost backends (backends.h). */
#include "backends.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interpreter.h"
#include "slots.h"

#define MAX_BACKENDS 64
#define MAX_FAILURES 64

static khost_plugin plugins[MAX_BACKENDS];
static const khost_plugin *plugin_list[MAX_BACKENDS];
static khost_kernel kernels[KHOST__PYTHON_SLOTS];
static const khost_kernel *kernel_list[KHOST__PYTHON_SLOTS];
static int nslots;
static khost_plugin_failure failures[MAX_FAILURES];
static const khost_plugin_failure *failure_list[MAX_FAILURES];

/* In every process khost forks: Python's after-fork work. Shared by all backends. */
static int init(char *err, size_t err_size)
{
  (void)err;
  (void)err_size;
  khost__interpreter_after_fork();
  return KHOST_STATUS_OK;
}

void khost__python_backends_fail(khost_plugin_set *set, const char *source, const char *message)
{
  if (set->nfailures == MAX_FAILURES) return;
  khost_plugin_failure *f = &failures[set->nfailures];
  *f = (khost_plugin_failure){.struct_size = sizeof *f,
                              .source = strdup(source),
                              .stage = KHOST__PYTHON_STAGE,
                              .message = strdup(message)};
  failure_list[set->nfailures++] = f;
  set->failures = failure_list;
}

/* Item i of a sequence as a new string (NULL for None or on error). */
static char *text_at(PyObject *seq, Py_ssize_t i)
{
  PyObject *item = khost__py.PySequence_GetItem(seq, i);
  const char *utf8 = item && item != khost__py.none ? khost__py.PyUnicode_AsUTF8AndSize(item, NULL) : NULL;
  char *copy = utf8 ? strdup(utf8) : NULL;
  KHOST__PY_RELEASE(item);
  return copy;
}

/* Item i as a new reference, NULL for None. */
static PyObject *function_at(PyObject *seq, Py_ssize_t i)
{
  PyObject *item = khost__py.PySequence_GetItem(seq, i);
  if (item == khost__py.none) KHOST__PY_RELEASE(item), item = NULL;
  return item;
}

/* One (op, device, run, supports, describe) of the helper into the next slot. */
static void take_kernel(PyObject *entry)
{
  int i = nslots++;
  PyObject *device = khost__py.PySequence_GetItem(entry, 1);
  kernels[i] = khost__python_slot_kernel(i);
  kernels[i].op = text_at(entry, 0);
  kernels[i].device_type = device ? (int32_t)khost__py.PyLong_AsLongLong(device) : 0;
  KHOST__PY_RELEASE(device);
  khost__python_kernels[i] =
      (khost__python_kernel){function_at(entry, 2), function_at(entry, 3), function_at(entry, 4)};
  kernel_list[i] = &kernels[i];
}

/* The helper's (name, version, description, kernels) into *p; -1 with why
 * when the kernels do not fit in the slots left. */
static int take_backend(PyObject *loaded, const char *source, khost_plugin *p, char *why, size_t n)
{
  PyObject *list = khost__py.PySequence_GetItem(loaded, 3);
  Py_ssize_t count = list ? khost__py.PySequence_Size(list) : 0;
  int rc = -1;
  if (nslots + count > KHOST__PYTHON_SLOTS) {
    snprintf(why, n, "%zd kernels: the Python backends of one run may have %d in all, %d are taken", count,
             KHOST__PYTHON_SLOTS, nslots);
  } else {
    const khost_kernel **first = &kernel_list[nslots];
    for (Py_ssize_t k = 0; k < count; k++) {
      PyObject *entry = khost__py.PySequence_GetItem(list, k);
      take_kernel(entry);
      KHOST__PY_RELEASE(entry);
    }
    char *description = text_at(loaded, 2), about[256];
    snprintf(about, sizeof about, "%s%s(%s)", description ? description : "", description ? " " : "", source);
    free(description);
    rc = 0;
    *p = (khost_plugin){.magic = KHOST_PLUGIN_MAGIC,
                        .abi_major = KHOST_ABI_MAJOR,
                        .abi_minor = KHOST_ABI_MINOR,
                        .struct_size = sizeof(khost_plugin),
                        .name = text_at(loaded, 0),
                        .version = text_at(loaded, 1),
                        .language = "python",
                        .description = strdup(about),
                        .nkernels = (int32_t)count,
                        .kernels = first,
                        .init = init};
  }
  KHOST__PY_RELEASE(list);
  return rc;
}

/* One module: a backend, or a failure with the exception's last lines. */
static void load_one(const char *source, khost_plugin_set *set)
{
  char why[4096];
  if (set->nplugins == MAX_BACKENDS) {
    snprintf(why, sizeof why, "more than %d Python backends", MAX_BACKENDS);
    return khost__python_backends_fail(set, source, why);
  }
  PyObject *load = khost__py.PyObject_GetAttrString(khost__interpreter_helper(), "load");
  PyObject *name = khost__py.PyUnicode_DecodeFSDefault(source);
  PyObject *loaded = load && name ? khost__py.PyObject_CallFunctionObjArgs(load, name, NULL) : NULL;
  KHOST__PY_RELEASE(load, name);
  if (!loaded) {
    khost__interpreter_error(why, sizeof why);
    return khost__python_backends_fail(set, source, why);
  }
  int rc = take_backend(loaded, source, &plugins[set->nplugins], why, sizeof why);
  KHOST__PY_RELEASE(loaded);
  if (rc != 0) return khost__python_backends_fail(set, source, why);
  plugin_list[set->nplugins] = &plugins[set->nplugins];
  set->nplugins++;
  set->plugins = plugin_list;
}

static int python_file(const struct dirent *e)
{
  size_t n = strlen(e->d_name);
  return e->d_name[0] != '_' && e->d_name[0] != '.' && n > 3 && !strcmp(e->d_name + n - 3, ".py");
}

void khost__python_backends_load(const char *plugin_dir, khost_plugin_set *set)
{
  const char *named = getenv("KHOST_PYTHON_BACKENDS");
  char *copy = named ? strdup(named) : NULL;
  for (char *save = NULL, *s = copy ? strtok_r(copy, ":", &save) : NULL; s; s = strtok_r(NULL, ":", &save))
    load_one(s, set);
  free(copy);
  char folder[4096], path[4096 + 256];
  snprintf(folder, sizeof folder, "%s/backends", plugin_dir);
  struct dirent **list = NULL;
  int n = scandir(folder, &list, python_file, alphasort);
  for (int i = 0; i < n; i++) {
    snprintf(path, sizeof path, "%s/%s", folder, list[i]->d_name);
    load_one(path, set);
    free(list[i]);
  }
  free(list);
}

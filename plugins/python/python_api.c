/* The stable-ABI table of python_api.h, filled with dlsym from the libpython
 * that libpython.c opened. */
#include "python_api.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

khost__python_api khost__py;

/* dlsym's object pointer into a function pointer member (POSIX guarantees the
 * round trip; C does not, hence the memcpy). */
static int take(void *lib, const char *name, void *member, size_t size, int required, char *why, size_t n)
{
  void *sym = dlsym(lib, name);
  if (!sym && required) {
    snprintf(why, n, "the libpython has no %s (a Python older than 3.10?)", name);
    return -1;
  }
  memcpy(member, &sym, size);
  return 0;
}

/* Exported data objects: _Py_NoneStruct is the object itself, PyExc_* point to one. */
static int take_data(void *lib, char *why, size_t n)
{
  PyObject **type_error = dlsym(lib, "PyExc_TypeError");
  PyObject **value_error = dlsym(lib, "PyExc_ValueError");
  PyObject **buffer_error = dlsym(lib, "PyExc_BufferError");
  khost__py.none = dlsym(lib, "_Py_NoneStruct");
  if (!type_error || !value_error || !buffer_error || !khost__py.none) {
    snprintf(why, n, "the libpython lacks _Py_NoneStruct or PyExc_TypeError, ValueError or BufferError");
    return -1;
  }
  khost__py.type_error = *type_error;
  khost__py.value_error = *value_error;
  khost__py.buffer_error = *buffer_error;
  return 0;
}

int khost__python_api_resolve(void *lib, char *why, size_t n)
{
#define KHOST__PY_TAKE(ret, name, params)                                                                    \
  if (take(lib, #name, &khost__py.name, sizeof khost__py.name, 1, why, n)) return -1;
#define KHOST__PY_TAKE_OPTIONAL(ret, name, params)                                                           \
  take(lib, #name, &khost__py.name, sizeof khost__py.name, 0, why, n);
  KHOST__PY_FUNCTIONS(KHOST__PY_TAKE)
  KHOST__PY_OPTIONAL(KHOST__PY_TAKE_OPTIONAL)
#undef KHOST__PY_TAKE
#undef KHOST__PY_TAKE_OPTIONAL
  return take_data(lib, why, n);
}

void khost__python_release(PyObject *const *objects, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (objects[i]) khost__py.Py_DecRef(objects[i]);
}

/* Finding and opening the libpython of the Python found at run time, not at
 * build time: KHOST_PYTHON names a python executable or a libpython; without
 * it, `python3` on PATH. An executable is asked (in a subprocess) where its
 * shared library is, its home and its sys.path, so that the embedded
 * interpreter sees the same modules as that python (a virtual environment's
 * included). */
#ifndef KHOST_PYTHON_LIBPYTHON_H
#define KHOST_PYTHON_LIBPYTHON_H

#include <stddef.h>

typedef struct khost__libpython {
  void *lib;          /* dlopen handle (RTLD_GLOBAL: extension modules resolve Py* in it) */
  char library[4096]; /* the file opened */
  char home[4096];    /* sys.base_prefix of the python asked; "" when KHOST_PYTHON named the library */
  char *path;         /* sys.path of the python asked, one entry per line; NULL as for home. malloc'd */
} khost__libpython;

/* Finds and opens libpython into *found. On failure returns -1 with a message in
 * why (n bytes) that names everything searched. Free found->path when done. */
int khost__libpython_open(khost__libpython *found, char *why, size_t n);

#endif

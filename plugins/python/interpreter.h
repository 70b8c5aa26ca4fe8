/* The embedded interpreter: started once, in khost's process, when the plugin's
 * entry runs (so that start-up and imports happen before any case, outside every
 * timed region), and inherited by every process khost forks from it. */
#ifndef KHOST_PYTHON_INTERPRETER_H
#define KHOST_PYTHON_INTERPRETER_H

#include <stddef.h>

#include "python_api.h"

/* Opens libpython (libpython.h), starts the interpreter with the sys.path of
 * the python found, and loads the plugin's helper module, khost_python.py from
 * plugin_dir. On failure returns -1 with why (n bytes) naming what failed; a
 * start that would abort is tried in a child process first, so it fails the
 * plugin, not khost. */
int khost__interpreter_start(const char *plugin_dir, char *why, size_t n);

/* The helper module (khost_python.py). Borrowed; valid once started. */
PyObject *khost__interpreter_helper(void);

/* In a process forked after the start (a worker): Python's own after-fork
 * work, once. A no-op in the process that started the interpreter. */
void khost__interpreter_after_fork(void);

/* The pending Python exception as the helper formats it (its last traceback
 * lines, at most n bytes with the NUL), cleared. */
void khost__interpreter_error(char *buf, size_t n);

#endif

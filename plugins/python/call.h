/* One call into a Python kernel: khost's khost_input turned into the arguments
 * of the module's run(inputs, outputs, params, stream), supports(inputs,
 * outputs, params) or describe(inputs, outputs, params), and what they return
 * or raise turned back into a status and message. Each takes the GIL for the
 * call (the process's one thread holds it already: cheap). */
#ifndef KHOST_PYTHON_CALL_H
#define KHOST_PYTHON_CALL_H

#include "khost/plugin.h"
#include "python_api.h"

/* A module's kernel: its functions (strong references; supports and describe
 * NULL when the module gave none). */
typedef struct khost__python_kernel {
  PyObject *run, *supports, *describe;
} khost__python_kernel;

/* run(): None (outputs written in place) or the outputs returned (returned.h).
 * An exception is KHOST_STATUS_INTERNAL with its traceback's last lines. */
int khost__python_run(const khost__python_kernel *k, const khost_input *in);

/* supports(): None or True accepts; a str declines with that reason, False
 * with none given. No supports() accepts every input. */
int khost__python_supports(const khost__python_kernel *k, const khost_input *in);

/* describe(), or the run function's name without one. */
int khost__python_describe(const khost__python_kernel *k, const khost_input *in, char *buf, size_t size);

/* The Python overhead inside every run(): the median of 101 calls of the
 * helper's empty kernel, each with its arguments built as run()'s are (the
 * same for every kernel, hence no kernel argument). */
int khost__python_call_overhead(const khost_input *in, double *seconds);

#endif

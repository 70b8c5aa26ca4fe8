/* Calls into a Python kernel (call.h). */
#include "call.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "interpreter.h"
#include "returned.h"
#include "tensor.h"

/* The op's parameters as {name: value}. New reference, or NULL with an exception. */
static PyObject *params_dict(const khost_input *in)
{
  PyObject *params = khost__py.PyDict_New();
  for (int32_t i = 0; params && i < in->nparams; i++) {
    PyObject *v = khost__py.PyLong_FromLongLong(in->params[i].value);
    int rc = v ? khost__py.PyDict_SetItemString(params, in->params[i].name, v) : -1;
    KHOST__PY_RELEASE(v);
    if (rc != 0) KHOST__PY_RELEASE(params), params = NULL;
  }
  return params;
}

/* (inputs, outputs, params) and, for run(), the stream as an integer (0 on the CPU). */
static PyObject *arguments(const khost_input *in, int with_stream)
{
  int n = with_stream ? 4 : 3;
  PyObject *parts[4] = {khost__tensor_tuple(in->inputs, in->ninputs),
                        khost__tensor_tuple(in->outputs, in->noutputs), params_dict(in),
                        with_stream ? khost__py.PyLong_FromVoidPtr(in->stream) : NULL};
  PyObject *args = khost__py.PyTuple_New(n);
  int complete = args != NULL;
  for (int i = 0; i < n; i++) {
    complete = complete && parts[i];
    if (args && parts[i])
      khost__py.PyTuple_SetItem(args, i, parts[i]); /* steals the reference */
    else
      KHOST__PY_RELEASE(parts[i]);
  }
  if (!complete) KHOST__PY_RELEASE(args);
  return complete ? args : NULL;
}

/* fn(*arguments(in)); NULL with the exception's text in buf when it raised. */
static PyObject *call(PyObject *fn, const khost_input *in, int with_stream, char *buf, size_t n)
{
  PyObject *args = arguments(in, with_stream);
  PyObject *result = args ? khost__py.PyObject_CallObject(fn, args) : NULL;
  if (args) khost__py.Py_DecRef(args);
  if (!result) khost__interpreter_error(buf, n);
  return result;
}

int khost__python_run(const khost__python_kernel *k, const khost_input *in)
{
  PyGILState_STATE gil = khost__py.PyGILState_Ensure();
  PyObject *result = call(k->run, in, 1, in->error, in->error_size);
  int status = !result                    ? KHOST_STATUS_INTERNAL
               : result == khost__py.none ? KHOST_STATUS_OK
                                          : khost__returned_copy(result, in);
  if (result) khost__py.Py_DecRef(result);
  khost__py.PyGILState_Release(gil);
  return status;
}

/* The verdict of supports(): OK, UNSUPPORTED with the reason, or INTERNAL. */
static int verdict(PyObject *result, const khost_input *in)
{
  if (result == khost__py.none) return KHOST_STATUS_OK;
  const char *reason = khost__py.PyUnicode_AsUTF8AndSize(result, NULL);
  if (reason) return snprintf(in->error, in->error_size, "%s", reason), KHOST_STATUS_UNSUPPORTED;
  khost__py.PyErr_Clear(); /* not a str */
  int yes = khost__py.PyObject_IsTrue(result);
  if (yes > 0) return KHOST_STATUS_OK;
  if (yes == 0)
    return snprintf(in->error, in->error_size, "supports() returned False"), KHOST_STATUS_UNSUPPORTED;
  khost__interpreter_error(in->error, in->error_size);
  return KHOST_STATUS_INTERNAL;
}

int khost__python_supports(const khost__python_kernel *k, const khost_input *in)
{
  if (!k->supports) return KHOST_STATUS_OK;
  PyGILState_STATE gil = khost__py.PyGILState_Ensure();
  PyObject *result = call(k->supports, in, 0, in->error, in->error_size);
  int status = result ? verdict(result, in) : KHOST_STATUS_INTERNAL;
  if (result) khost__py.Py_DecRef(result);
  khost__py.PyGILState_Release(gil);
  return status;
}

/* The module's describe(), or the name of its run function. */
static PyObject *name_of(const khost__python_kernel *k, const khost_input *in)
{
  if (k->describe) return call(k->describe, in, 0, in->error, in->error_size);
  PyObject *name = khost__py.PyObject_GetAttrString(k->run, "__name__");
  if (!name) khost__py.PyErr_Clear();
  return name ? name : khost__py.PyUnicode_FromString("run");
}

int khost__python_describe(const khost__python_kernel *k, const khost_input *in, char *buf, size_t size)
{
  PyGILState_STATE gil = khost__py.PyGILState_Ensure();
  PyObject *name = name_of(k, in);
  const char *text = name ? khost__py.PyUnicode_AsUTF8AndSize(name, NULL) : NULL;
  int status = KHOST_STATUS_OK;
  if (!text && name) {
    khost__py.PyErr_Clear();
    snprintf(in->error, in->error_size, "describe() returned no str");
    status = KHOST_STATUS_INTERNAL;
  } else if (!text) {
    status = KHOST_STATUS_INTERNAL;
  } else {
    snprintf(buf, size, "%s", text);
  }
  if (name) khost__py.Py_DecRef(name);
  khost__py.PyGILState_Release(gil);
  return status;
}

static int by_value(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Odd, so the median is one call's time; enough that a preempted call or two
 * moves it little, few enough to cost about a millisecond at most per prepared call. */
#define OVERHEAD_CALLS 101
int khost__python_call_overhead(const khost_input *in, double *seconds)
{
  PyGILState_STATE gil = khost__py.PyGILState_Ensure();
  PyObject *empty = khost__py.PyObject_GetAttrString(khost__interpreter_helper(), "empty_run");
  double t[OVERHEAD_CALLS];
  int status = KHOST_STATUS_OK;
  for (int i = 0; empty && i < OVERHEAD_CALLS && status == KHOST_STATUS_OK; i++) {
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    PyObject *r = call(empty, in, 1, in->error, in->error_size);
    clock_gettime(CLOCK_MONOTONIC, &b);
    if (!r) status = KHOST_STATUS_INTERNAL;
    KHOST__PY_RELEASE(r);
    t[i] = (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec);
  }
  if (!empty) {
    khost__interpreter_error(in->error, in->error_size);
    status = KHOST_STATUS_INTERNAL;
  }
  KHOST__PY_RELEASE(empty);
  khost__py.PyGILState_Release(gil);
  if (status != KHOST_STATUS_OK) return status;
  qsort(t, OVERHEAD_CALLS, sizeof t[0], by_value);
  *seconds = t[OVERHEAD_CALLS / 2];
  return KHOST_STATUS_OK;
}

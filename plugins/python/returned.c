/* Outputs returned by a Python kernel, copied into khost's (returned.h). */
#include "returned.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "dlpack.h"
#include "interpreter.h"
#include "tensor.h"

/* The driver's copy, opened on first use (the plugin links no CUDA library, so
 * it loads where there is no driver). */
typedef int (*memcpy_async_fn)(unsigned long long dst, unsigned long long src, size_t bytes, void *stream);

static int cuda_copy(void *dst, const void *src, size_t bytes, void *stream, char *why, size_t n)
{
  static memcpy_async_fn copy;
  if (!copy) {
    void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    void *sym = cuda ? dlsym(cuda, "cuMemcpyAsync") : NULL;
    if (!sym) return snprintf(why, n, "cannot open the CUDA driver's cuMemcpyAsync: %s", dlerror()), -1;
    memcpy(&copy, &sym, sizeof copy);
  }
  int rc = copy((unsigned long long)(uintptr_t)dst, (unsigned long long)(uintptr_t)src, bytes, stream);
  if (rc != 0) snprintf(why, n, "cuMemcpyAsync of a returned output failed with CUresult %d", rc);
  return rc != 0 ? -1 : 0;
}

static void describe_tensor(char *buf, size_t n, const char *dtype, int32_t ndim, const int64_t *shape,
                            int32_t device)
{
  size_t used = (size_t)snprintf(buf, n, "%s [", dtype);
  for (int32_t d = 0; d < ndim && used < n; d++)
    used += (size_t)snprintf(buf + used, n - used, "%s%lld", d ? ", " : "", (long long)shape[d]);
  if (used < n) snprintf(buf + used, n - used, "] on %s", device == KHOST_DEVICE_CUDA ? "cuda" : "cpu");
}

/* Whether dl has out's device, dtype and shape in out's compact row-major layout. */
static int matches(const khost__dl_tensor *dl, const khost_tensor *out)
{
  if (dl->device.device_type != out->device_type || dl->device.device_id != out->device_id ||
      dl->dtype.code != out->dtype.code || dl->dtype.bits != out->dtype.bits || dl->dtype.lanes != 1 ||
      dl->ndim != out->ndim)
    return 0;
  for (int32_t d = 0; d < out->ndim; d++)
    if (dl->shape[d] != out->shape[d] ||
        (dl->strides && out->shape[d] > 1 && dl->strides[d] != out->strides[d]))
      return 0;
  return 1;
}

/* The DLTensor of a capsule, either kind; NULL when it is neither. */
static khost__dl_tensor *tensor_of(PyObject *capsule)
{
  if (khost__py.PyCapsule_IsValid(capsule, KHOST__DLPACK_VERSIONED))
    return &((khost__dl_managed_versioned *)khost__py.PyCapsule_GetPointer(capsule, KHOST__DLPACK_VERSIONED))
                ->dl_tensor;
  if (khost__py.PyCapsule_IsValid(capsule, KHOST__DLPACK_LEGACY))
    return &((khost__dl_managed *)khost__py.PyCapsule_GetPointer(capsule, KHOST__DLPACK_LEGACY))->dl_tensor;
  return NULL;
}

/* The object's capsule: versioned where it can, legacy for older producers
 * (NumPy before 2 takes no max_version), with khost's stream for a GPU producer
 * to order its work before the copy. */
static PyObject *capsule_of(PyObject *object, const khost_tensor *out, void *stream)
{
  PyObject *method = khost__py.PyObject_GetAttrString(object, "__dlpack__");
  PyObject *args = khost__py.PyTuple_New(0), *kwargs = khost__py.PyDict_New();
  PyObject *version = khost__py.PyTuple_New(2), *capsule = NULL;
  if (method && args && kwargs && version) {
    khost__py.PyTuple_SetItem(version, 0, khost__py.PyLong_FromLongLong(KHOST__DLPACK_MAJOR));
    khost__py.PyTuple_SetItem(version, 1, khost__py.PyLong_FromLongLong(KHOST__DLPACK_MINOR));
    if (out->device_type == KHOST_DEVICE_CUDA) {
      PyObject *s = khost__py.PyLong_FromVoidPtr(stream);
      if (s) khost__py.PyDict_SetItemString(kwargs, "stream", s), khost__py.Py_DecRef(s);
    }
    khost__py.PyDict_SetItemString(kwargs, "max_version", version);
    capsule = khost__py.PyObject_Call(method, args, kwargs);
    if (!capsule) {
      khost__py.PyErr_Clear();
      khost__py.PyDict_SetItemString(kwargs, "max_version", khost__py.none);
      capsule = khost__py.PyObject_Call(method, args, kwargs);
    }
  }
  KHOST__PY_RELEASE(method, args, kwargs, version);
  return capsule;
}

/* One returned output into out; 0 or -1 with why. */
static int copy_one(PyObject *object, const khost_tensor *out, void *stream, char *why, size_t n)
{
  PyObject *capsule = capsule_of(object, out, stream);
  if (!capsule) {
    size_t used = (size_t)snprintf(why, n, "output '%s': __dlpack__() failed: ", out->name);
    khost__interpreter_error(why + used, n > used ? n - used : 1);
    return -1;
  }
  khost__dl_tensor *dl = tensor_of(capsule);
  int rc = -1;
  char got[256], want[256];
  if (!dl) {
    snprintf(why, n, "output '%s': __dlpack__() returned no DLPack capsule", out->name);
  } else if (!matches(dl, out)) {
    describe_tensor(got, sizeof got, khost__tensor_dtype_name(dl->dtype.code, dl->dtype.bits), dl->ndim,
                    dl->shape, dl->device.device_type);
    describe_tensor(want, sizeof want, khost__tensor_dtype_name(out->dtype.code, out->dtype.bits), out->ndim,
                    out->shape, out->device_type);
    snprintf(why, n, "run() returned %s for output '%s', which is %s (compact, row-major)", got, out->name,
             want);
  } else {
    const char *src = (const char *)dl->data + dl->byte_offset;
    rc = out->device_type == KHOST_DEVICE_CUDA ? cuda_copy(out->data, src, out->nbytes, stream, why, n)
                                               : (memcpy(out->data, src, out->nbytes), 0);
  }
  khost__py.Py_DecRef(capsule); /* never renamed "used": its destructor frees the producer's tensor */
  return rc;
}

int khost__returned_copy(PyObject *result, const khost_input *in)
{
  PyObject *split = khost__py.PyObject_GetAttrString(khost__interpreter_helper(), "outputs_of");
  PyObject *count = khost__py.PyLong_FromLongLong(in->noutputs);
  PyObject *items =
      split && count ? khost__py.PyObject_CallFunctionObjArgs(split, result, count, NULL) : NULL;
  int rc = items ? 0 : -1;
  if (!items) khost__interpreter_error(in->error, in->error_size);
  for (int32_t i = 0; items && i < in->noutputs && rc == 0; i++) {
    PyObject *item = khost__py.PySequence_GetItem(items, i);
    rc = item ? copy_one(item, khost_tensor_at(in->outputs, i), in->stream, in->error, in->error_size) : -1;
    if (item) khost__py.Py_DecRef(item);
  }
  KHOST__PY_RELEASE(split, count, items);
  return rc == 0 ? KHOST_STATUS_OK : KHOST_STATUS_INTERNAL;
}

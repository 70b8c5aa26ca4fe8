/* khost.Tensor and the DLPack capsules it exports (tensor.h). */
#include "tensor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dlpack.h"
#include "dtype.h"

typedef struct tensor_object {
  PyObject ob_base;
  khost_tensor t; /* a copy; shape and strides point into the arrays below */
  int64_t shape[KHOST_MAX_DIMS];
  int64_t strides[KHOST_MAX_DIMS];
  char name[64];
} tensor_object;

static PyTypeObject *tensor_type;

/* One exported capsule's memory: the managed tensor and the shape and strides it
 * points to, freed together by the deleter. */
typedef struct exported {
  union {
    khost__dl_managed legacy;
    khost__dl_managed_versioned versioned;
  } managed;
  int64_t shape[KHOST_MAX_DIMS];
  int64_t strides[KHOST_MAX_DIMS];
} exported;

static void delete_legacy(khost__dl_managed *self)
{
  free(self);
}

static void delete_versioned(khost__dl_managed_versioned *self)
{
  free(self);
}

/* A capsule nobody consumed still owns its tensor. */
static void capsule_destructor(PyObject *capsule)
{
  if (khost__py.PyCapsule_IsValid(capsule, KHOST__DLPACK_VERSIONED)) {
    khost__dl_managed_versioned *m = khost__py.PyCapsule_GetPointer(capsule, KHOST__DLPACK_VERSIONED);
    m->deleter(m);
  } else if (khost__py.PyCapsule_IsValid(capsule, KHOST__DLPACK_LEGACY)) {
    khost__dl_managed *m = khost__py.PyCapsule_GetPointer(capsule, KHOST__DLPACK_LEGACY);
    m->deleter(m);
  }
}

/* No flags: khost's inputs are read-only, but PyTorch has no read-only tensors and
 * khost checks every input by hash after the call anyway (PLUGINS.md). */
static PyObject *capsule_of(const tensor_object *self, int versioned)
{
  exported *e = calloc(1, sizeof *e);
  if (!e) return khost__py.PyErr_SetString(khost__py.buffer_error, "out of memory exporting a tensor"), NULL;
  memcpy(e->shape, self->shape, sizeof e->shape);
  memcpy(e->strides, self->strides, sizeof e->strides);
  khost__dl_tensor dl = {.data = self->t.data,
                         .device = {self->t.device_type, self->t.device_id},
                         .ndim = self->t.ndim,
                         .dtype = {self->t.dtype.code, self->t.dtype.bits, self->t.dtype.lanes},
                         .shape = e->shape,
                         .strides = e->strides};
  if (versioned) {
    e->managed.versioned = (khost__dl_managed_versioned){.major = KHOST__DLPACK_MAJOR,
                                                         .minor = KHOST__DLPACK_MINOR,
                                                         .deleter = delete_versioned,
                                                         .dl_tensor = dl};
  } else {
    e->managed.legacy = (khost__dl_managed){.dl_tensor = dl, .deleter = delete_legacy};
  }
  PyObject *capsule = khost__py.PyCapsule_New(e, versioned ? KHOST__DLPACK_VERSIONED : KHOST__DLPACK_LEGACY,
                                              capsule_destructor);
  if (!capsule) free(e);
  return capsule;
}

/* Item i of a sequence as an integer; -1 with an exception set when it is none. */
static long long item_int(PyObject *seq, Py_ssize_t i)
{
  PyObject *item = khost__py.PySequence_GetItem(seq, i);
  if (!item) return -1;
  long long v = khost__py.PyLong_AsLongLong(item);
  khost__py.Py_DecRef(item);
  return v;
}

static PyObject *keyword(PyObject *kwargs, const char *name)
{
  PyObject *v = kwargs ? khost__py.PyDict_GetItemString(kwargs, name) : NULL;
  return v == khost__py.none ? NULL : v;
}

/* __dlpack__(*, stream=None, max_version=None, dl_device=None, copy=None). The
 * data is ready on khost's stream, which the kernel is given and runs on, so a
 * consumer's stream needs no synchronisation and is ignored. A consumer that
 * names no max_version, or one below 1, gets the legacy capsule. */
static PyObject *dlpack(PyObject *object, PyObject *args, PyObject *kwargs)
{
  tensor_object *self = (tensor_object *)object;
  if (khost__py.PyTuple_Size(args) != 0)
    return khost__py.PyErr_SetString(khost__py.type_error, "__dlpack__() takes keyword arguments only"), NULL;
  PyObject *max_version = keyword(kwargs, "max_version"), *device = keyword(kwargs, "dl_device");
  PyObject *copy = keyword(kwargs, "copy");
  if (copy && khost__py.PyObject_IsTrue(copy))
    return khost__py.PyErr_SetString(khost__py.buffer_error, "khost hands over its own memory, never a copy"),
           NULL;
  if (device && (item_int(device, 0) != self->t.device_type || item_int(device, 1) != self->t.device_id))
    return khost__py.PyErr_Occurred()
               ? NULL
               : (khost__py.PyErr_SetString(khost__py.buffer_error, "a khost tensor stays on its own device"),
                  NULL);
  long long major = max_version ? item_int(max_version, 0) : 0;
  if (major < 0 && khost__py.PyErr_Occurred()) return NULL;
  return capsule_of(self, major >= 1);
}

static PyObject *dlpack_device(PyObject *object, PyObject *unused)
{
  (void)unused;
  const tensor_object *self = (const tensor_object *)object;
  PyObject *pair = khost__py.PyTuple_New(2);
  if (!pair) return NULL;
  khost__py.PyTuple_SetItem(pair, 0, khost__py.PyLong_FromLongLong(self->t.device_type));
  khost__py.PyTuple_SetItem(pair, 1, khost__py.PyLong_FromLongLong(self->t.device_id));
  return pair;
}

/* The same memory as uint8, the last dimension in bytes: for the fp8 and packed
 * fp4 types, which a library may not take through DLPack. */
static PyObject *raw(PyObject *object, PyObject *unused)
{
  (void)unused;
  const tensor_object *self = (const tensor_object *)object;
  khost_tensor t = self->t;
  int64_t shape[KHOST_MAX_DIMS], strides[KHOST_MAX_DIMS];
  memcpy(shape, self->shape, sizeof shape);
  shape[t.ndim - 1] = shape[t.ndim - 1] * t.dtype.bits / 8;
  for (int32_t d = t.ndim - 1, step = 1; d >= 0; step *= (int32_t)shape[d], d--) strides[d] = step;
  t.dtype = (khost_dtype){KHOST_DTYPE_UINT, 8, 1};
  t.shape = shape;
  t.strides = strides;
  t.name = self->name;
  return khost__tensor_new(&t);
}

static PyObject *get_shape(PyObject *object, void *closure)
{
  (void)closure;
  const tensor_object *self = (const tensor_object *)object;
  PyObject *shape = khost__py.PyTuple_New(self->t.ndim);
  for (int32_t d = 0; shape && d < self->t.ndim; d++)
    khost__py.PyTuple_SetItem(shape, d, khost__py.PyLong_FromLongLong(self->shape[d]));
  return shape;
}

const char *khost__tensor_dtype_name(uint8_t code, uint8_t bits)
{
#define KHOST__PY_DTYPE(id, n, c, b, descr, decode)                                                          \
  if (code == (c) && bits == (b)) return n;
  KHOST__DTYPE_TABLE(KHOST__PY_DTYPE)
#undef KHOST__PY_DTYPE
  return "?";
}

static PyObject *get_dtype(PyObject *object, void *closure)
{
  (void)closure;
  khost_dtype dt = ((const tensor_object *)object)->t.dtype;
  return khost__py.PyUnicode_FromString(khost__tensor_dtype_name(dt.code, dt.bits));
}

static PyObject *get_device(PyObject *object, void *closure)
{
  (void)closure;
  int cuda = ((const tensor_object *)object)->t.device_type == KHOST_DEVICE_CUDA;
  return khost__py.PyUnicode_FromString(cuda ? "cuda" : "cpu");
}

static PyObject *get_name(PyObject *object, void *closure)
{
  (void)closure;
  return khost__py.PyUnicode_FromString(((const tensor_object *)object)->name);
}

static PyObject *get_data_ptr(PyObject *object, void *closure)
{
  (void)closure;
  return khost__py.PyLong_FromVoidPtr(((const tensor_object *)object)->t.data);
}

static PyObject *get_nbytes(PyObject *object, void *closure)
{
  (void)closure;
  return khost__py.PyLong_FromLongLong((long long)((const tensor_object *)object)->t.nbytes);
}

static void dealloc(PyObject *object)
{
  PyTypeObject *type = Py_TYPE(object);
  khost__py.PyObject_Free(object);
  khost__py.Py_DecRef((PyObject *)type);
}

static PyMethodDef methods[] = {
    {"__dlpack__", (PyCFunction)(void (*)(void))dlpack, METH_VARARGS | METH_KEYWORDS,
     "A DLPack capsule of khost's memory (versioned when max_version >= (1, 0))."},
    {"__dlpack_device__", dlpack_device, METH_NOARGS, "(device type, device id), DLPack's codes."},
    {"raw", raw, METH_NOARGS, "The same memory as uint8, the last dimension counted in bytes."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef getset[] = {
    {"shape", get_shape, NULL, "extents, in elements", NULL},
    {"dtype", get_dtype, NULL, "khost's dtype name: fp16, bf16, fp32, e4m3, e2m1, ...", NULL},
    {"device", get_device, NULL, "'cpu' or 'cuda'", NULL},
    {"name", get_name, NULL, "the op's name for the tensor", NULL},
    {"data_ptr", get_data_ptr, NULL, "the address of the first element", NULL},
    {"nbytes", get_nbytes, NULL, "bytes of storage", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

int khost__tensor_type_init(void)
{
  PyType_Slot slots[] = {
      {Py_tp_dealloc, (void *)dealloc},
      {Py_tp_methods, methods},
      {Py_tp_getset, getset},
      {Py_tp_doc, (void *)"A tensor khost owns, valid during one call; hand it on with from_dlpack."},
      {0, NULL},
  };
  PyType_Spec spec = {.name = "khost.Tensor",
                      .basicsize = (int)sizeof(tensor_object),
                      .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,
                      .slots = slots};
  tensor_type = (PyTypeObject *)khost__py.PyType_FromSpec(&spec);
  return tensor_type ? 0 : -1;
}

PyObject *khost__tensor_new(const khost_tensor *t)
{
  tensor_object *self = khost__py.PyObject_Malloc(sizeof *self);
  if (!self) return NULL;
  if (!khost__py.PyObject_Init((PyObject *)self, tensor_type)) return khost__py.PyObject_Free(self), NULL;
  self->t = *t;
  self->t.ndim = t->ndim < KHOST_MAX_DIMS ? t->ndim : KHOST_MAX_DIMS;
  memcpy(self->shape, t->shape, (size_t)self->t.ndim * sizeof self->shape[0]);
  memcpy(self->strides, t->strides, (size_t)self->t.ndim * sizeof self->strides[0]);
  snprintf(self->name, sizeof self->name, "%s", t->name ? t->name : "");
  self->t.shape = self->shape;
  self->t.strides = self->strides;
  self->t.name = self->name;
  return (PyObject *)self;
}

PyObject *khost__tensor_tuple(const khost_tensor *array, int32_t n)
{
  PyObject *tuple = khost__py.PyTuple_New(n);
  for (int32_t i = 0; tuple && i < n; i++) {
    PyObject *t = khost__tensor_new(khost_tensor_at(array, i));
    if (!t) {
      khost__py.Py_DecRef(tuple);
      return NULL;
    }
    khost__py.PyTuple_SetItem(tuple, i, t);
  }
  return tuple;
}

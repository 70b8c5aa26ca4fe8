/* The CPython functions the python plugin calls, as one table of pointers that
 * python_api.c fills with dlsym from the libpython found at run time
 * (libpython.h). The plugin is built against the headers of whatever Python the
 * build machine has, under Py_LIMITED_API 3.10, and links no libpython: the
 * table is what lets one build run with any Python 3 from 3.10 on. Code of the
 * plugin calls khost__py.Name(...) and never a Py* function directly (the link,
 * with --no-undefined, refuses one); the headers' inline reference counting is
 * avoided for the same reason (Py_DECREF calls _Py_Dealloc): use Py_IncRef and
 * Py_DecRef from the table. */
#ifndef KHOST_PYTHON_API_H
#define KHOST_PYTHON_API_H

#define Py_LIMITED_API 0x030A0000
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stddef.h>

/* X(return type, name, (parameters)): every function of the stable ABI used. */
#define KHOST__PY_FUNCTIONS(X)                                                                               \
  X(void, Py_InitializeEx, (int))                                                                            \
  X(int, Py_IsInitialized, (void))                                                                           \
  X(wchar_t *, Py_DecodeLocale, (const char *, size_t *))                                                    \
  X(PyGILState_STATE, PyGILState_Ensure, (void))                                                             \
  X(void, PyGILState_Release, (PyGILState_STATE))                                                            \
  X(void, Py_IncRef, (PyObject *))                                                                           \
  X(void, Py_DecRef, (PyObject *))                                                                           \
  X(PyObject *, Py_CompileString, (const char *, const char *, int))                                         \
  X(PyObject *, PyImport_ExecCodeModuleEx, (const char *, PyObject *, const char *))                         \
  X(PyObject *, PyObject_GetAttrString, (PyObject *, const char *))                                          \
  X(PyObject *, PyObject_Call, (PyObject *, PyObject *, PyObject *))                                         \
  X(PyObject *, PyObject_CallObject, (PyObject *, PyObject *))                                               \
  X(int, PyObject_IsTrue, (PyObject *))                                                                      \
  X(PyObject *, PyObject_Init, (PyObject *, PyTypeObject *))                                                 \
  X(void *, PyObject_Malloc, (size_t))                                                                       \
  X(void, PyObject_Free, (void *))                                                                           \
  X(PyObject *, PyType_FromSpec, (PyType_Spec *))                                                            \
  X(PyObject *, PyTuple_New, (Py_ssize_t))                                                                   \
  X(int, PyTuple_SetItem, (PyObject *, Py_ssize_t, PyObject *))                                              \
  X(PyObject *, PyTuple_GetItem, (PyObject *, Py_ssize_t))                                                   \
  X(PyObject *, PySequence_GetItem, (PyObject *, Py_ssize_t))                                                \
  X(Py_ssize_t, PySequence_Size, (PyObject *))                                                               \
  X(PyObject *, PyObject_CallFunctionObjArgs, (PyObject *, ...))                                             \
  X(Py_ssize_t, PyTuple_Size, (PyObject *))                                                                  \
  X(PyObject *, PyList_New, (Py_ssize_t))                                                                    \
  X(int, PyList_Append, (PyObject *, PyObject *))                                                            \
  X(PyObject *, PyDict_New, (void))                                                                          \
  X(int, PyDict_SetItemString, (PyObject *, const char *, PyObject *))                                       \
  X(PyObject *, PyDict_GetItemString, (PyObject *, const char *))                                            \
  X(PyObject *, PyLong_FromLongLong, (long long))                                                            \
  X(PyObject *, PyLong_FromVoidPtr, (void *))                                                                \
  X(long long, PyLong_AsLongLong, (PyObject *))                                                              \
  X(PyObject *, PyBool_FromLong, (long))                                                                     \
  X(PyObject *, PyUnicode_FromString, (const char *))                                                        \
  X(PyObject *, PyUnicode_DecodeFSDefault, (const char *))                                                   \
  X(const char *, PyUnicode_AsUTF8AndSize, (PyObject *, Py_ssize_t *))                                       \
  X(int, PySys_SetObject, (const char *, PyObject *))                                                        \
  X(PyObject *, PyErr_Occurred, (void))                                                                      \
  X(void, PyErr_Fetch, (PyObject **, PyObject **, PyObject **))                                              \
  X(void, PyErr_NormalizeException, (PyObject **, PyObject **, PyObject **))                                 \
  X(void, PyErr_Clear, (void))                                                                               \
  X(void, PyErr_SetString, (PyObject *, const char *))                                                       \
  X(PyObject *, PyCapsule_New, (void *, const char *, PyCapsule_Destructor))                                 \
  X(void *, PyCapsule_GetPointer, (PyObject *, const char *))                                                \
  X(int, PyCapsule_IsValid, (PyObject *, const char *))                                                      \
  X(int, PyCapsule_SetName, (PyObject *, const char *))

/* Functions some supported versions lack or deprecate: NULL when absent. */
#define KHOST__PY_OPTIONAL(X)                                                                                \
  X(void, Py_SetPythonHome, (const wchar_t *))                                                               \
  X(void, PyOS_AfterFork_Child, (void))

#define KHOST__PY_MEMBER(ret, name, params) ret(*name) params;

typedef struct khost__python_api {
  KHOST__PY_FUNCTIONS(KHOST__PY_MEMBER)
  KHOST__PY_OPTIONAL(KHOST__PY_MEMBER)
  /* Objects of the stable ABI, exported as data. */
  PyObject *none;         /* _Py_NoneStruct */
  PyObject *type_error;   /* *PyExc_TypeError */
  PyObject *value_error;  /* *PyExc_ValueError */
  PyObject *buffer_error; /* *PyExc_BufferError */
} khost__python_api;

/* The table, filled once by khost__python_api_resolve. */
extern khost__python_api khost__py;

/* Fills khost__py from lib (a dlopen handle of libpython). On a missing symbol,
 * returns -1 with its name in why (n bytes). */
int khost__python_api_resolve(void *lib, char *why, size_t n);

/* Py_DecRef of each non-NULL object of the array: the end of a function that owned them. */
void khost__python_release(PyObject *const *objects, size_t n);
#define KHOST__PY_RELEASE(...)                                                                               \
  khost__python_release((PyObject *const[]){__VA_ARGS__},                                                    \
                        sizeof((PyObject *const[]){__VA_ARGS__}) / sizeof(PyObject *))

#endif

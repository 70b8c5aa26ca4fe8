/* The embedded interpreter (interpreter.h). */
#include "interpreter.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libpython.h"
#include "tensor.h"

static PyObject *helper;
static pid_t started_in, after_fork_in;
/* Py_SetPythonHome's argument must outlive the interpreter (Python's rule,
 * though some versions copy it): held here for the life of the process.
 * volatile: a pointer stored and never read back would be optimised away. */
static wchar_t *volatile python_home;

PyObject *khost__interpreter_helper(void)
{
  return helper;
}

/* Py_InitializeEx aborts the process when it cannot start (no encodings module
 * under the home it computed): tried in a child first, whose death is only this
 * plugin's failure. */
static int trial_start(char *why, size_t n)
{
  pid_t pid = fork();
  if (pid < 0) return snprintf(why, n, "fork: %s", strerror(errno)), -1;
  if (pid == 0) {
    khost__py.Py_InitializeEx(0);
    _exit(khost__py.Py_IsInitialized() ? 0 : 1);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return 0;
  if (WIFSIGNALED(status))
    snprintf(why, n, "the interpreter could not start (a trial start died of signal %d: %s)",
             WTERMSIG(status), strsignal(WTERMSIG(status)));
  else
    snprintf(why, n, "the interpreter could not start (a trial start exited with status %d)",
             WEXITSTATUS(status));
  return -1;
}

/* sys.path as the python asked reported it, one entry a line. Empty entries
 * are left out: the one of `python -c` is the working folder, and khost's
 * working folder is no place to import from. */
static int set_path(char *lines)
{
  PyObject *list = khost__py.PyList_New(0);
  int rc = list ? 0 : -1;
  /* strtok_r passes over empty lines, leading ones included. */
  for (char *save = NULL, *entry = strtok_r(lines, "\n", &save); entry && rc == 0;
       entry = strtok_r(NULL, "\n", &save)) {
    PyObject *item = khost__py.PyUnicode_DecodeFSDefault(entry);
    rc = item ? khost__py.PyList_Append(list, item) : -1;
    KHOST__PY_RELEASE(item);
  }
  if (rc == 0) rc = khost__py.PySys_SetObject("path", list);
  KHOST__PY_RELEASE(list);
  return rc;
}

/* khost_python.py, compiled and executed as the module khost_python. */
static int load_helper(const char *plugin_dir, char *why, size_t n)
{
  char path[4096];
  snprintf(path, sizeof path, "%s/khost_python.py", plugin_dir);
  FILE *f = fopen(path, "rb");
  if (!f) return snprintf(why, n, "%s: %s", path, strerror(errno)), -1;
  char *source = NULL;
  size_t size = 0;
  FILE *text = open_memstream(&source, &size);
  char block[4096];
  for (size_t got; text && (got = fread(block, 1, sizeof block, f)) > 0;) fwrite(block, 1, got, text);
  fclose(f);
  if (text) fclose(text);
  if (!source) return snprintf(why, n, "out of memory reading %s", path), -1;
  PyObject *code = khost__py.Py_CompileString(source, path, Py_file_input);
  free(source);
  helper = code ? khost__py.PyImport_ExecCodeModuleEx("khost_python", code, path) : NULL;
  if (code) khost__py.Py_DecRef(code);
  if (helper) return 0;
  size_t used = (size_t)snprintf(why, n, "%s: ", path);
  khost__interpreter_error(why + (used < n ? used : n - 1), used < n ? n - used : 1);
  return -1;
}

static int start(khost__libpython *found, char *why, size_t n)
{
  if (khost__python_api_resolve(found->lib, why, n) != 0) return -1;
  if (khost__py.Py_IsInitialized()) return 0; /* another plugin of this process embeds the same Python */
  if (found->home[0] && khost__py.Py_SetPythonHome) {
    python_home = khost__py.Py_DecodeLocale(found->home, NULL);
    if (python_home) khost__py.Py_SetPythonHome(python_home);
  }
  if (trial_start(why, n) != 0) return -1;
  khost__py.Py_InitializeEx(0); /* 0: Python installs no signal handlers in khost */
  started_in = after_fork_in = getpid();
  if (found->path && set_path(found->path) != 0) {
    snprintf(why, n, "cannot set sys.path: ");
    khost__interpreter_error(why + strlen(why), n - strlen(why));
    return -1;
  }
  return 0;
}

int khost__interpreter_start(const char *plugin_dir, char *why, size_t n)
{
  khost__libpython found;
  if (khost__libpython_open(&found, why, n) != 0) return -1;
  int rc = start(&found, why, n);
  free(found.path);
  if (rc == 0) rc = load_helper(plugin_dir, why, n);
  if (rc == 0 && khost__tensor_type_init() != 0) {
    snprintf(why, n, "cannot create khost.Tensor: ");
    khost__interpreter_error(why + strlen(why), n - strlen(why));
    rc = -1;
  }
  if (rc != 0)
    snprintf(why + strlen(why), n - strlen(why), " (libpython %s)",
             found.library[0] ? found.library : "not found");
  return rc;
}

void khost__interpreter_after_fork(void)
{
  pid_t self = getpid();
  if (started_in == 0 || self == after_fork_in) return;
  after_fork_in = self;
  if (khost__py.PyOS_AfterFork_Child) khost__py.PyOS_AfterFork_Child();
}

void khost__interpreter_error(char *buf, size_t n)
{
  PyObject *kind = NULL, *value = NULL, *tb = NULL;
  khost__py.PyErr_Fetch(&kind, &value, &tb);
  khost__py.PyErr_NormalizeException(&kind, &value, &tb);
  PyObject *format = helper ? khost__py.PyObject_GetAttrString(helper, "error_text") : NULL;
  PyObject *size = khost__py.PyLong_FromLongLong((long long)n);
  PyObject *text = format && size && kind
                       ? khost__py.PyObject_CallFunctionObjArgs(format, kind, value ? value : khost__py.none,
                                                                tb ? tb : khost__py.none, size, NULL)
                       : NULL;
  const char *utf8 = text ? khost__py.PyUnicode_AsUTF8AndSize(text, NULL) : NULL;
  snprintf(buf, n, "%s", utf8 ? utf8 : "a Python exception whose text could not be formatted");
  khost__py.PyErr_Clear();
  KHOST__PY_RELEASE(kind, value, tb, format, size, text);
}

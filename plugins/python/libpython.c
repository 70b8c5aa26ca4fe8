/* Where the plugin's libpython comes from (libpython.h). */
#include "libpython.h"

#include <dlfcn.h>
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* Printed by the python asked: its shared library's folder and names, its home,
 * then sys.path, one item a line. INSTSONAME is the name the library runs
 * under (Debian's python3 reports a static LDLIBRARY beside a shared one). */
static const char ask_script[] = "import sys, sysconfig\n"
                                 "v = sysconfig.get_config_var\n"
                                 "print(v('LIBDIR') or '')\n"
                                 "print(v('INSTSONAME') or '')\n"
                                 "print(v('LDLIBRARY') or '')\n"
                                 "print(sys.base_prefix)\n"
                                 "print('\\n'.join(sys.path))\n";

/* Runs `python -c ask_script`, its stdout and stderr into a malloc'd string. */
static char *ask(const char *python, int *status, char *why, size_t n)
{
  int fds[2];
  if (pipe(fds) != 0) return snprintf(why, n, "pipe: %s", strerror(errno)), NULL;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  char *const argv[] = {(char *)python, "-c", (char *)ask_script, NULL};
  pid_t pid;
  int rc = posix_spawnp(&pid, python, &actions, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  char *out = NULL;
  size_t used = 0, cap = 0;
  ssize_t got = 1;
  while (rc == 0 && got > 0) {
    if (used + 4097 > cap && !(out = realloc(out, cap = 2 * cap + 8192))) break;
    got = read(fds[0], out + used, 4096);
    if (got > 0) used += (size_t)got;
  }
  close(fds[0]);
  if (rc != 0) {
    free(out);
    return snprintf(why, n, "cannot run %s: %s", python, strerror(rc)), NULL;
  }
  while (waitpid(pid, status, 0) < 0 && errno == EINTR) {
  }
  if (out) out[used] = '\0';
  if (!out) snprintf(why, n, "out of memory reading %s", python);
  return out;
}

/* The next line of *text, cut in place. */
static char *line(char **text)
{
  char *start = *text, *end = strchr(start, '\n');
  if (end) *end = '\0';
  *text = end ? end + 1 : start + strlen(start);
  return start;
}

/* Tries each candidate the python named; `tried` collects what failed. */
static void *open_candidates(const char *dir, const char *soname, const char *ldlibrary, khost__libpython *f,
                             char *tried, size_t n)
{
  char paths[3][4096];
  snprintf(paths[0], sizeof paths[0], "%s/%s", dir, soname);
  snprintf(paths[1], sizeof paths[1], "%s/%s", dir, ldlibrary);
  snprintf(paths[2], sizeof paths[2], "%s", soname); /* the loader's own search */
  size_t used = strlen(tried);
  for (int i = 0; i < 3; i++) {
    const char *name = strrchr(paths[i], '/') ? strrchr(paths[i], '/') + 1 : paths[i];
    if (!*name || !strstr(name, ".so")) continue;
    void *lib = dlopen(paths[i], RTLD_NOW | RTLD_GLOBAL);
    if (lib) return snprintf(f->library, sizeof f->library, "%.4000s", paths[i]), lib;
    used += (size_t)snprintf(tried + used, used < n ? n - used : 0, "; %s: %s", paths[i], dlerror());
  }
  return NULL;
}

/* An executable: asked for its library, home and sys.path. */
static int open_from_python(const char *python, const char *source, khost__libpython *f, char *why, size_t n)
{
  int status = 0;
  char *out = ask(python, &status, why, n);
  if (!out) return -1;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    snprintf(why, n, "%s (%s) could not say where its libpython is (status %d): %.300s", python, source,
             WIFEXITED(status) ? WEXITSTATUS(status) : -1, out);
    free(out);
    return -1;
  }
  char *rest = out;
  char *dir = line(&rest), *soname = line(&rest), *ldlibrary = line(&rest), *home = line(&rest);
  char tried[3000] = "";
  f->lib = open_candidates(dir, soname, ldlibrary, f, tried, sizeof tried);
  if (!f->lib) {
    snprintf(
        why, n,
        "no shared libpython for %s (%s): searched LIBDIR/INSTSONAME, LIBDIR/LDLIBRARY and INSTSONAME on the "
        "library path%s (a python built without --enable-shared has none)",
        python, source, tried);
    free(out);
    return -1;
  }
  snprintf(f->home, sizeof f->home, "%s", home);
  memmove(out, rest, strlen(rest) + 1);
  f->path = out;
  return 0;
}

int khost__libpython_open(khost__libpython *f, char *why, size_t n)
{
  memset(f, 0, sizeof *f);
  const char *named = getenv("KHOST_PYTHON");
  if (!named || !*named)
    return open_from_python("python3", "python3 on PATH; KHOST_PYTHON is not set", f, why, n);
  const char *base = strrchr(named, '/') ? strrchr(named, '/') + 1 : named;
  if (strncmp(base, "libpython", 9) != 0) return open_from_python(named, "KHOST_PYTHON", f, why, n);
  f->lib = dlopen(named, RTLD_NOW | RTLD_GLOBAL);
  if (!f->lib) return snprintf(why, n, "KHOST_PYTHON=%s cannot be opened: %s", named, dlerror()), -1;
  snprintf(f->library, sizeof f->library, "%s", named);
  return 0;
}

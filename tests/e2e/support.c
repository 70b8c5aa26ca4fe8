/* The harness of tests/e2e/ (support.h): a scratch folder per test, khost run in
 * a process group of its own with its output in files, and the readers of its
 * table, summary and JSON report. */
#include "support.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "khost/plugin.h"

#define RUN_LIMIT_S 60.0 /* a khost run longer than this is a hang of khost itself */
#define MAX_ARGS    96

char scratch[64];

void make_scratch(void)
{
  snprintf(scratch, sizeof scratch, "/tmp/khost-e2e-XXXXXX");
  cr_assert_not_null(mkdtemp(scratch), "mkdtemp: %s", strerror(errno));
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
  (void)st, (void)flag, (void)ftw;
  return remove(path);
}

void remove_scratch(void)
{
  if (scratch[0]) nftw(scratch, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

const char *env(const char *name)
{
  const char *v = getenv(name);
  cr_assert(v && *v, "%s is not set (run through meson test)", name);
  return v;
}

/* "@file.so" stands for a fixture plugin in KHOST_FIXTURE_DIR; other arguments pass unchanged. */
static char *expand(const char *arg)
{
  char *s = NULL;
  int n = arg[0] == '@' ? asprintf(&s, "%s/%s", env("KHOST_FIXTURE_DIR"), arg + 1) : asprintf(&s, "%s", arg);
  cr_assert(n >= 0 && s, "out of memory");
  return s;
}

char *scratch_path(const char *name)
{
  char *s = NULL;
  cr_assert(asprintf(&s, "%s/%s", scratch, name) >= 0, "out of memory");
  return s;
}

void write_file(const char *path, const char *text)
{
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f, "cannot create %s: %s", path, strerror(errno));
  fputs(text, f);
  cr_assert_eq(fclose(f), 0);
}

char *slurp(const char *path)
{
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 4096, n = 0, got;
  char *buf = malloc(cap);
  while (buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
    n += got;
    if (n + 1 < cap) continue;
    char *grown = realloc(buf, cap *= 2);
    if (!grown) free(buf);
    buf = grown;
  }
  fclose(f);
  if (buf) buf[n] = '\0';
  return buf;
}

/* A pseudo-terminal as wide as asked for: its slave side in *slave, for khost's
 * stderr; the master side, read as the run goes so that khost never blocks on a
 * full terminal, in r. */
static void open_terminal(running *r, int columns, int *slave)
{
  struct winsize size = {.ws_row = 24, .ws_col = (unsigned short)columns};
  cr_assert_eq(openpty(&r->terminal, slave, NULL, NULL, &size), 0, "openpty: %s", strerror(errno));
  cr_assert_eq(fcntl(r->terminal, F_SETFL, O_NONBLOCK), 0);
  fcntl(r->terminal, F_SETFD, FD_CLOEXEC);
}

/* Copies what the terminal shows now into the err file; 0 once it has no writer left. */
static int drain_terminal(running *r)
{
  char buf[4096];
  ssize_t got;
  while ((got = read(r->terminal, buf, sizeof buf)) > 0)
    cr_assert_eq(write(r->terminal_copy, buf, (size_t)got), got);
  /* EIO: every process holding the slave side has closed it. */
  return !(got == 0 || (got < 0 && errno == EIO));
}

void start_with(running *r, const char *const *extra_env, const char *const *args, const launch *how)
{
  static const launch as_a_shell;
  if (!how) how = &as_a_shell;
  char *argv[MAX_ARGS + 2];
  int argc = 0;
  argv[argc++] = expand(env("KHOST_EXE"));
  for (int i = 0; args[i]; i++) {
    cr_assert_lt(argc, MAX_ARGS, "too many arguments");
    argv[argc++] = expand(args[i]);
  }
  argv[argc] = NULL;
  static int serial;
  snprintf(r->out_path, sizeof r->out_path, "%s/stdout.%d", scratch, serial);
  snprintf(r->err_path, sizeof r->err_path, "%s/stderr.%d", scratch, serial++);
  int out = open(r->out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  int err = open(r->err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  cr_assert(out >= 0 && err >= 0, "cannot create output files in %s", scratch);
  r->terminal = r->terminal_copy = -1;
  if (how->terminal_columns > 0) {
    r->terminal_copy = err;
    open_terminal(r, how->terminal_columns, &err);
  }
  fflush(NULL);
  r->pid = fork();
  cr_assert_geq(r->pid, 0, "fork: %s", strerror(errno));
  if (r->pid == 0) {
    setpgid(0, 0);
    int gone[2];
    if (how->unread_stdout && pipe(gone) == 0) close(gone[0]), out = gone[1];
    dup2(out, STDOUT_FILENO);
    dup2(err, STDERR_FILENO);
    if (how->closed_fd) close(how->closed_fd);
    if (how->folder && chdir(how->folder) != 0) _exit(127);
    for (int i = 0; extra_env && extra_env[i]; i++) putenv((char *)extra_env[i]);
    execv(argv[0], argv);
    _exit(127);
  }
  /* Also here, so that the group exists before anyone signals it. */
  setpgid(r->pid, r->pid);
  close(out);
  close(err); /* the terminal's slave side, when stderr is one: khost holds it now */
  for (int i = 0; i < argc; i++) free(argv[i]);
}

void start(running *r, const char *const *extra_env, const char *const *args)
{
  start_with(r, extra_env, args, NULL);
}

void finish(running *r, outcome *o)
{
  int wstatus = 0;
  memset(o, 0, sizeof *o);
  struct timespec tick = {0, 10 * 1000 * 1000};
  double waited = 0;
  while (waitpid(r->pid, &wstatus, WNOHANG) == 0) {
    if (waited >= RUN_LIMIT_S) {
      o->timed_out = 1;
      kill(-r->pid, SIGKILL);
      waitpid(r->pid, &wstatus, 0);
      break;
    }
    if (r->terminal >= 0) drain_terminal(r);
    nanosleep(&tick, NULL);
    waited += 0.01;
  }
  /* A worker left behind by a killed khost would run on forever. */
  kill(-r->pid, SIGKILL);
  for (int i = 0; r->terminal >= 0 && drain_terminal(r) && i < 500; i++) nanosleep(&tick, NULL);
  if (r->terminal >= 0) close(r->terminal), close(r->terminal_copy);
  o->status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;
  o->signal = WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : 0;
  o->out = slurp(r->out_path);
  o->err = slurp(r->err_path);
  cr_assert(o->out && o->err, "cannot read khost's output");
  cr_assert_not(o->timed_out, "khost ran longer than %.0f s; stderr:\n%s", RUN_LIMIT_S, o->err);
}

void run_with(outcome *o, const char *const *extra_env, const char *const *args, const launch *how)
{
  running r;
  start_with(&r, extra_env, args, how);
  finish(&r, o);
}

void run_env(outcome *o, const char *const *extra_env, const char *const *args)
{
  run_with(o, extra_env, args, NULL);
}

void free_outcome(outcome *o)
{
  free(o->out);
  free(o->err);
  json_decref(o->report);
  o->out = o->err = NULL;
  o->report = NULL;
}

const char *report_path(void)
{
  static char path[sizeof scratch + 16];
  snprintf(path, sizeof path, "%s/report.json", scratch);
  return path;
}

json_t *load_json(const char *path)
{
  json_error_t error;
  json_t *doc = json_load_file(path, 0, &error);
  cr_assert_not_null(doc, "%s is not valid JSON: line %d: %s", path, error.line, error.text);
  return doc;
}

json_t *report(outcome *o)
{
  if (!o->report) o->report = load_json(report_path());
  return o->report;
}

table_row find_device_row(const char *out, const char *case_name, const char *backend, const char *device)
{
  table_row row;
  memset(&row, 0, sizeof row);
  char header[128];
  snprintf(header, sizeof header, "\ncase %s | ", case_name);
  const char *p = strstr(out, header);
  if (!p) return row;
  for (p = strchr(p + 1, '\n'); p && p[1] && strncmp(p, "\ncase ", 6) && strncmp(p, "\nsummary:", 9);
       p = strchr(p + 1, '\n')) {
    const char *line = p + 1;
    size_t len = strcspn(line, "\n");
    if (row.found && !strncmp(line, "      ", 6)) {
      size_t used = strlen(row.details);
      snprintf(row.details + used, sizeof row.details - used, "%.*s\n", (int)len, line);
    } else if (row.found) {
      break;
    } else if (sscanf(line, "%63s %15s %15s", row.backend, row.device, row.status) == 3 &&
               !strcmp(row.backend, backend) && (!device || !strcmp(row.device, device))) {
      row.found = 1;
    }
  }
  if (!row.found) memset(&row, 0, sizeof row);
  return row;
}

table_row find_row(const char *out, const char *case_name, const char *backend)
{
  return find_device_row(out, case_name, backend, NULL);
}

void expect_row(const outcome *o, const char *case_name, const char *backend, const char *status)
{
  table_row row = find_row(o->out, case_name, backend);
  cr_expect(row.found, "no table row for %s on %s; stdout:\n%s", backend, case_name, o->out);
  cr_expect_str_eq(row.status, status, "%s on %s: status %s, expected %s; details:\n%s", backend, case_name,
                   row.status, status, row.details);
}

int count_cases(const char *out)
{
  int n = 0;
  for (const char *p = out; (p = strstr(p, "\ncase ")); p++) n++;
  return n;
}

summary read_summary(const char *out)
{
  summary s = {-1, -1, -1, -1, -1, -1, -1};
  const char *line = strstr(out, "\nsummary: ");
  cr_assert_not_null(line, "no summary line; stdout:\n%s", out);
  int got = sscanf(line,
                   "\nsummary: %d rows: %d passed, %d failed, %d skipped, %d errored, %d crashed, "
                   "%d timed out",
                   &s.rows, &s.passed, &s.failed, &s.skipped, &s.errored, &s.crashed, &s.timed_out);
  cr_assert_eq(got, 7, "unreadable summary line: %.200s", line + 1);
  return s;
}

int read_smoke(smoke_case *cases, int max)
{
  char path[4096];
  snprintf(path, sizeof path, "%s/suites/smoke.ini", env("KHOST_SOURCE_ROOT"));
  FILE *f = fopen(path, "r");
  cr_assert_not_null(f, "cannot open %s", path);
  char line[512];
  int n = 0;
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '[' && n < max && sscanf(line, "[%63[^]]", cases[n].name) == 1)
      cases[n++].op[0] = '\0';
    else if (n > 0)
      sscanf(line, "op = %31s", cases[n - 1].op);
  }
  fclose(f);
  cr_assert_gt(n, 3, "smoke.ini has too few cases to test with");
  return n;
}

json_t *json_row(json_t *doc, const char *case_name, const char *backend)
{
  size_t i;
  json_t *row;
  json_array_foreach(json_object_get(doc, "rows"), i, row)
  {
    const char *c = json_string_value(json_object_get(row, "case"));
    const char *b = json_string_value(json_object_get(row, "backend"));
    if (c && b && !strcmp(c, case_name) && !strcmp(b, backend)) return row;
  }
  return NULL;
}

const char *json_text(json_t *obj, const char *key)
{
  const char *s = json_string_value(json_object_get(obj, key));
  return s ? s : "";
}

void expect_json_row(json_t *doc, const char *case_name, const char *backend, const char *status,
                     const char *part)
{
  json_t *row = json_row(doc, case_name, backend);
  cr_assert_not_null(row, "%s: no JSON row", backend);
  cr_expect_str_eq(json_text(row, "status"), status, "%s", backend);
  cr_expect_not_null(strstr(json_text(row, "message"), part), "%s: '%s' lacks '%s'", backend,
                     json_text(row, "message"), part);
}

void expect_refused_before_running(const char *flag, const char *value, const char *message)
{
  outcome o;
  KHOST(&o, FAST, "--case", COPY_CASE, flag, value);
  cr_expect_eq(o.status, 2, "%s %s: exit %d; stderr:\n%s", flag, value, o.status, o.err);
  cr_expect_not_null(strstr(o.err, message), "%s: stderr lacks '%s':\n%s", flag, message, o.err);
  cr_expect_null(strstr(o.out, "summary:"), "%s: nothing may run:\n%s", flag, o.out);
  free_outcome(&o);
}

int reference_cuda_rows(void)
{
  void *lib = dlopen(env("KHOST_REFERENCE_PLUGIN"), RTLD_NOW | RTLD_LOCAL);
  cr_assert_not_null(lib, "dlopen: %s", dlerror());
  khost_plugin_entry_fn entry = (khost_plugin_entry_fn)dlsym(lib, KHOST_PLUGIN_ENTRY_SYMBOL);
  const khost_plugin *plugin = entry ? entry(KHOST_ABI_MAJOR, KHOST_ABI_MINOR) : NULL;
  cr_assert_not_null(plugin, "the reference plugin has no usable entry");
  int cuda = 0;
  for (int32_t i = 0; i < plugin->nkernels; i++) cuda |= plugin->kernels[i]->device_type == KHOST_DEVICE_CUDA;
  dlclose(lib);
  return cuda;
}

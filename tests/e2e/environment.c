/* End to end, the process khost runs in, as the user or a plugin leaves it: a
 * relative path the user gave leads where it led when khost started, whatever
 * folder a plugin moves the process to, and fds 0-2 closed by the user or by a
 * plugin never move the table or the progress lines into a report. */
#include "support.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

TestSuite(environment, .init = make_scratch, .fini = remove_scratch, .timeout = 120);

#define MY_CASE "moved_copy"

/* The scratch folder's start/, where khost starts (with suites/mine.ini holding
 * MY_CASE), and elsewhere/, where a plugin moves it to. */
typedef struct folders {
  char *start, *elsewhere;
  char chdir_entry[128]; /* KHOST_TEST_CHDIR=<elsewhere> for the chdir fixtures */
  launch in_start;
} folders;

static char *make_folder(const char *name)
{
  char *path = scratch_path(name);
  cr_assert(mkdir(path, 0755) == 0, "mkdir %s: %s", path, strerror(errno));
  return path;
}

static folders make_folders(void)
{
  folders f = {.start = make_folder("start"), .elsewhere = make_folder("elsewhere")};
  snprintf(f.chdir_entry, sizeof f.chdir_entry, "KHOST_TEST_CHDIR=%s", f.elsewhere);
  f.in_start.folder = f.start;
  free(make_folder("start/suites"));
  char *suite = scratch_path("start/suites/mine.ini");
  write_file(suite, "[" MY_CASE "]\nop = copy_transpose\ndtype = fp16\nm = 8\nn = 8\n");
  free(suite);
  return f;
}

static void free_folders(folders *f)
{
  free(f->start);
  free(f->elsewhere);
}

/* A link to the fixture plugin file at scratch/<at>. */
static void plant(const char *fixture, const char *at)
{
  char from[4096];
  char *to = scratch_path(at);
  snprintf(from, sizeof from, "%s/%s", env("KHOST_FIXTURE_DIR"), fixture);
  cr_assert(symlink(from, to) == 0, "symlink %s: %s", to, strerror(errno));
  free(to);
}

/* 1 when scratch/<name> exists. */
static int exists(const char *name)
{
  struct stat st;
  char *path = scratch_path(name);
  int there = lstat(path, &st) == 0;
  free(path);
  return there;
}

/* The fixture's chdir ran (it leaves moved_here behind), and nothing else reached elsewhere/. */
static void expect_moved_and_nothing_elsewhere(const folders *f)
{
  cr_expect(exists("elsewhere/moved_here"), "the plugin never moved khost: the test proves nothing");
  DIR *dir = opendir(f->elsewhere);
  cr_assert_not_null(dir, "%s: %s", f->elsewhere, strerror(errno));
  for (struct dirent *e; (e = readdir(dir));)
    cr_expect(!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, "moved_here"),
              "khost wrote %s into the folder the plugin moved it to", e->d_name);
  closedir(dir);
}

Test(environment, plugin_folders_and_files_are_found_from_the_start_folder)
{
  folders f = make_folders();
  const char *names[] = {"start/early", "start/late", "start/named", "start/one"};
  for (int i = 0; i < 4; i++) free(make_folder(names[i]));
  /* The first search folder's plugin moves khost before the others are looked for. */
  plant("fault_chdir_load.so", "start/early/fault_chdir_load.so");
  plant("fault_free.so", "start/late/fault_free.so");
  plant("fault_decline.so", "start/named/fault_decline.so");
  plant("good.so", "start/one/good.so");
  const char *envs[] = {"KHOST_PLUGIN_PATH=early:late", f.chdir_entry, NULL};
  outcome o;
  KHOST_AS(&o, &f.in_start, envs, FAST, "--case", COPY_CASE, "--plugin-dir", "named", "--plugin",
           "one/good.so");
  cr_expect_eq(o.status, 0, "exit %d; stderr:\n%s", o.status, o.err);
  expect_row(&o, COPY_CASE, "fault_chdir_load", "PASS");
  expect_row(&o, COPY_CASE, "fault_free", "PASS");
  expect_row(&o, COPY_CASE, "fault_decline", "SKIP");
  expect_row(&o, COPY_CASE, "fixture_good", "PASS");
  expect_moved_and_nothing_elsewhere(&f);
  free_outcome(&o);
  free_folders(&f);
}

Test(environment, the_suite_reports_and_dumps_are_found_from_the_start_folder)
{
  folders f = make_folders();
  const char *envs[] = {f.chdir_entry, NULL};
  outcome o;
  KHOST_AS(&o, &f.in_start, envs, FAST, "--suite", "suites/mine.ini", "--plugin", "@fault_chdir_load.so",
           "--json", "r.json", "--csv", "r.csv", "--dump", "dumps");
  cr_expect_eq(o.status, 0, "exit %d; stderr:\n%s", o.status, o.err);
  /* Named as the user gave it, as before any plugin could move khost. */
  cr_expect_not_null(strstr(o.out, "suite suites/mine.ini\n"), "stdout:\n%s", o.out);
  char *json = scratch_path("start/r.json");
  json_t *doc = load_json(json);
  cr_expect(json_is_true(json_object_get(doc, "finished")));
  cr_expect_str_eq(json_text(json_object_get(doc, "run"), "suite"), "suites/mine.ini");
  expect_json_row(doc, MY_CASE, "fault_chdir_load", "PASS", "");
  char *csv = scratch_path("start/r.csv"), *text = slurp(csv);
  cr_expect(text && strstr(text, "\n" MY_CASE ",copy_transpose,"), "CSV:\n%s", text ? text : "(none)");
  cr_expect(exists("start/dumps/" MY_CASE "/in.npy"));
  cr_expect(exists("start/dumps/" MY_CASE "/fault_chdir_load.cpu.out.npy"));
  expect_moved_and_nothing_elsewhere(&f);
  json_decref(doc);
  free(text);
  free(csv);
  free(json);
  free_outcome(&o);
  free_folders(&f);
}

Test(environment, a_suite_name_is_found_in_khost_suite_path_from_the_start_folder)
{
  folders f = make_folders();
  const char *envs[] = {"KHOST_SUITE_PATH=suites", f.chdir_entry, NULL};
  outcome o;
  KHOST_AS(&o, &f.in_start, envs, FAST, "--suite", "mine", "--plugin", "@fault_chdir_load.so");
  cr_expect_eq(o.status, 0, "exit %d; stderr:\n%s", o.status, o.err);
  cr_expect_not_null(strstr(o.out, "suite suites/mine.ini\n"), "stdout:\n%s", o.out);
  expect_row(&o, MY_CASE, "fault_chdir_load", "PASS");
  expect_moved_and_nothing_elsewhere(&f);
  free_outcome(&o);
  free_folders(&f);
}

/* The call moves the worker, or under --no-isolate (mode) khost itself, after
 * the reports were opened and the inputs dumped: the dump of its outputs and
 * every later write of the reports must still go to the start folder. mode is
 * an extra flag or NULL. */
static void expect_a_moving_call_harmless(const char *mode)
{
  folders f = make_folders();
  const char *envs[] = {f.chdir_entry, NULL};
  outcome o;
  KHOST_AS(&o, &f.in_start, envs, FAST, "--suite", "suites/mine.ini", "--plugin", "@fault_chdir.so", "--json",
           "r.json", "--csv", "r.csv", "--dump", "dumps", mode);
  cr_expect_eq(o.status, 0, "exit %d; stderr:\n%s", o.status, o.err);
  char *json = scratch_path("start/r.json");
  json_t *doc = load_json(json);
  cr_expect(json_is_true(json_object_get(doc, "finished")));
  expect_json_row(doc, MY_CASE, "fault_chdir", "PASS", "");
  cr_expect(exists("start/dumps/" MY_CASE "/fault_chdir.cpu.out.npy"));
  expect_moved_and_nothing_elsewhere(&f);
  json_decref(doc);
  free(json);
  free_outcome(&o);
  free_folders(&f);
}

Test(environment, a_chdir_in_a_worker_moves_no_dump)
{
  expect_a_moving_call_harmless(NULL);
}

Test(environment, a_chdir_in_a_call_under_no_isolate_moves_no_dump_and_no_report)
{
  expect_a_moving_call_harmless("--no-isolate");
}

/* Each line of the CSV report at path is its header or a row of case_name. */
static void expect_only_csv(const char *path, const char *case_name, const char *how)
{
  char *text = slurp(path);
  cr_assert_not_null(text, "%s: no CSV report at %s", how, path);
  size_t len = strlen(case_name);
  int lines = 0, foreign = 0;
  for (char *line = text, *end; *line && !foreign; line = end + 1, lines++) {
    end = strchr(line, '\n');
    cr_assert_not_null(end, "%s: the CSV report ends mid-line:\n%s", how, text);
    int row = !strncmp(line, case_name, len) && line[len] == ',';
    foreign = !row && !(lines == 0 && !strncmp(line, "case,", 5));
  }
  cr_expect_not(foreign, "%s: line %d of the CSV report is not the report's:\n%s", how, lines, text);
  cr_expect_geq(lines, 2, "%s: the header and a row:\n%s", how, text);
  free(text);
}

/* After a run that had fd closed_fd closed by the user (0: none) and is
 * described by how: the table reached stdout and the progress lines stderr,
 * where open, and the reports hold only what they should. */
static void expect_output_in_place(const outcome *o, int closed_fd, const char *csv, const char *how)
{
  cr_expect_eq(o->status, 0, "%s: exit %d; stderr:\n%s", how, o->status, o->err);
  if (closed_fd != 1) cr_expect_not_null(strstr(o->out, "summary:"), "%s: stdout:\n%s", how, o->out);
  if (closed_fd != 2)
    cr_expect_not_null(strstr(o->err, "khost: " COPY_CASE " done"), "%s: stderr:\n%s", how, o->err);
  expect_only_csv(csv, COPY_CASE, how);
  json_t *doc = load_json(report_path());
  cr_expect(json_is_true(json_object_get(doc, "finished")), "%s", how);
  json_decref(doc);
}

Test(environment, khost_started_with_stdout_or_stderr_closed_keeps_its_reports_clean)
{
  char *csv = scratch_path("r.csv");
  for (int fd = 1; fd <= 2; fd++) {
    outcome o;
    KHOST_AS(&o, &(const launch){.closed_fd = fd}, NULL, FAST, "--case", COPY_CASE, "--plugin",
             "@fault_free.so", "--backends", "fault_free", "--json", report_path(), "--csv", csv);
    char how[64];
    snprintf(how, sizeof how, "started with fd %d closed", fd);
    expect_output_in_place(&o, fd, csv, how);
    free_outcome(&o);
  }
  free(csv);
}

/* The plugin closes the fd, khost's own stays open: the table and the progress
 * lines still reach the user, and no report takes the fd's number. mode is an
 * extra flag or NULL. */
static void expect_a_closing_plugin_harmless(const char *plugin, const char *mode)
{
  char *csv = scratch_path("r.csv");
  for (int fd = 1; fd <= 2; fd++) {
    char entry[32], how[64];
    snprintf(entry, sizeof entry, "KHOST_TEST_CLOSE_FD=%d", fd);
    snprintf(how, sizeof how, "%s closed fd %d", plugin, fd);
    const char *envs[] = {entry, NULL};
    outcome o;
    KHOST_ENV(&o, envs, FAST, "--case", COPY_CASE, "--plugin", plugin, "--json", report_path(), "--csv", csv,
              mode);
    expect_output_in_place(&o, 0, csv, how);
    free_outcome(&o);
  }
  free(csv);
}

Test(environment, a_plugin_that_closes_stdout_or_stderr_as_it_loads_moves_nothing_into_a_report)
{
  expect_a_closing_plugin_harmless("@fault_close_fd_load.so", NULL);
}

Test(environment, a_plugin_that_closes_stdout_or_stderr_in_khost_moves_nothing_into_a_report)
{
  expect_a_closing_plugin_harmless("@fault_close_fd.so", "--no-isolate");
}

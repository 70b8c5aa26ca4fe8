/* End to end, plugin loading: every load failure with its stage in --list,
 * --strict, --plugin, --plugin-dir, KHOST_PLUGIN_PATH and shadowed copies. */
#include "support.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "clock.h"

TestSuite(loading, .init = make_scratch, .fini = remove_scratch, .timeout = 120);

/* Each loader fixture, the stage that refuses it, and a piece of the reason. */
static const struct {
  const char *file, *stage, *reason;
} load_failures[] = {
    {"good_twin.so", "duplicate", "fixture_good"},
    {"no_entry.so", "symbol", "khost_plugin_entry"},
    {"entry_null.so", "entry", "NULL"},
    {"bad_magic.so", "magic", "magic"},
    {"abi_major.so", "abi", "ABI major 2"},
    {"struct_small.so", "struct_size", "struct_size 16"},
    {"kernel_small.so", "struct_size", "kernel 1"},
    {"empty_name.so", "descriptor", "name"},
    {"null_kernel.so", "descriptor", "NULL kernel"},
    {"duplicate_op.so", "descriptor", "duplicate op 'copy_transpose'"},
    {"init_fails.so", "init", "fixture init refuses on purpose"},
    {"init_crashes.so", "init", "signal 11"},
    {"not_elf.so", "dlopen", ""},
    {"overcount.so", "descriptor", "kernel 1 of 1000 cannot be read"},
    {"name_unterminated.so", "descriptor", "xxxxxx' is longer than 63 characters"},
};
#define NLOAD_FAILURES (int)(sizeof load_failures / sizeof load_failures[0])

/* The path khost reports for a fixture: it resolves plugin paths. */
static void fixture_real_path(const char *file, char *out)
{
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", env("KHOST_FIXTURE_DIR"), file);
  cr_assert_not_null(realpath(path, out), "%s: %s", path, strerror(errno));
}

Test(loading, list_names_every_failure_with_its_stage_and_the_good_plugin_with_its_ops)
{
  char at[NLOAD_FAILURES + 1][64];
  const char *args[2 * NLOAD_FAILURES + 8];
  int n = 0;
  args[n++] = "--list";
  args[n++] = "--plugin";
  args[n++] = "@good.so"; /* first, so that good_twin is the duplicate */
  for (int i = 0; i < NLOAD_FAILURES; i++) {
    snprintf(at[i], sizeof at[i], "@%s", load_failures[i].file);
    args[n++] = "--plugin";
    args[n++] = at[i];
  }
  args[n] = NULL;
  outcome o;
  run_env(&o, NULL, args);
  cr_assert_eq(o.status, 0, "--list without --strict: exit %d; stderr:\n%s", o.status, o.err);
  char *failures = strstr(o.out, "load failures (");
  cr_assert_not_null(failures, "stdout:\n%s", o.out);
  int nfailures = -1;
  sscanf(failures, "load failures (%d)", &nfailures);
  cr_expect_eq(nfailures, NLOAD_FAILURES, "stdout:\n%s", o.out);
  for (int i = 0; i < NLOAD_FAILURES; i++) {
    char path[4096], entry[4200];
    fixture_real_path(load_failures[i].file, path);
    snprintf(entry, sizeof entry, "%s\n    stage %s: ", path, load_failures[i].stage);
    const char *at_entry = strstr(failures, entry);
    cr_expect_not_null(at_entry, "no '%s' entry with stage %s:\n%s", load_failures[i].file,
                       load_failures[i].stage, failures);
    if (!at_entry) continue;
    const char *reason = at_entry + strlen(entry);
    size_t len = strcspn(reason, "\n");
    char line[1024];
    snprintf(line, sizeof line, "%.*s", (int)len, reason);
    cr_expect_not_null(strstr(line, load_failures[i].reason), "%s: reason '%s' lacks '%s'",
                       load_failures[i].file, line, load_failures[i].reason);
  }
  /* The loaded section holds the good plugin (with its op) and none of the broken ones. */
  *failures = '\0';
  char good[4096];
  fixture_real_path("good.so", good);
  const char *listed = strstr(o.out, "fixture_good");
  cr_expect(listed && strstr(listed, good), "fixture_good should be listed from %s:\n%s", good, o.out);
  cr_expect(listed && strstr(listed, "ops: copy_transpose (cpu)"), "fixture_good's op:\n%s", o.out);
  cr_expect_not_null(strstr(o.out, "reference"), "the reference plugin should be listed:\n%s", o.out);
  for (int i = 0; i < NLOAD_FAILURES; i++)
    cr_expect_null(strstr(o.out, load_failures[i].file), "%s is listed as loaded:\n%s", load_failures[i].file,
                   o.out);
  cr_expect_null(strstr(o.out, "summary:"), "--list must run nothing");
  free_outcome(&o);
}

Test(loading, strict_makes_a_load_failure_fatal)
{
  outcome o;
  KHOST(&o, "--list", "--strict", "--plugin", "@no_entry.so");
  cr_expect_eq(o.status, 2, "--list --strict with a failure: exit %d", o.status);
  cr_expect_not_null(strstr(o.out, "stage symbol"), "the failure is still listed:\n%s", o.out);
  free_outcome(&o);
  KHOST(&o, FAST, "--strict", "--case", COPY_CASE, "--plugin", "@no_entry.so", "--plugin", "@good.so");
  cr_expect_eq(o.status, 2, "--strict with a failure: exit %d", o.status);
  cr_expect_not_null(strstr(o.err, "--strict"), "stderr:\n%s", o.err);
  cr_expect_null(strstr(o.out, "summary:"), "a --strict failure must not run the suite:\n%s", o.out);
  free_outcome(&o);
  KHOST(&o, FAST, "--list", "--strict", "--plugin", "@good.so");
  cr_expect_eq(o.status, 0, "--strict with nothing failing: exit %d; stdout:\n%s", o.status, o.out);
  free_outcome(&o);
}

Test(loading, without_strict_broken_plugins_are_skipped_with_a_warning)
{
  outcome o;
  KHOST(&o, FAST, "--case", COPY_CASE, "--plugin", "@no_entry.so", "--plugin", "@init_crashes.so", "--plugin",
        "@good.so");
  cr_assert_eq(o.status, 0, "exit %d; stderr:\n%s", o.status, o.err);
  char path[4096], warning[4200];
  fixture_real_path("no_entry.so", path);
  snprintf(warning, sizeof warning, "%s skipped (stage symbol)", path);
  cr_expect_not_null(strstr(o.err, warning), "stderr lacks '%s':\n%s", warning, o.err);
  fixture_real_path("init_crashes.so", path);
  snprintf(warning, sizeof warning, "%s skipped (stage init)", path);
  cr_expect_not_null(strstr(o.err, warning), "stderr lacks '%s':\n%s", warning, o.err);
  expect_row(&o, COPY_CASE, "reference", "PASS");
  expect_row(&o, COPY_CASE, "fixture_good", "PASS");
  free_outcome(&o);
}

static void copy_file(const char *from, const char *to)
{
  FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
  cr_assert(in && out, "cannot copy %s to %s: %s", from, to, strerror(errno));
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, in)) > 0) cr_assert_eq(fwrite(buf, 1, n, out), n);
  fclose(in);
  cr_assert_eq(fclose(out), 0);
}

/* A folder with the fixture plugin `file` copied in as `as`. */
static char *drop_folder(const char *file, const char *as)
{
  char *dir = scratch_path("dropped"), from[4096], to[4200];
  cr_assert_eq(mkdir(dir, 0755), 0, "mkdir %s: %s", dir, strerror(errno));
  snprintf(from, sizeof from, "%s/%s", env("KHOST_FIXTURE_DIR"), file);
  snprintf(to, sizeof to, "%s/%s", dir, as);
  copy_file(from, to);
  return dir;
}

Test(loading, a_plugin_dropped_into_a_plugin_dir_runs)
{
  char *dir = drop_folder("fault_free.so", "my_backend.so");
  outcome o;
  KHOST(&o, FAST, "--case", COPY_CASE);
  cr_assert_eq(o.status, 0);
  cr_expect_not(find_row(o.out, COPY_CASE, "fault_free").found, "fault_free must come from the folder only");
  free_outcome(&o);
  KHOST(&o, FAST, "--case", COPY_CASE, "--plugin-dir", dir);
  cr_assert_eq(o.status, 0, "exit %d; stderr:\n%s", o.status, o.err);
  expect_row(&o, COPY_CASE, "reference", "PASS");
  expect_row(&o, COPY_CASE, "fault_free", "PASS");
  free_outcome(&o);
  free(dir);
}

Test(loading, a_plugin_dir_that_is_not_a_folder_exits_2)
{
  char *missing = scratch_path("no_such_folder");
  outcome o;
  KHOST(&o, FAST, "--list", "--plugin-dir", missing);
  cr_expect_eq(o.status, 2, "exit %d; stderr:\n%s", o.status, o.err);
  cr_expect_not_null(strstr(o.err, "No such file or directory"), "stderr:\n%s", o.err);
  free_outcome(&o);
  KHOST(&o, FAST, "--list", "--plugin-dir", env("KHOST_REFERENCE_PLUGIN"));
  cr_expect_eq(o.status, 2, "exit %d; stderr:\n%s", o.status, o.err);
  cr_expect_not_null(strstr(o.err, ": not a folder"), "stderr:\n%s", o.err);
  free_outcome(&o);
  free(missing);
}

Test(loading, a_plugin_file_that_does_not_exist_exits_2)
{
  char *missing = scratch_path("no_such_plugin.so"), want[4200];
  snprintf(want, sizeof want, "--plugin %s: No such file or directory", missing);
  expect_refused_before_running("--plugin", missing, want);
  free(missing);
}

/* An installed (or any later search folder's) copy of a plugin the build already
 * has is shadowed, as in PATH: listed, not a load failure, so --strict still
 * passes and the build's own copy runs. */
Test(loading, a_later_search_folder_copy_of_a_plugin_is_shadowed_not_a_failure)
{
  char *dir = scratch_path("installed"), to[4200], real_to[4096], *entry = NULL;
  cr_assert_eq(mkdir(dir, 0755), 0, "mkdir %s: %s", dir, strerror(errno));
  snprintf(to, sizeof to, "%s/reference.so", dir);
  copy_file(env("KHOST_REFERENCE_PLUGIN"), to);
  cr_assert_not_null(realpath(to, real_to));
  cr_assert(asprintf(&entry, "KHOST_PLUGIN_PATH=%s", dir) >= 0);
  const char *envs[] = {entry, NULL};
  outcome o;
  KHOST_ENV(&o, envs, "--list", "--strict");
  cr_expect_eq(o.status, 0, "exit %d; stdout:\n%s\nstderr:\n%s", o.status, o.out, o.err);
  const char *shadowed = strstr(o.out, "shadowed, not loaded (1):");
  cr_expect(shadowed && strstr(shadowed, real_to) && strstr(shadowed, "an earlier search folder"),
            "stdout:\n%s", o.out);
  cr_expect_not_null(strstr(o.out, "load failures (0)"), "stdout:\n%s", o.out);
  free_outcome(&o);
  /* Named explicitly, the same copy is a conflict the user must see. */
  KHOST(&o, "--list", "--strict", "--plugin", to);
  cr_expect_eq(o.status, 2, "exit %d; stdout:\n%s", o.status, o.out);
  cr_expect_not_null(strstr(o.out, "stage duplicate"), "stdout:\n%s", o.out);
  free_outcome(&o);
  KHOST_ENV(&o, envs, FAST, "--case", COPY_CASE, "--strict");
  cr_expect_eq(o.status, 0, "exit %d; stderr:\n%s", o.status, o.err);
  expect_row(&o, COPY_CASE, "reference", "PASS");
  cr_expect_null(strstr(o.err, real_to), "the shadowed copy is not a warning:\n%s", o.err);
  free_outcome(&o);
  free(entry);
  free(dir);
}

/* A descriptor whose nkernels is larger than its array once took every run down
 * with it; read in a child process, it costs that plugin only. */
Test(loading, a_plugin_whose_descriptor_cannot_be_read_in_a_search_folder_is_skipped)
{
  char *dir = drop_folder("overcount.so", "overcount.so"), to[4200], real_to[4096], *entry = NULL;
  snprintf(to, sizeof to, "%s/overcount.so", dir);
  cr_assert_not_null(realpath(to, real_to));
  cr_assert(asprintf(&entry, "KHOST_PLUGIN_PATH=%s", dir) >= 0);
  const char *envs[] = {entry, NULL};
  outcome o;
  KHOST_ENV(&o, envs, FAST, "--case", COPY_CASE, "--plugin", "@good.so");
  cr_assert_eq(o.status, 0, "exit %d; stderr:\n%s", o.status, o.err);
  char warning[4200];
  snprintf(warning, sizeof warning, "%s skipped (stage descriptor): kernel 1 of 1000 cannot be read",
           real_to);
  cr_expect_not_null(strstr(o.err, warning), "stderr lacks '%s':\n%s", warning, o.err);
  expect_row(&o, COPY_CASE, "reference", "PASS");
  expect_row(&o, COPY_CASE, "fixture_good", "PASS");
  free_outcome(&o);
  free(entry);
  free(dir);
}

/* The probe of init honours --timeout, --list included: not a fixed minute. */
Test(loading, an_init_that_hangs_costs_the_timeout_given)
{
  outcome o;
  double start = khost__now_s();
  KHOST(&o, "--list", "--timeout", "1", "--plugin", "@init_hangs.so", "--plugin", "@good.so");
  double took = khost__now_s() - start;
  cr_expect_eq(o.status, 0, "exit %d; stderr:\n%s", o.status, o.err);
  cr_expect_lt(took, 20.0, "--list --timeout 1 took %.0f s", took);
  char path[4096], entry[4300];
  fixture_real_path("init_hangs.so", path);
  snprintf(entry, sizeof entry, "%s\n    stage init: init timed out: silent for longer than --timeout 1 s\n",
           path);
  cr_expect_not_null(strstr(o.out, entry), "no '%s' in:\n%s", entry, o.out);
  cr_expect_not_null(strstr(o.out, "fixture_good"), "the plugin after it is probed and listed:\n%s", o.out);
  free_outcome(&o);
}

Test(loading, khost_plugin_path_folders_are_searched)
{
  char *dir = drop_folder("fault_free.so", "my_backend.so"), *entry = NULL;
  cr_assert(asprintf(&entry, "KHOST_PLUGIN_PATH=%s/no_such_folder:%s", scratch, dir) >= 0);
  const char *envs[] = {entry, NULL};
  outcome o;
  KHOST_ENV(&o, envs, FAST, "--case", COPY_CASE);
  cr_assert_eq(o.status, 0, "exit %d; stderr:\n%s", o.status, o.err);
  expect_row(&o, COPY_CASE, "fault_free", "PASS");
  free_outcome(&o);
  free(entry);
  free(dir);
}

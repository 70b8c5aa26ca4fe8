/* The loader: every failure stage, recorded with its reason, and the good path. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "loader.h"

static const char *fixture(const char *name)
{
  static char path[4096];
  const char *dir = getenv("KHOST_FIXTURE_DIR");
  cr_assert(dir && *dir, "KHOST_FIXTURE_DIR must name the built fixtures (tests/meson.build sets it)");
  snprintf(path, sizeof path, "%s/%s", dir, name);
  return path;
}

static void load(khost__registry *reg, const char *name)
{
  khost__err err;
  cr_assert_eq(khost__registry_add_file(reg, fixture(name), &err), KHOST__OK, "%s", err.msg);
}

typedef struct stage_case {
  const char *file;
  khost__load_stage stage;
  const char *reason; /* a fragment the reason must contain */
} stage_case;

static const stage_case stage_cases[] = {
    {"not_elf.so", KHOST__STAGE_DLOPEN, "not_elf.so"},
    {"missing_file.so", KHOST__STAGE_DLOPEN, "missing_file.so"},
    {"unresolved.so", KHOST__STAGE_DLOPEN, "undefined symbol: khost_fixture_missing_symbol"}, /* RTLD_NOW */
    {"no_entry.so", KHOST__STAGE_SYMBOL, "khost_plugin_entry"},
    {"entry_null.so", KHOST__STAGE_ENTRY, "returned NULL"},
    {"bad_magic.so", KHOST__STAGE_MAGIC, "bad magic"},
    {"abi_major.so", KHOST__STAGE_ABI, "ABI major 2"},
    {"struct_small.so", KHOST__STAGE_STRUCT_SIZE, "struct_size 16"},
    {"kernel_small.so", KHOST__STAGE_STRUCT_SIZE, "kernel 1: struct_size 8"},
    {"empty_name.so", KHOST__STAGE_DESCRIPTOR, "name ''"},
    {"long_name.so", KHOST__STAGE_DESCRIPTOR, "longer than 63 characters"},
    {"upper_name.so", KHOST__STAGE_DESCRIPTOR, "name 'Fixture_upper' is not [a-z0-9_]+"},
    {"no_kernels.so", KHOST__STAGE_DESCRIPTOR, "lists no kernels"},
    {"empty_op.so", KHOST__STAGE_DESCRIPTOR, "kernel 0 has an empty op name"},
    {"bad_device.so", KHOST__STAGE_DESCRIPTOR, "kernel 0 (copy_transpose) has unknown device type 7"},
    {"null_kernel.so", KHOST__STAGE_DESCRIPTOR, "NULL kernel function"},
    {"duplicate_op.so", KHOST__STAGE_DESCRIPTOR, "duplicate op 'copy_transpose'"},
    /* Read in a child process, where the crash costs this plugin only. */
    {"overcount.so", KHOST__STAGE_DESCRIPTOR,
     "kernel 1 of 1000 cannot be read (checking it in a child process: "},
    /* Strings without their NUL: read up to one past the bound, and shown no further. */
    {"name_unterminated.so", KHOST__STAGE_DESCRIPTOR,
     "plugin name 'fixture_name_unterminated_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' is longer than 63 "
     "characters"},
    {"op_unterminated.so", KHOST__STAGE_DESCRIPTOR, "kernel 0 has an op name longer than 63 characters"},
    {"text_unterminated.so", KHOST__STAGE_DESCRIPTOR,
     "plugin 'fixture_text_unterminated' has a description longer than 255 characters"},
};

Test(loader, every_stage_is_recorded_with_its_reason)
{
  for (size_t i = 0; i < sizeof stage_cases / sizeof stage_cases[0]; i++) {
    khost__registry reg = {0};
    load(&reg, stage_cases[i].file);
    cr_expect_eq(reg.nplugins, 0, "%s must not load", stage_cases[i].file);
    cr_assert_eq(reg.nfailures, 1, "%s: one failure expected", stage_cases[i].file);
    cr_expect_eq(reg.failures[0].stage, stage_cases[i].stage, "%s: stage %s, expected %s",
                 stage_cases[i].file, khost__load_stage_name(reg.failures[0].stage),
                 khost__load_stage_name(stage_cases[i].stage));
    cr_expect(strstr(reg.failures[0].reason, stage_cases[i].reason), "%s: reason '%s' lacks '%s'",
              stage_cases[i].file, reg.failures[0].reason, stage_cases[i].reason);
    khost__registry_free(&reg);
  }
}

Test(loader, a_good_plugin_loads_with_its_kernels)
{
  khost__registry reg = {0};
  load(&reg, "good.so");
  cr_assert_eq(reg.nplugins, 1);
  cr_expect_eq(reg.nfailures, 0);
  const khost__plugin *p = khost__registry_find(&reg, "fixture_good");
  cr_assert(p);
  cr_expect(khost__plugin_kernel(p, "copy_transpose", KHOST_DEVICE_CPU));
  cr_expect_null(khost__plugin_kernel(p, "copy_transpose", KHOST_DEVICE_CUDA));
  cr_expect_null(khost__plugin_kernel(p, "reduce_sum", KHOST_DEVICE_CPU));
  cr_expect_null(khost__kernel_supports(p->desc->kernels[0]));
  khost__registry_free(&reg);
  cr_expect_eq(reg.nplugins, 0);
}

/* Clashing ops are found by sorting: comparing every pair took 28 s for these. */
Test(loader, a_plugin_of_100000_kernels_loads_in_well_under_a_second)
{
  khost__registry reg = {0};
  double start = khost__now_s();
  load(&reg, "many_kernels.so");
  double took = khost__now_s() - start;
  cr_assert_eq(reg.nplugins, 1, "%s", reg.nfailures ? reg.failures[0].reason : "");
  cr_expect_eq(reg.plugins[0].desc->nkernels, 100000);
  cr_expect_not_null(khost__plugin_kernel(&reg.plugins[0], "op_99999", KHOST_DEVICE_CPU));
  cr_expect_lt(took, 5.0, "loading 100,000 kernels took %.1f s", took);
  khost__registry_free(&reg);
}

Test(loader, a_second_plugin_of_the_same_name_is_a_duplicate)
{
  khost__registry reg = {0};
  load(&reg, "good.so");
  load(&reg, "good_twin.so");
  cr_assert_eq(reg.nplugins, 1);
  cr_assert_eq(reg.nfailures, 1);
  cr_expect_eq(reg.failures[0].stage, KHOST__STAGE_DUPLICATE);
  cr_expect(strstr(reg.failures[0].reason, "already loaded from"));
  khost__registry_free(&reg);
}

/* Folders a and b under a fresh temporary folder, with a/first.so and b/twin.so
 * linked to the fixtures first and twin, two plugins of one name. Removed by
 * remove_twin_folders. */
static void make_twin_folders(char root[64], char a[96], char b[96], const char *first, const char *twin)
{
  snprintf(root, 64, "/tmp/khost-test-loader-XXXXXX");
  cr_assert_not_null(mkdtemp(root), "mkdtemp: %s", strerror(errno));
  const char *const sub[2] = {"a", "b"}, *const file[2] = {first, twin},
                    *const link[2] = {"first.so", "twin.so"};
  char *const folder[2] = {a, b};
  for (int i = 0; i < 2; i++) {
    char at[160], target[4096];
    snprintf(folder[i], 96, "%s/%s", root, sub[i]);
    cr_assert_eq(mkdir(folder[i], 0755), 0, "mkdir %s: %s", folder[i], strerror(errno));
    /* A relative target would resolve against the link's own folder. */
    cr_assert_not_null(realpath(fixture(file[i]), target), "%s: %s", fixture(file[i]), strerror(errno));
    snprintf(at, sizeof at, "%s/%s", folder[i], link[i]);
    cr_assert_eq(symlink(target, at), 0, "symlink %s: %s", at, strerror(errno));
  }
}

static void remove_twin_folders(const char *root, const char *a, const char *b)
{
  char path[160];
  snprintf(path, sizeof path, "%s/first.so", a);
  unlink(path);
  snprintf(path, sizeof path, "%s/twin.so", b);
  unlink(path);
  rmdir(a);
  rmdir(b);
  rmdir(root);
}

/* The twin folders, searched in order a, b into reg. */
static void search_twin_folders(khost__registry *reg, char root[64], char a[96], char b[96],
                                const char *first, const char *twin)
{
  khost__err err;
  make_twin_folders(root, a, b, first, twin);
  cr_assert_eq(khost__registry_search_dir(reg, a, &err), KHOST__OK, "%s", err.msg);
  cr_assert_eq(khost__registry_search_dir(reg, b, &err), KHOST__OK, "%s", err.msg);
}

Test(loader, a_plugin_of_a_name_from_an_earlier_search_folder_shadows_a_later_one)
{
  char root[64], a[96], b[96];
  khost__registry reg = {0};
  khost__err err;
  search_twin_folders(&reg, root, a, b, "good.so", "good_twin.so");
  cr_expect_eq(reg.nplugins, 1);
  cr_expect_eq(reg.nfailures, 0, "a shadowed plugin is not a failure");
  cr_assert_eq(reg.nshadowed, 1);
  cr_expect(strstr(reg.shadowed[0].path, "good_twin.so"), "%s", reg.shadowed[0].path);
  cr_expect(strstr(reg.shadowed[0].reason, "an earlier search folder"), "%s", reg.shadowed[0].reason);
  khost__registry_free(&reg);
  cr_expect_eq(reg.nshadowed, 0);
  /* Named folders and files are the user's own choice: a clash there is a failure. */
  cr_assert_eq(khost__registry_search_dir(&reg, a, &err), KHOST__OK, "%s", err.msg);
  cr_assert_eq(khost__registry_add_dir(&reg, b, &err), KHOST__OK, "%s", err.msg);
  cr_expect_eq(reg.nshadowed, 0);
  cr_assert_eq(reg.nfailures, 1);
  cr_expect_eq(reg.failures[0].stage, KHOST__STAGE_DUPLICATE);
  khost__registry_free(&reg);
  remove_twin_folders(root, a, b);
}

Test(loader, two_plugins_of_a_name_in_one_search_folder_are_a_duplicate)
{
  khost__registry reg = {0};
  khost__err err;
  cr_assert_eq(khost__registry_search_dir(&reg, getenv("KHOST_FIXTURE_DIR"), &err), KHOST__OK, "%s", err.msg);
  cr_expect_eq(reg.nshadowed, 0);
  int duplicates = 0;
  for (int i = 0; i < reg.nfailures; i++) duplicates += reg.failures[i].stage == KHOST__STAGE_DUPLICATE;
  cr_expect_eq(duplicates, 2, "good_twin.so clashes with good.so, init_fails_twin.so with init_fails.so");
  khost__registry_free(&reg);
}

Test(loader, the_same_file_twice_loads_once_without_a_failure)
{
  khost__registry reg = {0};
  load(&reg, "good.so");
  load(&reg, "good.so");
  cr_expect_eq(reg.nplugins, 1);
  cr_expect_eq(reg.nfailures, 0);
  khost__registry_free(&reg);
}

/* Loads the three init fixtures in this order and probes them: only the good
 * one survives, the refusal keeps its message and the crash its signal. */
static void probe_init_fixtures(const char *const order[3])
{
  khost__registry reg = {0};
  khost__err err;
  for (int i = 0; i < 3; i++) load(&reg, order[i]);
  cr_assert_eq(reg.nplugins, 3);
  cr_assert_eq(khost__registry_probe_init(&reg, 60.0, &err), KHOST__OK, "%s", err.msg);
  cr_assert_eq(reg.nplugins, 1, "only the good plugin survives the probe");
  cr_expect_str_eq(reg.plugins[0].desc->name, "fixture_good");
  cr_assert_eq(reg.nfailures, 2);
  int refused = 0, crashed = 0;
  for (int i = 0; i < 2; i++) {
    cr_expect_eq(reg.failures[i].stage, KHOST__STAGE_INIT);
    refused += strstr(reg.failures[i].reason, "refuses on purpose") != NULL;
    crashed += strstr(reg.failures[i].reason, "signal 11") != NULL;
  }
  cr_expect_eq(refused, 1, "the refusing init's own message is kept");
  cr_expect_eq(crashed, 1, "the crashing init is reported with its signal");
  khost__registry_free(&reg);
}

Test(loader, init_failures_and_crashes_are_probed_in_a_child)
{
  probe_init_fixtures((const char *const[]){"init_fails.so", "good.so", "init_crashes.so"});
}

/* The crash first: the probe must restart past it and still probe the two
 * behind it (the refusal is only reported if it was). */
Test(loader, the_probe_goes_on_after_a_crash_with_the_plugins_left)
{
  probe_init_fixtures((const char *const[]){"init_crashes.so", "init_fails.so", "good.so"});
}

/* The probe waits for an init as long as it is told (--timeout), not a fixed minute. */
Test(loader, an_init_that_hangs_is_cut_at_the_timeout_given)
{
  khost__registry reg = {0};
  khost__err err;
  load(&reg, "init_hangs.so");
  load(&reg, "good.so");
  double start = khost__now_s();
  cr_assert_eq(khost__registry_probe_init(&reg, 0.5, &err), KHOST__OK, "%s", err.msg);
  double took = khost__now_s() - start;
  cr_expect_lt(took, 10.0, "the probe took %.1f s for a timeout of 0.5 s", took);
  cr_assert_eq(reg.nplugins, 1, "the plugin after the hanging one is still probed");
  cr_expect_str_eq(reg.plugins[0].desc->name, "fixture_good");
  cr_assert_eq(reg.nfailures, 1);
  cr_expect_eq(reg.failures[0].stage, KHOST__STAGE_INIT);
  cr_expect_str_eq(reg.failures[0].reason, "init timed out: silent for longer than --timeout 0.5 s");
  khost__registry_free(&reg);
}

/* The first copy found stays the one run even when its init fails (as in PATH),
 * so its failure must name the copy that was not tried in its place. */
Test(loader, an_init_failure_names_the_later_copy_it_shadows)
{
  char root[64], a[96], b[96], twin[4096];
  khost__registry reg = {0};
  khost__err err;
  search_twin_folders(&reg, root, a, b, "init_fails.so", "init_fails_twin.so");
  cr_assert_not_null(realpath(fixture("init_fails_twin.so"), twin), "%s", strerror(errno));
  cr_assert_eq(reg.nshadowed, 1);
  cr_assert_eq(khost__registry_probe_init(&reg, 60.0, &err), KHOST__OK, "%s", err.msg);
  cr_expect_null(khost__registry_find(&reg, "fixture_init_fails"), "the shadowed copy is not run instead");
  cr_expect_eq(reg.nplugins, 0);
  cr_assert_eq(reg.nfailures, 1);
  cr_expect_eq(reg.failures[0].stage, KHOST__STAGE_INIT);
  const char *reason = reg.failures[0].reason;
  cr_expect(strstr(reason, "refuses on purpose"), "the init's own message is kept: %s", reason);
  const char *clause = strstr(reason, "; not tried in its place (the first copy found is the one run): ");
  cr_expect(clause && strstr(clause, twin), "reason '%s' does not name %s", reason, twin);
  khost__registry_free(&reg);
  remove_twin_folders(root, a, b);
}

/* Shadowed copies are matched to the plugin that shadows them, not by name or reason. */
Test(loader, an_init_failure_that_shadows_nothing_names_no_copy)
{
  char root[64], a[96], b[96];
  khost__registry reg = {0};
  khost__err err;
  search_twin_folders(&reg, root, a, b, "good.so", "good_twin.so");
  load(&reg, "init_fails.so");
  cr_assert_eq(reg.nshadowed, 1, "good_twin.so is shadowed by good.so");
  cr_assert_eq(khost__registry_probe_init(&reg, 60.0, &err), KHOST__OK, "%s", err.msg);
  cr_expect_eq(reg.nplugins, 1);
  cr_assert_eq(reg.nfailures, 1);
  cr_expect_eq(reg.failures[0].stage, KHOST__STAGE_INIT);
  cr_expect_null(strstr(reg.failures[0].reason, "not tried"), "%s", reg.failures[0].reason);
  cr_expect_null(strstr(reg.failures[0].reason, "good_twin.so"), "%s", reg.failures[0].reason);
  khost__registry_free(&reg);
  remove_twin_folders(root, a, b);
}

Test(loader, a_directory_scan_loads_plugins_and_records_the_rest)
{
  khost__registry reg = {0};
  khost__err err;
  cr_assert_eq(khost__registry_add_dir(&reg, getenv("KHOST_FIXTURE_DIR"), &err), KHOST__OK, "%s", err.msg);
  cr_expect_geq(reg.nplugins, 3, "good, fault and init fixtures load");
  cr_expect_geq(reg.nfailures, 10, "every broken fixture is recorded");
  char names[4096];
  khost__registry_names(&reg, names, sizeof names);
  cr_expect(strstr(names, "fault_free"), "%s", names);
  khost__registry_free(&reg);
}

Test(loader, a_missing_directory_is_not_an_error)
{
  khost__registry reg = {0};
  khost__err err;
  cr_expect_eq(khost__registry_add_dir(&reg, "/nonexistent/khost/plugins", &err), KHOST__OK);
  cr_expect_eq(reg.nplugins + reg.nfailures, 0);
}

/* ABI 1.2: each descriptor of a set is a plugin of its own (its own reference to
 * the library, so that each unloads alone), a broken one fails alone, and a
 * failed part is recorded at the stage the plugin names, under its source. */
Test(loader, plugin_set_registers_each_backend)
{
  khost__registry reg = {0};
  load(&reg, "plugin_set.so");
  cr_assert_eq(reg.nplugins, 2);
  cr_expect_str_eq(reg.plugins[0].desc->name, "fixture_set");
  cr_expect_str_eq(reg.plugins[1].desc->name, "fixture_set_second");
  cr_assert_eq(reg.nfailures, 2);
  cr_expect_eq(reg.failures[0].stage, KHOST__STAGE_DESCRIPTOR);
  cr_expect(strstr(reg.failures[0].reason, "name ''"), "%s", reg.failures[0].reason);
  cr_expect_eq(reg.failures[1].stage, KHOST__STAGE_NAMED);
  cr_expect_str_eq(khost__load_failure_stage(&reg.failures[1]), "fixture_stage");
  cr_expect_str_eq(reg.failures[1].path, "/nowhere/failed_part.py");
  cr_expect_str_eq(reg.failures[1].reason, "the part failed\nits last line");
  /* The first removed, the second still runs: its reference kept the library. */
  khost__registry_remove(&reg, 0);
  cr_expect_str_eq(reg.plugins[0].desc->name, "fixture_set_second");
  khost__registry_free(&reg);
}

Test(loader, stage_names_are_stable)
{
  static const char *const names[] = {"dlopen",      "symbol",     "entry",     "magic", "abi",
                                      "struct_size", "descriptor", "duplicate", "init",  "plugin"};
  for (int s = 0; s < KHOST__STAGE_COUNT; s++) cr_expect_str_eq(khost__load_stage_name(s), names[s]);
  cr_expect_str_eq(khost__load_stage_name(KHOST__STAGE_COUNT), "?");
}

static int describe_stub(const khost_input *in, char *buf, size_t size)
{
  (void)in;
  (void)buf;
  (void)size;
  return KHOST_STATUS_OK;
}

/* A kernel built against ABI 1.0 ends before describe: the host must not read past it. */
Test(loader, describe_is_read_only_inside_the_kernels_struct_size)
{
  khost_kernel k = {.struct_size = sizeof(khost_kernel), .op = "copy_transpose", .describe = describe_stub};
  cr_expect_eq(khost__kernel_describe(&k), describe_stub);
  k.struct_size = offsetof(khost_kernel, describe);
  cr_expect_null(khost__kernel_describe(&k), "a 1.0 kernel has no describe()");
}

static int call_overhead_stub(const khost_input *in, double *seconds)
{
  (void)in;
  *seconds = 1e-6;
  return KHOST_STATUS_OK;
}

/* A kernel built against ABI 1.1 ends before call_overhead (1.2). */
Test(loader, call_overhead_is_read_only_inside_the_kernels_struct_size)
{
  khost_kernel k = {
      .struct_size = sizeof(khost_kernel), .describe = describe_stub, .call_overhead = call_overhead_stub};
  cr_expect_eq(khost__kernel_call_overhead(&k), call_overhead_stub);
  k.struct_size = offsetof(khost_kernel, call_overhead);
  cr_expect_null(khost__kernel_call_overhead(&k), "a 1.1 kernel has no call_overhead()");
  cr_expect_eq(khost__kernel_describe(&k), describe_stub);
}

/* ABI 1.3 appended flags. A 1.2 kernel ends before them; whatever memory follows
 * it (all bits set here) must not be read as flags. */
Test(loader, flags_are_read_only_inside_the_kernels_struct_size)
{
  khost_kernel k;
  memset(&k, 0xff, sizeof k);
  k.struct_size = offsetof(khost_kernel, flags);
  cr_expect_eq(khost__kernel_flags(&k), 0u, "a 1.2 kernel has no flags");
  k.struct_size = sizeof(khost_kernel);
  k.flags = KHOST_KERNEL_NOT_CAPTURABLE;
  cr_expect_eq(khost__kernel_flags(&k), KHOST_KERNEL_NOT_CAPTURABLE);
}

static int supports_stub(const khost_input *in)
{
  (void)in;
  return KHOST_STATUS_OK;
}

static int workspace_stub(const khost_input *in, size_t *bytes)
{
  (void)in;
  *bytes = 0;
  return KHOST_STATUS_OK;
}

/* The same for the optional hooks of 1.0, against a kernel whose struct ends just before each. */
Test(loader, supports_and_workspace_are_read_only_inside_the_kernels_struct_size)
{
  khost_kernel k = {.struct_size = sizeof(khost_kernel),
                    .op = "copy_transpose",
                    .supports = supports_stub,
                    .workspace_size = workspace_stub};
  cr_expect_eq(khost__kernel_supports(&k), supports_stub);
  cr_expect_eq(khost__kernel_workspace(&k), workspace_stub);
  k.struct_size = offsetof(khost_kernel, workspace_size);
  cr_expect_eq(khost__kernel_supports(&k), supports_stub);
  cr_expect_null(khost__kernel_workspace(&k), "the struct ends before workspace_size");
  k.struct_size = offsetof(khost_kernel, supports);
  cr_expect_null(khost__kernel_supports(&k), "the struct ends before supports");
}

/* End to end, the python plugin (plugins/python, docs/PYTHON.md): the NumPy
 * fixture backend through the plugin on the CPU row ops, every Python failure
 * with the status and text a user sees, a libpython that cannot be found, and the
 * shipped torch and torch_compile backends, which run where PyTorch is installed. */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* khost here finds its Python as a user's does, through python3 on PATH: the
 * KHOST_PYTHON that tests/meson.build sets for the other tests' speed is dropped. */
static void start_as_a_user(void)
{
  unsetenv("KHOST_PYTHON");
  make_scratch();
}

TestSuite(python, .init = start_as_a_user, .fini = remove_scratch, .timeout = 120);

/* The build has the plugin (tests/meson.build sets KHOST_PYTHON_PLUGIN), else skip. */
static void need_plugin(void)
{
  const char *plugin = getenv("KHOST_PYTHON_PLUGIN");
  if (!plugin || !*plugin) SKIP_TEST("the python plugin is not built here (-Dpython, Python headers)");
}

/* "KHOST_PYTHON_BACKENDS=<source>/tests/fixtures/python/NAME.py", static. */
static const char *backends_env(const char *name)
{
  static char entry[4096];
  snprintf(entry, sizeof entry, "KHOST_PYTHON_BACKENDS=%s/tests/fixtures/python/%s.py",
           env("KHOST_SOURCE_ROOT"), name);
  return entry;
}

static void run_fixture(outcome *o, const char *name, const char *backend, const char *timeout)
{
  need_plugin();
  KHOST_ENV(o, ((const char *const[]){backends_env(name), NULL}), "--backends", backend, "--case", COPY_CASE,
            "--timeout", timeout, FAST);
}

/* The ops the NumPy fixture implements, as --op takes them. */
#define ROW_OPS "copy_transpose,reduce_sum,softmax_online"

Test(python, numpy_backend_passes_the_row_ops_and_declines_bf16)
{
  smoke_case cases[MAX_SMOKE_CASES];
  int n = read_smoke(cases, MAX_SMOKE_CASES), checked = 0;
  outcome o;
  need_plugin();
  KHOST_ENV(&o, ((const char *const[]){backends_env("numpy_backend"), NULL}), "--backends", "numpy_fixture",
            "--op", ROW_OPS, FAST);
  for (int i = 0; i < n; i++) {
    /* Each smoke case of a row op: a whole name in the list, not a part of one. */
    char padded[40];
    snprintf(padded, sizeof padded, ",%s,", cases[i].op);
    if (!strstr("," ROW_OPS ",", padded)) continue;
    table_row r = find_device_row(o.out, cases[i].name, "numpy_fixture", "cpu");
    cr_assert(r.found, "no numpy_fixture row for %s:\n%s", cases[i].name, o.out);
    int bf16 = strstr(cases[i].name, "bf16") != NULL;
    cr_expect_str_eq(r.status, bf16 ? "SKIP" : "PASS", "%s: %s", cases[i].name, r.details);
    if (bf16) cr_expect(strstr(r.details, "declined: numpy has no bf16"), "%s", r.details);
    checked++;
  }
  cr_expect_geq(checked, 6, "the smoke suite has fp16, bf16 and fp32 cases of the three row ops");
  cr_expect_eq(o.status, 0, "%s", o.err);
  free_outcome(&o);
}

/* describe() names the kernel; the cost of an empty Python call, measured once
 * the call is prepared, is the row's call overhead (JSON and a note under the
 * row), not part of its name. On a CPU row it is inside the time. */
Test(python, the_variant_names_the_kernel_and_the_row_has_the_python_call_overhead)
{
  outcome o;
  need_plugin();
  KHOST_ENV(&o, ((const char *const[]){backends_env("numpy_backend"), NULL}), "--backends", "numpy_fixture",
            "--case", COPY_CASE, FAST, "--json", report_path());
  json_t *row = json_row(report(&o), COPY_CASE, "numpy_fixture");
  const char *variant = json_text(row, "variant");
  cr_assert(variant, "no variant in the report:\n%s", o.out);
  cr_expect(!strncmp(variant, "numpy ", 6) && !strchr(variant, '('), "describe()'s text alone: %s", variant);
  json_t *time = json_object_get(row, "time");
  double overhead = json_number_value(json_object_get(time, "call_overhead_s"));
  double median = json_number_value(json_object_get(time, "median_s"));
  cr_expect(overhead > 0 && overhead < median, "an empty Python call of %g s in a call of %g s", overhead,
            median);
  table_row r = find_device_row(o.out, COPY_CASE, "numpy_fixture", "cpu");
  cr_expect(strstr(r.details, "an empty kernel of this plugin takes"), "the note under the row:\n%s", o.out);
  free_outcome(&o);
}

/* One failing Python kernel: the fixture module, its backend, and the row's
 * status and parts of its message. */
typedef struct python_fault {
  const char *module, *backend, *timeout, *status;
  const char *parts[3];
} python_fault;

static const python_fault python_faults[] = {
    /* An exception: ERROR with the traceback's end. */
    {"raises",
     "py_raises",
     "60",
     "ERROR",
     {"kernel returned status 4", "in run", "ValueError: the fixture's kernel failed on purpose"}},
    /* A hang: TIMEOUT, as every hang. */
    {"hangs", "py_hangs", "3", "TIMEOUT", {"longer than --timeout 3 s"}},
    /* Returned outputs of the wrong dtype or shape: ERROR naming both. */
    {"wrong_dtype",
     "py_wrong_dtype",
     "60",
     "ERROR",
     {"run() returned fp32 [100, 64] on cpu for output 'out', which is fp16 [100, 64] on cpu"}},
    {"wrong_shape",
     "py_wrong_shape",
     "60",
     "ERROR",
     {"run() returned fp16 [64, 100] on cpu for output 'out'"}},
    /* None returned, nothing written: khost's poison stays, FAIL. */
    {"empty", "py_no_write", "60", "FAIL", {"never written"}},
};

Test(python, each_python_failure_gets_its_status_and_message)
{
  for (size_t i = 0; i < sizeof python_faults / sizeof python_faults[0]; i++) {
    const python_fault *f = &python_faults[i];
    outcome o;
    run_fixture(&o, f->module, f->backend, f->timeout);
    table_row r = find_device_row(o.out, COPY_CASE, f->backend, "cpu");
    cr_expect_str_eq(r.status, f->status, "%s:\n%s", f->module, o.out);
    for (int p = 0; p < 3 && f->parts[p]; p++)
      cr_expect(strstr(r.details, f->parts[p]), "%s: %s", f->module, r.details);
    expect_row(&o, COPY_CASE, "reference", "PASS");
    cr_expect_eq(o.status, 1, "%s", f->module);
    free_outcome(&o);
  }
}

Test(python, a_module_that_fails_to_import_is_a_load_failure_at_stage_python)
{
  outcome o;
  need_plugin();
  KHOST_ENV(&o, ((const char *const[]){backends_env("import_fails"), NULL}), "--list");
  cr_expect(strstr(o.out, "tests/fixtures/python/import_fails.py\n    stage python: "), "%s", o.out);
  cr_expect(strstr(o.out, "ModuleNotFoundError: No module named 'khost_no_such_module_anywhere'"), "%s",
            o.out);
  cr_expect_eq(o.status, 0, "a load failure is not fatal without --strict");
  free_outcome(&o);
  KHOST_ENV(&o, ((const char *const[]){backends_env("import_fails"), NULL}), "--list", "--strict");
  cr_expect_eq(o.status, 2);
  free_outcome(&o);
}

/* No libpython: the plugin fails at stage python naming what it searched, and the
 * rest of khost runs. */
Test(python, a_missing_libpython_is_a_load_failure_naming_what_was_searched)
{
  outcome o;
  need_plugin();
  KHOST_ENV(&o, ((const char *const[]){"KHOST_PYTHON=/nonexistent/libpython3.99.so", NULL}), "--list");
  cr_expect(strstr(o.out, "python.so\n    stage python: KHOST_PYTHON=/nonexistent/libpython3.99.so cannot be "
                          "opened"),
            "%s", o.out);
  free_outcome(&o);
  KHOST_ENV(&o, ((const char *const[]){"KHOST_PYTHON=/nonexistent/python3", NULL}), "--list");
  cr_expect(strstr(o.out, "stage python: cannot run /nonexistent/python3"), "%s", o.out);
  free_outcome(&o);
  KHOST_ENV(&o, ((const char *const[]){"KHOST_PYTHON=/nonexistent/python3", NULL}), "--case", COPY_CASE,
            FAST);
  expect_row(&o, COPY_CASE, "reference", "PASS");
  free_outcome(&o);
}

/* The torch backends import torch on first use, not when khost loads them: --list
 * (as every run) declares its kernels without the import of seconds. A package
 * named torch that logs its import stands in front of sys.path; python3
 * importing it first shows that the log would record an import. */
Test(python, listing_the_torch_backend_does_not_import_torch)
{
  need_plugin();
  char *log = scratch_path("imports.log"), path_env[4096], log_env[4096], command[2 * 4096 + 64];
  snprintf(path_env, sizeof path_env, "PYTHONPATH=%s/tests/fixtures/python/import_probe",
           env("KHOST_SOURCE_ROOT"));
  snprintf(log_env, sizeof log_env, "KHOST_TEST_IMPORT_LOG=%s", log);
  snprintf(command, sizeof command, "%s %s python3 -c 'import torch' 2>/dev/null", path_env, log_env);
  cr_assert_neq(system(command), 0, "the probe fails its import, as a missing torch does");
  char *logged = slurp(log);
  cr_assert(logged && strstr(logged, "torch imported"), "the probe logs an import");
  free(logged);
  remove(log);
  outcome o;
  KHOST_ENV(&o, ((const char *const[]){path_env, log_env, NULL}), "--list");
  cr_expect_eq(o.status, 0, "%s", o.err);
  cr_expect(strstr(o.out, "  torch "), "the torch backend is listed:\n%s", o.out);
  cr_expect(strstr(o.out, "  torch_compile "), "the torch_compile backend is listed:\n%s", o.out);
  logged = slurp(log);
  cr_expect_null(logged, "khost --list imported torch: %s", logged);
  free(logged);
  free(log);
  free_outcome(&o);
}

/* Skips with the reason unless python3 has PyTorch and PyTorch sees a GPU: the
 * torch backends' rows must then PASS. */
static void need_torch_on_a_gpu(void)
{
  need_plugin();
  if (system("python3 -c 'import torch' >/dev/null 2>&1") != 0)
    SKIP_TEST(
        "PyTorch is not installed for python3 here (a multi-GB install; the GPU machine's image has it)");
  if (system("python3 -c 'import sys, torch; sys.exit(not torch.cuda.is_available())' >/dev/null 2>&1") != 0)
    SKIP_TEST("PyTorch sees no GPU here (torch.cuda.is_available() is False)");
}

/* The torch backend on a GPU: every row op of the smoke suite PASSes. */
Test(python, the_torch_backend_passes_on_a_gpu)
{
  need_torch_on_a_gpu();
  outcome o;
  KHOST(&o, "--backends", "torch", "--op", "copy_transpose,reduce_sum,softmax_online", FAST);
  summary s = read_summary(o.out);
  cr_expect_eq(s.failed + s.errored + s.crashed + s.timed_out, 0, "%s", o.out);
  table_row r = find_device_row(o.out, COPY_CASE, "torch", "cuda");
  cr_expect(r.found && !strcmp(r.status, "PASS"), "%s", o.out);
  free_outcome(&o);
}

/* torch_compile on a GPU: declined unless KHOST_TORCH_COMPILE=1 asks for it; then one
 * case of each row op, compiled in supports() (never timed), each row PASS with the
 * compiled expression as its variant. */
Test(python, the_torch_compile_backend_passes_on_a_gpu, .timeout = 300)
{
  static const char *const cases[] = {COPY_CASE, "reduce_sum_fp16_128x512", "softmax_online_fp32_64x100"};
  need_torch_on_a_gpu();
  unsetenv("KHOST_TORCH_COMPILE"); /* a user's own setting would hide the opt-in */
  outcome o;
  KHOST(&o, "--backends", "torch_compile", "--case", COPY_CASE, FAST);
  table_row declined = find_device_row(o.out, COPY_CASE, "torch_compile", "cuda");
  cr_expect(declined.found && !strcmp(declined.status, "SKIP") &&
                strstr(declined.details, "KHOST_TORCH_COMPILE=1"),
            "without KHOST_TORCH_COMPILE=1 the row is declined, saying how to ask for it:\n%s", o.out);
  free_outcome(&o);
  KHOST_ENV(&o, ((const char *const[]){"KHOST_TORCH_COMPILE=1", NULL}), "--backends", "torch_compile",
            "--case", COPY_CASE ",reduce_sum_fp16_128x512,softmax_online_fp32_64x100", FAST, "--json",
            report_path());
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    json_t *row = json_row(report(&o), cases[i], "torch_compile");
    cr_assert(row, "no torch_compile row for %s:\n%s", cases[i], o.out);
    const char *status = json_text(row, "status"), *variant = json_text(row, "variant");
    cr_expect(status && !strcmp(status, "PASS"), "%s: %s\n%s", cases[i], status, o.out);
    cr_expect(variant && !strncmp(variant, "torch.compile(", 14), "%s: variant %s", cases[i], variant);
  }
  free_outcome(&o);
}

/* End to end, faults: every CPU fault fixture caught with the right status while
 * the other rows pass, faulty oracles, fresh-input trials, a timeout and a kill
 * in khost's own work, a case too large for memory, and fini() that hangs or
 * crashes. */
#include "support.h"

#include <criterion/parameterized.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

TestSuite(faults, .init = make_scratch, .fini = remove_scratch, .timeout = 120);

/* One fault fixture and how khost must report it. Fixed-size fields: Criterion
 * copies parameters into each test process by value. */
typedef struct fault {
  char backend[32];
  char case_name[32];
  char status[12];
  char message[96]; /* part of the row's message (or, with where, of its mismatch lines) */
  char where[32];   /* coordinates of the first mismatch, "" when not checked */
  long unwritten;   /* check.unwritten, -1 when not checked */
  int exit_status;
} fault;

static fault fault_table[] = {
    {"fault_segv", COPY_CASE, "CRASH", "signal 11", "", -1, 1},
    {"fault_abort", COPY_CASE, "CRASH", "signal 6", "", -1, 1},
    {"fault_exit0", COPY_CASE, "CRASH", "exited with status 0", "", -1, 1},
    {"fault_hang", COPY_CASE, "TIMEOUT", "longer than --timeout", "", -1, 1},
    {"fault_status", COPY_CASE, "ERROR", "fault plugin reports failure on purpose", "", -1, 1},
    /* Its damage to the input is undone before the next backend (fault_free) runs. */
    {"fault_mutate_status", COPY_CASE, "ERROR", "fault plugin reports failure on purpose", "", -1, 1},
    {"fault_decline", COPY_CASE, "SKIP", "fault plugin declines every shape", "", -1, 0},
    /* Each timed call has inputs no earlier call had: a kept result is wrong at once. */
    {"fault_cached", COPY_CASE, "FAIL", "timed call 1 (warm-up) left", "", -1, 1},
    {"fault_cached_address", COPY_CASE, "FAIL", "timed call 1 (warm-up) left", "", -1, 1},
    /* The counts of the failing timed call, not of the clean first pass. */
    {"fault_lazy", COPY_CASE, "FAIL", "never written) on inputs no earlier call had seen", "", COPY_ELEMENTS,
     1},
    {"fault_no_write", COPY_CASE, "FAIL", "never written", "", COPY_ELEMENTS, 1},
    {"fault_skip_last", COPY_CASE, "FAIL", "(1 never written)", "", 1, 1},
    {"fault_write_past_end", COPY_CASE, "FAIL", "out-of-bounds write: out: ", "", -1, 1},
    {"fault_mutate_input", COPY_CASE, "ERROR", "modified its input", "", -1, 1},
    {"fault_mutate_late", COPY_CASE, "ERROR", "modified its input", "", -1, 1}, /* only while timed */
    {"fault_wrong_block", GEMV_CASE, "FAIL", "batch=0, row=1", "c[batch=0, row=1]", -1, 1},
    {"fault_describe_fails", COPY_CASE, "ERROR", "describe() returned status 4: fault plugin cannot name", "",
     -1, 1},
    {"fault_supports_fails", COPY_CASE, "ERROR", "supports() returned status 4: fault plugin cannot judge",
     "", -1, 1},
    {"fault_overhead_fails", COPY_CASE, "ERROR",
     "call_overhead() returned status 4: fault plugin cannot time its calls", "", -1, 1},
    {"fault_overhead_nan", COPY_CASE, "ERROR", "call_overhead() gave nan s, not a time from 0 to 1000 s", "",
     -1, 1},
    {"fault_workspace_overrun", COPY_CASE, "FAIL", "out-of-bounds write: workspace", "", -1, 1},
    {"fault_workspace_huge", COPY_CASE, "ERROR", "workspace_size() asked for", "", -1, 1},
    /* Writes to what a call is handed as read-only: each call has its own copy, checked after it. */
    {"fault_const_shape", COPY_CASE, "ERROR",
     "run() wrote to what khost passed it as read-only: the shape of tensor 'in'", "", -1, 1},
    {"fault_const_params", COPY_CASE, "ERROR",
     "run() wrote to what khost passed it as read-only: parameter 'm'", "", -1, 1},
    {"fault_const_name", COPY_CASE, "ERROR",
     "run() wrote to what khost passed it as read-only: the name of tensor", "", -1, 1},
    {"fault_const_strides", COPY_CASE, "ERROR",
     "supports() wrote to what khost passed it as read-only: the strides of tensor 'out'", "", -1, 1},
    /* A SIGKILL khost did not send is what the out-of-memory killer leaves. */
    {"fault_sigkill", COPY_CASE, "CRASH",
     "(Killed) during check, not by khost: most likely by the kernel's out-of-memory", "", -1, 1},
};

static const char *timeout_for(const fault *f)
{
  /* Only the hang waits for it; the others must not be cut short by a slow machine. */
  return strcmp(f->backend, "fault_hang") ? "30" : "2";
}

static void expect_fault_row(const outcome *o, json_t *doc, const fault *f)
{
  table_row row = find_row(o->out, f->case_name, f->backend);
  cr_expect(row.found, "%s: no table row; stdout:\n%s", f->backend, o->out);
  cr_expect_str_eq(row.status, f->status, "%s: table status %s, expected %s", f->backend, row.status,
                   f->status);
  cr_expect_not_null(strstr(row.details, f->message), "%s: table details lack '%s':\n%s", f->backend,
                     f->message, row.details);
  json_t *r = json_row(doc, f->case_name, f->backend);
  cr_assert_not_null(r, "%s: no JSON row", f->backend);
  cr_expect_str_eq(json_text(r, "status"), f->status, "%s: JSON status", f->backend);
  json_t *check = json_object_get(r, "check");
  if (f->where[0]) {
    json_t *first = json_array_get(json_object_get(check, "first_mismatches"), 0);
    cr_expect_str_eq(json_text(first, "where"), f->where, "%s: first mismatch", f->backend);
    cr_expect_eq(json_integer_value(json_object_get(check, "mismatches")), 1, "%s: one wrong element",
                 f->backend);
  } else {
    cr_expect_not_null(strstr(json_text(r, "message"), f->message), "%s: JSON message '%s' lacks '%s'",
                       f->backend, json_text(r, "message"), f->message);
  }
  if (f->unwritten >= 0)
    cr_expect_eq(json_integer_value(json_object_get(check, "unwritten")), f->unwritten, "%s: unwritten",
                 f->backend);
  /* Every fault's copy kernel names itself once prepared, so crashed and hung rows keep the name too. */
  int named =
      !strcmp(f->case_name, COPY_CASE) && strcmp(f->status, "SKIP") != 0 &&
      strcmp(f->backend, "fault_describe_fails") != 0 && strcmp(f->backend, "fault_supports_fails") != 0 &&
      strcmp(f->backend, "fault_workspace_huge") != 0 && strcmp(f->backend, "fault_const_strides") != 0 &&
      strncmp(f->backend, "fault_overhead_", 15) != 0;
  if (named)
    cr_expect_str_eq(json_text(r, "variant"), "bytewise_transpose", "%s: variant", f->backend);
  else
    cr_expect(json_is_null(json_object_get(r, "variant")), "%s: no variant", f->backend);
}

ParameterizedTestParameters(faults, each_fault_is_caught_and_the_other_rows_pass)
{
  return cr_make_param_array(fault, fault_table, sizeof fault_table / sizeof fault_table[0]);
}

ParameterizedTest(fault *f, faults, each_fault_is_caught_and_the_other_rows_pass)
{
  char plugin[64], backends[128];
  snprintf(plugin, sizeof plugin, "@%s.so", f->backend);
  snprintf(backends, sizeof backends, "reference,fault_free,%s", f->backend);
  outcome o;
  KHOST_JSON(&o, FAST, "--case", f->case_name, "--timeout", timeout_for(f), "--plugin", plugin, "--plugin",
             "@fault_free.so", "--backends", backends);
  cr_expect_eq(o.status, f->exit_status, "%s: exit %d, expected %d; stderr:\n%s", f->backend, o.status,
               f->exit_status, o.err);
  json_t *doc = report(&o);
  expect_fault_row(&o, doc, f);
  expect_row(&o, f->case_name, "reference", "PASS");
  expect_row(&o, f->case_name, "fault_free", "PASS");
  cr_expect_str_eq(json_text(json_row(doc, f->case_name, "reference"), "status"), "PASS");
  cr_expect_str_eq(json_text(json_row(doc, f->case_name, "fault_free"), "status"), "PASS");
  cr_expect(json_is_true(json_object_get(doc, "finished")));
  free_outcome(&o);
}

/* fault_unlucky is wrong on about one input set in four, right on the case's seed and
 * on the first fresh one: the first pass and the single default trial miss it, but
 * the timed calls, each on inputs of its own and each checked, find it and name
 * the call. A passing row's check counts the case's seed and every trial. */
Test(faults, checked_timed_calls_find_a_kernel_wrong_on_some_inputs_only)
{
  outcome o;
  KHOST_JSON(&o, FAST, "--case", COPY_CASE, "--plugin", "@fault_unlucky.so", "--plugin", "@fault_free.so",
             "--backends", "reference,fault_free,fault_unlucky", "--trials", "3");
  cr_expect_eq(o.status, 1, "exit %d; stderr:\n%s", o.status, o.err);
  expect_row(&o, COPY_CASE, "reference", "PASS");
  expect_row(&o, COPY_CASE, "fault_free", "PASS");
  json_t *doc = report(&o);
  json_t *unlucky = json_row(doc, COPY_CASE, "fault_unlucky");
  cr_expect_str_eq(json_text(unlucky, "status"), "FAIL");
  const char *message = json_text(unlucky, "message");
  cr_expect(strstr(message, "left 1 of 6400 elements out of tolerance") && strstr(message, "timed call "),
            "message: %s", message);
  json_t *check = json_object_get(json_row(doc, COPY_CASE, "fault_free"), "check");
  cr_expect_eq(json_integer_value(json_object_get(check, "count")), 4 * COPY_ELEMENTS);
  free_outcome(&o);
}

Test(faults, every_fault_in_one_run_is_caught_and_no_row_is_lost)
{
  char at[sizeof fault_table / sizeof fault_table[0]][48], selected[1024] = "fault_free";
  /* --backends: the build's own plugins (a GPU one, say) must not change the count. */
  const char *args[96] = {FAST,         "--case", COPY_CASE,  "--timeout",     "5",
                          "--backends", selected, "--plugin", "@fault_free.so"};
  int n = 0, nfaults = (int)(sizeof fault_table / sizeof fault_table[0]);
  while (args[n]) n++;
  for (int i = 0; i < nfaults; i++) {
    snprintf(at[i], sizeof at[i], "@%.31s.so", fault_table[i].backend);
    args[n++] = "--plugin";
    args[n++] = at[i];
    size_t used = strlen(selected);
    snprintf(selected + used, sizeof selected - used, ",%.31s", fault_table[i].backend);
  }
  args[n] = NULL;
  outcome o;
  run_env(&o, NULL, args);
  cr_expect_eq(o.status, 1, "exit %d; stderr:\n%s", o.status, o.err);
  expect_row(&o, COPY_CASE, "reference", "PASS");
  expect_row(&o, COPY_CASE, "fault_free", "PASS");
  for (int i = 0; i < nfaults; i++) {
    /* wrong_block's defect is in nvfp4_gemv; its copy_transpose is right. */
    int copy_fault = !strcmp(fault_table[i].case_name, COPY_CASE);
    expect_row(&o, COPY_CASE, fault_table[i].backend, copy_fault ? fault_table[i].status : "PASS");
  }
  summary s = read_summary(o.out);
  cr_expect_eq(s.rows, nfaults + 2 + reference_cuda_rows(), "one row per backend and device:\n%s", o.out);
  free_outcome(&o);
}

/* oracle as the reference, fault_free as the only backend: the case fails as
 * ERROR on fault_free's row (it is not to blame), with message (and detail,
 * unless NULL) shown. */
static void expect_oracle_failure(const char *oracle, const char *message, const char *detail)
{
  char plugin[64];
  snprintf(plugin, sizeof plugin, "@%s.so", oracle);
  outcome o;
  KHOST(&o, FAST, "--case", COPY_CASE, "--plugin", plugin, "--plugin", "@fault_free.so", "--reference",
        oracle, "--backends", "fault_free");
  cr_expect_eq(o.status, 1, "%s: exit %d; stderr:\n%s", oracle, o.status, o.err);
  expect_row(&o, COPY_CASE, "fault_free", "ERROR");
  cr_expect_not_null(strstr(o.out, message), "%s: no '%s' in stdout:\n%s", oracle, message, o.out);
  if (detail) cr_expect_not_null(strstr(o.out, detail), "%s: no '%s' in stdout:\n%s", oracle, detail, o.out);
  free_outcome(&o);
}

/* An oracle that writes nothing would agree with every kernel that writes nothing. */
Test(faults, an_oracle_that_leaves_outputs_unwritten_fails_the_case)
{
  expect_oracle_failure("fault_no_write", "the oracle left 6400 elements of out unwritten", NULL);
}

/* Every element is checked, the last as well as the first. */
Test(faults, an_oracle_that_leaves_its_last_element_unwritten_fails_the_case)
{
  expect_oracle_failure("fault_skip_last", "the oracle left 1 elements of out unwritten", NULL);
}

/* Its guard bands are checked as a backend's are: the bytes past its output are not its answer. */
Test(faults, an_oracle_that_writes_past_its_output_fails_the_case)
{
  expect_oracle_failure("fault_write_past_end", "out: 1 guard bytes overwritten past the end", NULL);
}

/* It would hand the backends other data than it answered for. */
Test(faults, an_oracle_that_modifies_its_input_fails_the_case_and_no_backend_is_blamed)
{
  expect_oracle_failure("fault_mutate_input", "the oracle modified its input", NULL);
}

Test(faults, a_crashing_oracle_fails_every_row_of_the_case_with_its_signal)
{
  expect_oracle_failure("fault_segv", "the reference failed", "signal 11");
}

/* A worker silent past --timeout in khost's own work (here generating 1 GiB of
 * inputs) has no backend to blame: every row is ERROR naming the phase, and the
 * case is not run again. */
Test(faults, a_timeout_while_khost_generates_inputs_names_that_phase_and_blames_no_backend)
{
  char *suite = scratch_path("big.ini");
  /* 1 GiB of input: generating it takes far longer than the 0.05 s timeout. */
  write_file(suite, "[big]\nop = copy_transpose\ndtype = fp32\nm = 16384\nn = 16384\n");
  outcome o;
  KHOST(&o, FAST, "--suite", suite, "--timeout", "0.05", "--plugin", "@fault_free.so", "--reference",
        "fault_free", "--backends", "fault_free");
  cr_expect_eq(o.status, 1, "exit %d; stderr:\n%s", o.status, o.err);
  table_row row = find_row(o.out, "big", "fault_free");
  cr_expect_str_eq(row.status, "ERROR", "stdout:\n%s", o.out);
  cr_expect_not_null(strstr(row.details, "silent for longer than --timeout 0.05 s during inputs"), "%s",
                     row.details);
  free_outcome(&o);
  free(suite);
}

/* The oracle dies on the first fresh trial's inputs. Rows already final (a SKIP, an
 * ERROR of the backend's own) keep their status and message; only rows still passing
 * take the reference's failure, which names the trial. */
Test(faults, an_oracle_crashing_on_a_fresh_trial_leaves_the_rows_already_final_as_they_were)
{
  outcome o;
  KHOST_JSON(&o, FAST, "--case", COPY_CASE, "--plugin", "@fault_segv_fresh.so", "--plugin", "@fault_free.so",
             "--plugin", "@fault_decline.so", "--plugin", "@fault_status.so", "--reference",
             "fault_segv_fresh", "--backends", "fault_free,fault_decline,fault_status");
  cr_expect_eq(o.status, 1, "exit %d; stderr:\n%s", o.status, o.err);
  json_t *doc = report(&o);
  expect_json_row(doc, COPY_CASE, "fault_decline", "SKIP", "fault plugin declines every shape");
  expect_json_row(doc, COPY_CASE, "fault_status", "ERROR", "fault plugin reports failure on purpose");
  expect_json_row(doc, COPY_CASE, "fault_free", "ERROR", "signal 11");
  expect_json_row(doc, COPY_CASE, "fault_free", "ERROR", "during reference, trial 1/1");
  free_outcome(&o);
}

/* How many times needle occurs in haystack. */
static int occurrences(const char *haystack, const char *needle)
{
  int n = 0;
  for (const char *p = haystack; (p = strstr(p, needle)); p += strlen(needle)) n++;
  return n;
}

/* The smoke suite's copy_transpose cases with plugin as the only backend, its
 * fini() counted in a file: the run's outcome, and how often fini() ran. */
static int run_fini_fixture(outcome *o, const char *plugin, const char *backend)
{
  char *log = scratch_path("fini.log"), *entry = NULL;
  cr_assert(asprintf(&entry, "KHOST_TEST_FINI_LOG=%s", log) >= 0);
  const char *envs[] = {entry, NULL};
  KHOST_ENV(o, envs, FAST, "--op", "copy_transpose", "--timeout", "2", "--plugin", plugin, "--backends",
            backend);
  char *calls = slurp(log);
  int n = calls ? occurrences(calls, "fini\n") : 0;
  free(calls);
  free(entry);
  free(log);
  return n;
}

static int smoke_cases_of(const char *op)
{
  smoke_case cases[MAX_SMOKE_CASES];
  int n = read_smoke(cases, MAX_SMOKE_CASES), found = 0;
  for (int i = 0; i < n; i++) found += !strcmp(cases[i].op, op);
  return found;
}

/* A fini() hangs once every row is final: no row is to blame, so stderr names the
 * plugin, the run fails, and later workers do not call it again, so that the hang
 * costs --timeout once, not once per case. */
Test(faults, a_hanging_fini_is_named_once_and_waited_for_once)
{
  cr_assert_geq(smoke_cases_of("copy_transpose"), 2, "the test needs several cases");
  outcome o;
  int calls = run_fini_fixture(&o, "@fault_fini_hang.so", "fault_fini_hang");
  cr_expect_eq(o.status, 1, "exit %d; stderr:\n%s", o.status, o.err);
  cr_expect_eq(calls, 1, "fini() called %d times: once per case costs --timeout each time", calls);
  cr_expect_eq(
      occurrences(o.err, "khost: plugin fault_fini_hang: fini() did not return in the worker of case "), 1,
      "stderr:\n%s", o.err);
  cr_expect_not_null(
      strstr(o.err, "silent for longer than --timeout 2 s during fini; it is not called again"),
      "stderr:\n%s", o.err);
  summary s = read_summary(o.out);
  cr_expect_eq(s.passed + s.skipped, s.rows, "every row is fini()'s victim, not its culprit:\n%s", o.out);
  free_outcome(&o);
}

/* The same for a fini() that crashes: once named with its signal, not ignored. */
Test(faults, a_crashing_fini_is_named_with_its_signal_and_fails_the_run)
{
  outcome o;
  int calls = run_fini_fixture(&o, "@fault_fini_crash.so", "fault_fini_crash");
  cr_expect_eq(o.status, 1, "exit %d; stderr:\n%s", o.status, o.err);
  cr_expect_eq(calls, 1, "fini() called %d times", calls);
  cr_expect_eq(occurrences(o.err, "khost: plugin fault_fini_crash: fini() did not return"), 1, "stderr:\n%s",
               o.err);
  cr_expect_not_null(strstr(o.err, "the worker was killed by signal 11 (Segmentation fault) during fini"),
                     "stderr:\n%s", o.err);
  summary s = read_summary(o.out);
  cr_expect_eq(s.passed + s.skipped, s.rows, "stdout:\n%s", o.out);
  free_outcome(&o);
}

/* The resident memory of pid in kB (VmRSS), 0 when unknown. */
static long resident_kb(long pid)
{
  char path[64], text[4096];
  snprintf(path, sizeof path, "/proc/%ld/status", pid);
  FILE *f = fopen(path, "r");
  long kb = 0;
  while (f && fgets(text, sizeof text, f))
    if (sscanf(text, "VmRSS: %ld kB", &kb) == 1) break;
  if (f) fclose(f);
  return kb;
}

/* The pid of a child of parent resident in at least min_kb more than parent (the
 * worker generating a large case's inputs), 0 if none. Counted above parent's
 * own: a child shares parent's pages, which the embedded Python (the python
 * plugin) and the sanitizers make large, and a plugin probe adds few to them. */
static pid_t large_child(pid_t parent, long min_kb)
{
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)parent, (int)parent);
  char *children = slurp(path);
  pid_t found = 0;
  for (char *p = children, *end; p && !found && *p; p = end) {
    long pid = strtol(p, &end, 10);
    if (end == p) break;
    if (resident_kb(pid) - resident_kb(parent) >= min_kb) found = (pid_t)pid;
  }
  free(children);
  return found;
}

/* A worker killed by a SIGKILL that khost did not send, in khost's own work: no
 * backend is blamed, and the rows say what most likely sent it. */
Test(faults, a_worker_killed_unannounced_during_inputs_names_the_out_of_memory_killer)
{
  char *suite = scratch_path("big.ini");
  /* 1 GiB of input: the worker is caught at 128 MiB, and the rest of the
   * generation (seconds on a busy machine, where this poll may also be late)
   * leaves the kill a wide window inside the inputs phase. */
  write_file(suite, "[big]\nop = copy_transpose\ndtype = fp32\nm = 16384\nn = 16384\n");
  running r;
  const char *args[] = {FAST,         "--suite",    suite,        "--plugin", "@fault_free.so", "--reference",
                        "fault_free", "--backends", "fault_free", "--json",   report_path(),    NULL};
  start(&r, NULL, args);
  pid_t worker = 0;
  for (int i = 0; i < 3000 && !worker; i++) {
    usleep(5000);
    worker = large_child(r.pid, 128 * 1024);
  }
  cr_assert_gt(worker, 0, "no worker grew to 128 MiB while generating the inputs");
  kill(worker, SIGKILL);
  outcome o;
  finish(&r, &o);
  cr_expect_eq(o.status, 1, "exit %d; stderr:\n%s", o.status, o.err);
  expect_json_row(
      report(&o), "big", "fault_free", "ERROR",
      "the worker was killed by signal 9 (Killed) during inputs, not by khost: most likely by the "
      "kernel's out-of-memory killer");
  free_outcome(&o);
  free(suite);
}

/* A case larger than the memory the worker may take is refused before any of it
 * is allocated, with both amounts, instead of drawing the out-of-memory killer.
 * The address-space limit stands in for a machine that is short of memory. */
Test(faults, a_case_larger_than_the_memory_available_is_refused_with_both_amounts)
{
#if defined(__SANITIZE_ADDRESS__)
  SKIP_TEST("AddressSanitizer reserves more address space than any RLIMIT_AS this test could set");
#else
  char *suite = scratch_path("huge.ini");
  write_file(suite, "[huge]\nop = copy_transpose\ndtype = fp32\nm = 32768\nn = 32768\n");
  struct rlimit limit = {(rlim_t)3 << 30, (rlim_t)3 << 30};
  cr_assert_eq(setrlimit(RLIMIT_AS, &limit), 0, "setrlimit: %s", strerror(errno));
  outcome o;
  KHOST_JSON(&o, FAST, "--suite", suite, "--plugin", "@fault_free.so", "--reference", "fault_free",
             "--backends", "fault_free");
  cr_expect_eq(o.status, 1, "exit %d; stderr:\n%s", o.status, o.err);
  expect_json_row(report(&o), "huge", "fault_free", "ERROR",
                  "not enough host memory for the case's inputs and reference outputs: 12.0 GiB needed, ");
  expect_json_row(report(&o), "huge", "fault_free", "ERROR", " available");
  free_outcome(&o);
  free(suite);
#endif
}

/* ---- the KV-cache conversions' own faults (tests/plugins/kv_fault.c) ---- */

typedef struct kv_fault {
  char backend[32];
  char case_name[32];
  char status[12];
  char message[112]; /* part of the row's details */
} kv_fault;

static kv_fault kv_fault_table[] = {
    /* A chunk read through its neighbour's entry: wrong elements, named by the chunk they belong to. */
    {"kv_fault_wrong_entry", "b2o_s1_bf16", "FAIL", "dst[b=0, l=0, o=0, t=0, h=0, d=0] (flat index 0)"},
    /* One chunk's bytes past its end land in the gap after it, which is named. */
    {"kv_fault_overrun", "o2b_s1_bf16", "FAIL", "out-of-bounds write: dst: written outside every chunk"},
    {"kv_fault_overrun", "o2b_s2_fp32", "FAIL", "(the gap after chunk dst[b="},
    /* Every chunk read as NHD: right where it is NHD, wrong where it is HND. */
    {"kv_fault_ignores_layout", "b2u_s1_bf16_nhd", "PASS", ""},
    {"kv_fault_ignores_layout", "b2u_s1_bf16_hnd", "FAIL", "600 of 720 elements outside atol 0 + rtol 0"},
    /* A changed entry is a modified input, named by its index: 3 blocks x 2 layers x K, V = 12 entries. */
    {"kv_fault_writes_table", "o2b_s1_bf16", "ERROR", "the kernel modified its input 'dst_table' (entry 11)"},
    /* A write past a table's end is out of bounds, as past an output's; so with no entries (nb = 0). */
    {"kv_fault_table_overrun", "o2b_s2_fp32", "FAIL", "out-of-bounds write: src_table: "},
    {"kv_fault_table_overrun", "o2b_s3_e4m3", "FAIL", "guard bytes overwritten past the end"},
    {"kv_fault_table_overrun", "o2b_empty_bf16", "FAIL", "out-of-bounds write: src_table: "},
};

/* khost on f's case of kv_correctness, with the reference and f's fixture plugin alone. */
static void run_kv_fault(outcome *o, const kv_fault *f)
{
  char plugin[64], backends[64];
  snprintf(plugin, sizeof plugin, "@%s.so", f->backend);
  snprintf(backends, sizeof backends, "reference,%s", f->backend);
  KHOST(o, FAST, "--suite", "kv_correctness", "--case", f->case_name, "--plugin", plugin, "--backends",
        backends);
}

ParameterizedTestParameters(faults, each_kv_fault_is_caught_and_named)
{
  return cr_make_param_array(kv_fault, kv_fault_table, sizeof kv_fault_table / sizeof kv_fault_table[0]);
}

ParameterizedTest(kv_fault *f, faults, each_kv_fault_is_caught_and_named)
{
  outcome o;
  run_kv_fault(&o, f);
  table_row row = find_row(o.out, f->case_name, f->backend);
  cr_assert(row.found, "%s: no table row; stdout:\n%s\nstderr:\n%s", f->backend, o.out, o.err);
  cr_expect_str_eq(row.status, f->status, "%s on %s: details:\n%s", f->backend, f->case_name, row.details);
  cr_expect_not_null(strstr(row.details, f->message), "%s: details lack '%s':\n%s", f->backend, f->message,
                     row.details);
  expect_row(&o, f->case_name, "reference", "PASS");
  cr_expect_eq(o.status, strcmp(f->status, "PASS") ? 1 : 0, "exit %d", o.status);
  free_outcome(&o);
}

/* End to end, what khost writes: the JSON report against the table, the rates
 * and times in it, a closed stdout, a killed run, the CSV report, --dump's .npy
 * files, reports or dumps that cannot be written, two runs writing one report,
 * and text from a plugin in every report. */
#include "support.h"

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "casedata.h"
#include "cuda.h"
#include "json.h"
#include "suite.h"
#include "support/npy_read.h"

TestSuite(reports, .init = make_scratch, .fini = remove_scratch, .timeout = 120);

/* The status of the reference's CUDA rows: PASS on a GPU, SKIP (no device) without. */
static const char *reference_cuda_status(void)
{
  char why[512];
  return khost__cuda_available(0, why, sizeof why) ? "PASS" : "SKIP";
}

Test(reports, json_report_holds_every_row_of_the_table)
{
  outcome o;
  KHOST_JSON(&o, FAST, "--case", COPY_CASE "," GEMV_CASE, "--plugin", "@fault_no_write.so", "--backends",
             "fault_no_write");
  cr_expect_eq(o.status, 1, "fault_no_write fails the copy case");
  json_t *doc = report(&o);
  cr_expect_eq(json_integer_value(json_object_get(doc, "schema_version")), KHOST__JSON_SCHEMA_VERSION);
  char version[64];
  snprintf(version, sizeof version, "khost %s |", json_text(doc, "khost_version"));
  cr_expect(json_text(doc, "khost_version")[0] && strstr(o.out, version), "khost_version '%s' vs the table",
            json_text(doc, "khost_version"));
  cr_expect(json_is_true(json_object_get(doc, "finished")));
  json_t *rows = json_object_get(doc, "rows");
  int cuda_rows = 2 * reference_cuda_rows(), cuda_passed = strcmp(reference_cuda_status(), "PASS") == 0;
  cr_assert_eq(json_array_size(rows), 4 + (size_t)cuda_rows,
               "2 cases x (reference per device, fault_no_write)");
  size_t i;
  json_t *row;
  json_array_foreach(rows, i, row)
  {
    const char *c = json_text(row, "case"), *b = json_text(row, "backend"), *st = json_text(row, "status");
    cr_expect(*c && *b && *st, "row %zu lacks case, backend or status", i);
    table_row t = find_device_row(o.out, c, b, json_text(row, "device"));
    cr_expect(t.found, "JSON row %s/%s is not in the table", c, b);
    cr_expect_str_eq(t.status, st, "%s/%s: table %s, JSON %s", c, b, t.status, st);
  }
  cr_expect_str_eq(json_text(json_row(doc, COPY_CASE, "fault_no_write"), "status"), "FAIL");
  cr_expect_str_eq(json_text(json_row(doc, GEMV_CASE, "fault_no_write"), "status"), "PASS");
  json_t *counts = json_object_get(json_object_get(doc, "summary"), "counts");
  cr_expect_eq(json_integer_value(json_object_get(counts, "PASS")), 3 + (cuda_passed ? cuda_rows : 0));
  cr_expect_eq(json_integer_value(json_object_get(counts, "FAIL")), 1);
  free_outcome(&o);
}

static double json_number_at(json_t *row, const char *object, const char *key)
{
  json_t *holder = object ? json_object_get(row, object) : row;
  return json_number_value(json_object_get(holder, key));
}

/* GB/s and TFLOP/s are the row's bytes and flops over its median; --min-samples
 * holds sampling open however quiet the samples are. */
Test(reports, throughput_follows_the_median_and_min_samples_is_honoured)
{
  outcome o;
  KHOST_JSON(&o, "--max-time", "5", "--min-time", "0", "--warmup", "0", "--max-noise", "100", "--min-samples",
             "17", "--case", GEMV_CASE);
  cr_assert_eq(o.status, 0, "stderr:\n%s", o.err);
  json_t *doc = report(&o);
  json_t *row = json_row(doc, GEMV_CASE, "reference");
  cr_assert_not_null(row);
  double median = json_number_at(row, "time", "median_s");
  cr_expect_eq(json_integer_value(json_object_get(json_object_get(row, "time"), "samples")), 17,
               "a noise of 100%% stops at the 17th sample");
  cr_assert_gt(median, 0);
  cr_expect_float_eq(json_number_at(row, NULL, "gbps"), json_number_at(row, NULL, "bytes") / median / 1e9,
                     1e-9);
  cr_expect_float_eq(json_number_at(row, NULL, "tflops"), json_number_at(row, NULL, "flops") / median / 1e12,
                     1e-12);
  cr_expect_gt(json_number_at(row, NULL, "flops"), 0, "a GEMV does arithmetic");
  free_outcome(&o);
}

/* A CPU kernel that takes 2 ms a call is timed at 2 ms (fault_slow busy-waits from its entry). */
Test(reports, a_cpu_kernel_of_known_duration_is_timed_at_it)
{
  outcome o;
  KHOST_JSON(&o, "--max-time", "0.3", "--warmup", "0", "--case", COPY_CASE, "--plugin", "@fault_slow.so",
             "--backends", "fault_slow");
  cr_assert_eq(o.status, 0, "stderr:\n%s", o.err);
  json_t *doc = report(&o);
  json_t *row = json_row(doc, COPY_CASE, "fault_slow");
  cr_assert_not_null(row);
  double median = json_number_at(row, "time", "median_s");
  cr_expect(median >= 2e-3 && median < 3e-3, "median %g s for a 2 ms kernel", median);
  free_outcome(&o);
}

/* A kernel that names its implementation (describe()) has it in its table row and
 * its JSON row; one that does not has null. */
Test(reports, the_implementation_a_kernel_names_is_in_the_table_and_the_json)
{
  outcome o;
  KHOST_JSON(&o, FAST, "--case", COPY_CASE "," GEMV_CASE, "--plugin", "@fault_free.so", "--backends",
             "fault_free");
  cr_assert_eq(o.status, 0, "stderr:\n%s", o.err);
  json_t *doc = report(&o);
  cr_expect_str_eq(json_text(json_row(doc, COPY_CASE, "fault_free"), "variant"), "bytewise_transpose");
  /* A passing row's check covers both checked passes: the case's seed and fresh inputs. */
  json_t *check = json_object_get(json_row(doc, COPY_CASE, "fault_free"), "check");
  cr_expect_eq(json_integer_value(json_object_get(check, "count")), 2 * COPY_ELEMENTS);
  cr_expect(json_is_null(json_object_get(json_row(doc, GEMV_CASE, "fault_free"), "variant")),
            "the GEMV kernel has no describe()");
  cr_expect(json_is_null(json_object_get(json_row(doc, COPY_CASE, "reference"), "variant")));
  cr_expect_not_null(strstr(o.out, "speedup  variant\n"), "a variant column; stdout:\n%s", o.out);
  cr_expect_not_null(strstr(o.out, "  bytewise_transpose\n"), "the name ends its row; stdout:\n%s", o.out);
  free_outcome(&o);
}

/* khost's stdout closed under it: the table cannot be written, which is an error
 * (exit 1, not death by SIGPIPE), and the JSON report is still complete. */
Test(reports, a_closed_stdout_is_an_error_and_the_json_report_is_still_finished)
{
  running r;
  start_with(&r, NULL,
             (const char *const[]){FAST, "--case", COPY_CASE, "--plugin", "@fault_free.so", "--backends",
                                   "fault_free", "--json", report_path(), NULL},
             &(const launch){.unread_stdout = 1});
  outcome o;
  finish(&r, &o);
  cr_expect_eq(o.signal, 0, "killed by signal %d", o.signal);
  cr_expect_eq(o.status, 1, "exit %d; stderr:\n%s", o.status, o.err);
  cr_expect_not_null(strstr(o.err, "could not write the result table"), "stderr:\n%s", o.err);
  json_t *doc = report(&o);
  cr_expect(json_is_true(json_object_get(doc, "finished")));
  cr_expect_str_eq(json_text(json_row(doc, COPY_CASE, "fault_free"), "status"), "PASS");
  free_outcome(&o);
}

/* The rows of the report at path, or -1 while it is absent or not a document. */
static int json_rows_now(const char *path)
{
  json_t *doc = json_load_file(path, 0, NULL);
  int n = doc ? (int)json_array_size(json_object_get(doc, "rows")) : -1;
  json_decref(doc);
  return n;
}

/* Waits (20 s at most) until the JSON report of the running r has at least rows rows. */
static void wait_for_rows(running *r, int rows)
{
  struct timespec tick = {0, 5 * 1000 * 1000};
  int now = -1, still_running = 1;
  for (int waited_ms = 0; waited_ms < 20000 && now < rows && still_running; waited_ms += 5) {
    nanosleep(&tick, NULL);
    now = json_rows_now(report_path());
    still_running = waitpid(r->pid, NULL, WNOHANG) == 0;
  }
  cr_assert(still_running, "khost ended before its report had %d rows", rows);
  cr_assert_geq(now, rows, "%s had %d rows after 20 s, not %d", report_path(), now, rows);
}

/* A suite of n copy_transpose cases named c0, c1, ..., each a few microseconds long. */
static char *small_suite(int n)
{
  char *suite = scratch_path("small.ini");
  FILE *f = fopen(suite, "w");
  cr_assert_not_null(f);
  for (int i = 0; i < n; i++) fprintf(f, "[c%d]\nop = copy_transpose\ndtype = fp16\nm = 8\nn = 8\n\n", i);
  cr_assert_eq(fclose(f), 0);
  return suite;
}

/* The rows of a case: the reference's and those of its other backends (named by --backends). */
static int rows_per_case(int other_backends)
{
  return 1 + reference_cuda_rows() + other_backends;
}

/* Each row goes into the file that holds the rows before it, in place: the
 * report is not written whole again (nor renamed over) for every row. */
Test(reports, the_json_report_grows_in_place_row_by_row)
{
  char *suite = scratch_path("three.ini");
  write_file(suite, "[first]\nop = nvfp4_gemv\nm = 128\nk = 256\nl = 1\n\n"
                    "[second]\nop = nvfp4_gemv\nm = 128\nk = 512\nl = 1\n\n"
                    "[hangs_third]\nop = copy_transpose\ndtype = fp16\nm = 8\nn = 8\n");
  running r;
  start(&r, NULL,
        (const char *const[]){FAST, "--suite", suite, "--plugin", "@fault_hang.so", "--backends",
                              "fault_hang", "--timeout", "30", "--json", report_path(), NULL});
  struct stat first, second;
  wait_for_rows(&r, rows_per_case(1));
  cr_assert_eq(stat(report_path(), &first), 0);
  wait_for_rows(&r, 2 * rows_per_case(1));
  cr_assert_eq(stat(report_path(), &second), 0);
  kill(-r.pid, SIGKILL);
  outcome o;
  finish(&r, &o);
  cr_expect_eq(first.st_ino, second.st_ino, "the report was replaced by a new file between rows");
  cr_expect_eq(json_array_size(json_object_get(report(&o), "rows")), (size_t)(2 * rows_per_case(1)));
  free_outcome(&o);
  free(suite);
}

/* The entries of the scratch folder that are none of the names given (NULL-terminated), in found. */
static int unexpected_entries(const char *const *known, char *found, size_t size)
{
  int n = 0;
  DIR *d = opendir(scratch);
  found[0] = '\0';
  for (struct dirent *e; d && (e = readdir(d));) {
    int ok = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strncmp(e->d_name, "stdout.", 7) ||
             !strncmp(e->d_name, "stderr.", 7);
    for (int i = 0; known[i] && !ok; i++) ok = !strcmp(e->d_name, known[i]);
    if (ok) continue;
    n++;
    size_t used = strlen(found);
    snprintf(found + used, size - used, "%s ", e->d_name);
  }
  if (d) closedir(d);
  return n;
}

/* The size of the file at path, 0 while there is none. */
static off_t size_of(const char *path)
{
  struct stat st;
  return stat(path, &st) == 0 ? st.st_size : 0;
}

/* While a run writes its rows, nothing but its reports is ever in their folder:
 * no temporary file, which a kill would leave behind. A run killed then leaves
 * a valid JSON document and a CSV whose rows all say the run did not finish. */
Test(reports, a_run_writing_rows_makes_no_file_a_kill_would_leave_behind)
{
  char *suite = small_suite(400), *csv = scratch_path("run.csv");
  const char *const known[] = {"small.ini", "report.json", "run.csv", NULL};
  /* Seven backends a case, each quick: the report grows fast. */
  const char *const args[] = {FAST,
                              "--suite",
                              suite,
                              "--plugin",
                              "@fault_free.so",
                              "--plugin",
                              "@fault_decline.so",
                              "--plugin",
                              "@fault_status.so",
                              "--plugin",
                              "@fault_no_write.so",
                              "--plugin",
                              "@fault_describe_fails.so",
                              "--plugin",
                              "@fault_supports_fails.so",
                              "--json",
                              report_path(),
                              "--csv",
                              csv,
                              NULL};
  running r;
  start(&r, NULL, args);
  wait_for_rows(&r, 8);
  /* Looks at the folder every millisecond, until the report is large (about 150 rows). */
  char found[1024], first[1024] = "";
  int looks = 0, seen = 0, running_still = 1;
  struct timespec tick = {0, 1000 * 1000};
  for (; running_still && size_of(report_path()) < 200000 && looks < 60000; looks++) {
    if (unexpected_entries(known, found, sizeof found) > 0 && !seen++)
      snprintf(first, sizeof first, "%s", found);
    nanosleep(&tick, NULL);
    running_still = waitpid(r.pid, NULL, WNOHANG) == 0;
  }
  cr_assert(running_still, "khost ended before its report was large");
  kill(-r.pid, SIGKILL);
  outcome o;
  finish(&r, &o);
  cr_expect_eq(seen, 0, "%d of %d looks found more than the reports, first: %s", seen, looks, first);
  cr_expect_eq(unexpected_entries(known, found, sizeof found), 0, "the kill left: %s", found);
  cr_expect_not(json_is_true(json_object_get(report(&o), "finished")));
  char *text = slurp(csv);
  cr_assert_not_null(text);
  cr_expect_null(strstr(text, ",1\n"), "a row of a killed run says it finished:\n%s", text);
  free(text);
  free_outcome(&o);
  free(csv);
  free(suite);
}

/* Two runs that write one report run every case each: neither stops on the
 * other's file. The one that made the file last holds the path; one that lost
 * it says so (exit 1). */
Test(reports, two_runs_writing_one_json_report_both_run_every_case)
{
  enum { CASES = 60 };
  char *suite = small_suite(CASES);
  const char *const args[] = {FAST,        "--suite", suite,         "--backends",
                              "reference", "--json",  report_path(), NULL};
  running first, second;
  outcome a, b;
  start(&first, NULL, args);
  wait_for_rows(&first, 1);
  start(&second, NULL, args);
  finish(&first, &a);
  finish(&second, &b);
  cr_expect_eq(count_cases(a.out), CASES, "the first run stopped early; stderr:\n%s", a.err);
  cr_expect_eq(count_cases(b.out), CASES, "the second run stopped early; stderr:\n%s", b.err);
  cr_expect_eq(b.status, 0, "the run that made the file last: exit %d; stderr:\n%s", b.status, b.err);
  cr_expect(a.status == 0 || (a.status == 1 && strstr(a.err, "was removed or replaced by another program")),
            "exit %d; stderr:\n%s", a.status, a.err);
  json_t *doc = report(&b);
  cr_expect(json_is_true(json_object_get(doc, "finished")));
  cr_expect_eq(json_array_size(json_object_get(doc, "rows")), (size_t)(CASES * rows_per_case(0)));
  char found[1024];
  const char *const known[] = {"small.ini", "report.json", NULL};
  cr_expect_eq(unexpected_entries(known, found, sizeof found), 0, "left behind: %s", found);
  free_outcome(&a);
  free_outcome(&b);
  free(suite);
}

/* No link or file of anyone else's is written through: a link left at the name
 * earlier khost versions used for the temporary file keeps its target intact. */
Test(reports, a_link_at_a_temporary_name_is_not_followed)
{
  char *victim = scratch_path("victim"), *link = NULL;
  cr_assert(asprintf(&link, "%s.tmp", report_path()) >= 0);
  write_file(victim, "keep me\n");
  cr_assert_eq(symlink(victim, link), 0);
  outcome o;
  KHOST_JSON(&o, FAST, "--case", COPY_CASE);
  cr_expect_eq(o.status, 0, "exit %d; stderr:\n%s", o.status, o.err);
  cr_expect(json_is_true(json_object_get(report(&o), "finished")));
  char *kept = slurp(victim);
  cr_expect_str_eq(kept, "keep me\n");
  free(kept);
  free_outcome(&o);
  free(link);
  free(victim);
}

Test(reports, a_killed_run_leaves_valid_json_with_the_rows_it_finished)
{
  char *suite = scratch_path("cut.ini");
  write_file(suite, "[finishes_first]\nop = nvfp4_gemv\nm = 128\nk = 256\nl = 1\n\n"
                    "[hangs_second]\nop = copy_transpose\ndtype = fp16\nm = 8\nn = 8\n");
  running r;
  start(&r, NULL,
        (const char *const[]){FAST, "--suite", suite, "--plugin", "@fault_hang.so", "--backends",
                              "fault_hang", "--timeout", "30", "--json", report_path(), NULL});
  struct timespec tick = {0, 5 * 1000 * 1000};
  int rows = -1, still_running = 1;
  for (int waited_ms = 0; waited_ms < 20000 && rows < 1 && still_running; waited_ms += 5) {
    nanosleep(&tick, NULL);
    rows = json_rows_now(report_path());
    still_running = waitpid(r.pid, NULL, WNOHANG) == 0;
  }
  cr_assert(still_running, "khost ended before it could be killed mid-run");
  cr_assert_geq(rows, 1, "no row reached %s within 20 s", report_path());
  cr_assert_eq(kill(-r.pid, SIGKILL), 0);
  outcome o;
  finish(&r, &o);
  cr_expect_eq(o.signal, SIGKILL);
  json_t *doc = report(&o);
  cr_expect_not(json_is_true(json_object_get(doc, "finished")), "a killed run is not finished");
  json_t *list = json_object_get(doc, "rows");
  size_t most = 2 + (size_t)reference_cuda_rows();
  cr_expect(json_array_size(list) >= 1 && json_array_size(list) <= most, "%zu rows", json_array_size(list));
  const char *cuda_status = reference_cuda_status();
  size_t i;
  json_t *row;
  json_array_foreach(list, i, row)
  {
    cr_expect_str_eq(json_text(row, "case"), "finishes_first", "only the finished case has rows");
    cr_expect_str_eq(json_text(row, "status"),
                     strcmp(json_text(row, "device"), "cuda") ? "PASS" : cuda_status);
  }
  free_outcome(&o);
  free(suite);
}

/* Fields of one CSV line by RFC 4180 (quoted fields may hold commas and quotes). */
static int csv_fields(const char *line)
{
  int n = 1, quoted = 0;
  for (const char *p = line; *p && *p != '\n'; p++) {
    if (*p == '"')
      quoted = !quoted;
    else if (*p == ',' && !quoted)
      n++;
  }
  return n;
}

Test(reports, csv_report_has_one_header_and_one_line_per_row)
{
  char *csv = scratch_path("run.csv");
  outcome o;
  KHOST(&o, FAST, "--case", COPY_CASE, "--plugin", "@fault_status.so", "--backends", "fault_status", "--csv",
        csv);
  cr_expect_eq(o.status, 1);
  char *text = slurp(csv);
  cr_assert_not_null(text, "no CSV file");
  cr_expect_eq(strncmp(text, "case,op,", 8), 0, "the first line is the header:\n%s", text);
  int lines = 0, headers = 0, header_fields = csv_fields(text);
  for (char *line = text; *line; line += strcspn(line, "\n") + 1) {
    lines++;
    headers += !strncmp(line, "case,op,", 8);
    cr_expect_eq(csv_fields(line), header_fields, "line %d has %d fields, the header %d", lines,
                 csv_fields(line), header_fields);
    if (!line[strcspn(line, "\n")]) break;
  }
  cr_expect_eq(headers, 1, "the header must appear once:\n%s", text);
  cr_expect_eq(lines, 3 + reference_cuda_rows(), "header + a row per backend and device:\n%s", text);
  cr_expect_not_null(strstr(text, "\n" COPY_CASE ",copy_transpose,"), "%s", text);
  cr_expect_not_null(strstr(text, ",reference,cpu,PASS,"), "%s", text);
  cr_expect_not_null(strstr(text, ",fault_status,cpu,ERROR,kernel returned status"), "%s", text);
  free(text);
  free_outcome(&o);
  free(csv);
}

static const char *const dumped[] = {"in.npy", "reference.out.npy", "fault_free.cpu.out.npy",
                                     "fault_no_write.cpu.out.npy"};

static char *dump_run(void)
{
  char *dir = scratch_path("dump");
  outcome o;
  KHOST(&o, FAST, "--case", COPY_CASE, "--plugin", "@fault_free.so", "--plugin", "@fault_no_write.so",
        "--backends", "fault_free,fault_no_write", "--dump", dir);
  cr_assert_eq(o.status, 1, "fault_no_write fails; stderr:\n%s", o.err);
  free_outcome(&o);
  return dir;
}

Test(reports, dump_writes_inputs_reference_and_backend_outputs_as_npy)
{
  char *dir = dump_run();
  for (size_t i = 0; i < sizeof dumped / sizeof dumped[0]; i++) {
    char path[4096], magic[6] = {0};
    snprintf(path, sizeof path, "%s/%s/%s", dir, COPY_CASE, dumped[i]);
    FILE *f = fopen(path, "rb");
    cr_expect_not_null(f, "%s is missing", path);
    if (!f) continue;
    cr_expect_eq(fread(magic, 1, sizeof magic, f), sizeof magic);
    cr_expect_eq(memcmp(magic, "\x93NUMPY", 6), 0, "%s does not start with the npy magic", path);
    fclose(f);
  }
  free(dir);
}

/* The inputs every backend got are those the case's seed generates: the dumped
 * input equals the catalog's generator run here on the seed of suites/smoke.ini. */
Test(reports, backends_get_the_inputs_of_the_case_s_seed)
{
  char *dir = dump_run(), path[4200], suite_path[4200];
  snprintf(path, sizeof path, "%s/%s/in.npy", dir, COPY_CASE);
  snprintf(suite_path, sizeof suite_path, "%s/suites/smoke.ini", env("KHOST_SOURCE_ROOT"));
  khost__suite suite;
  khost__err err = {{0}};
  cr_assert_eq(khost__suite_load(suite_path, &suite, &err), KHOST__OK, "%s", err.msg);
  const khost__case *c = NULL;
  for (int i = 0; i < suite.ncases; i++)
    if (!strcmp(suite.cases[i].name, COPY_CASE)) c = &suite.cases[i];
  cr_assert_not_null(c);
  khost__case_data d;
  cr_assert_eq(khost__case_data_make(&d, c, c->seed, &err), KHOST__OK, "%s", err.msg);
  size_t n;
  char header[256];
  unsigned char *input = npy_read(path, header, sizeof header, &n);
  cr_assert_eq(n, d.set.inputs[0].nbytes, "dumped %zu bytes, the case has %zu", n, d.set.inputs[0].nbytes);
  cr_expect_eq(memcmp(input, d.pristine[0], n), 0, "the dumped input is not the seed's");
  free(input);
  khost__case_data_free(&d);
  khost__suite_free(&suite);
  free(dir);
}

Test(reports, dumped_arrays_load_in_numpy_and_agree_with_the_reference)
{
  if (system("python3 -c 'import numpy' >/dev/null 2>&1") != 0) SKIP_TEST("python3 with numpy is absent");
  char *dir = dump_run(), *script = scratch_path("check.py"), command[4200];
  /* Bit patterns, not values: the no-write poison is NaN, and NaN equals nothing. */
  write_file(script,
             "import sys, numpy as np\n"
             "d = sys.argv[1]\n"
             "x = np.load(d + '/in.npy')\n"
             "ref = np.load(d + '/reference.out.npy')\n"
             "good = np.load(d + '/fault_free.cpu.out.npy')\n"
             "bad = np.load(d + '/fault_no_write.cpu.out.npy')\n"
             "assert x.dtype == np.float16 and x.shape == (64, 100), (x.dtype, x.shape)\n"
             "assert ref.shape == (100, 64) and good.shape == ref.shape, (ref.shape, good.shape)\n"
             "assert np.count_nonzero(x) > 0\n"
             "bits = lambda a: a.view(np.uint16)\n"
             "assert (bits(x).T == bits(ref)).all(), 'reference is not the transpose of the input'\n"
             "assert (bits(good) == bits(ref)).all(), 'fault_free differs from the reference'\n"
             "assert not (bits(bad) == bits(ref)).any(), 'the unwritten output equals the reference'\n");
  snprintf(command, sizeof command, "python3 %s %s/%s", script, dir, COPY_CASE);
  cr_expect_eq(system(command), 0, "%s failed (see its assertion above)", command);
  free(script);
  free(dir);
}

Test(reports, a_dump_folder_that_cannot_be_made_exits_2_before_running)
{
  char *dir = scratch_path("no/such/folder");
  expect_refused_before_running("--dump", dir, "cannot create the folder");
  free(dir);
}

Test(reports, a_report_that_cannot_be_created_exits_2_before_running)
{
  char *missing = scratch_path("no/such/folder/report");
  expect_refused_before_running("--json", missing, "No such file or directory");
  expect_refused_before_running("--csv", missing, "No such file or directory");
  expect_refused_before_running("--junit", missing, "No such file or directory");
  free(missing);
}

/* A file where the case's folder should be: every write fails, every result stays. */
Test(reports, dump_files_that_cannot_be_written_exit_1_and_keep_every_row)
{
  char *dir = scratch_path("dumps"), *blocker = NULL;
  cr_assert_eq(mkdir(dir, 0777), 0);
  cr_assert(asprintf(&blocker, "%s/%s", dir, COPY_CASE) >= 0);
  write_file(blocker, "not a folder\n");
  outcome o;
  KHOST(&o, FAST, "--case", COPY_CASE, "--plugin", "@fault_free.so", "--backends", "fault_free", "--dump",
        dir);
  cr_expect_eq(o.status, 1, "exit %d; stderr:\n%s", o.status, o.err);
  char want[64];
  int rows = 2 + (reference_cuda_rows() && !strcmp(reference_cuda_status(), "PASS"));
  snprintf(want, sizeof want, "--dump: %d row(s) lack some of their files", rows);
  cr_expect_not_null(strstr(o.err, want), "stderr lacks '%s':\n%s", want, o.err);
  expect_row(&o, COPY_CASE, "reference", "PASS");
  expect_row(&o, COPY_CASE, "fault_free", "PASS");
  free_outcome(&o);
  free(blocker);
  free(dir);
}

/* A report that cannot be written mid-run (a file size limit here, a full disk
 * elsewhere) does not stop the run: every case still runs and is in the table
 * and the other report, the JSON keeps its last complete document, and the exit
 * status is 1. The limit stops the JSON (about 1 kB a row) in the third case of
 * six, and leaves room for the table and the CSV (about 3 kB each). */
Test(reports, a_report_that_cannot_be_written_lets_the_run_go_on)
{
  enum { CASES = 6 };
  char *suite = small_suite(CASES), *csv = scratch_path("run.csv");
  struct rlimit before, limit;
  cr_assert_eq(getrlimit(RLIMIT_FSIZE, &before), 0);
  limit = (struct rlimit){6000, before.rlim_max}; /* the soft limit only, so that it can be raised back */
  signal(SIGXFSZ, SIG_IGN); /* inherited by khost: a write past the limit fails instead of killing it */
  cr_assert_eq(setrlimit(RLIMIT_FSIZE, &limit), 0);
  outcome o;
  KHOST_JSON(&o, FAST, "--suite", suite, "--backends", "reference", "--csv", csv);
  cr_assert_eq(setrlimit(RLIMIT_FSIZE, &before), 0);
  cr_expect_eq(o.status, 1, "exit %d; stderr:\n%s", o.status, o.err);
  char want[1024];
  snprintf(want, sizeof want,
           "khost: JSON report: cannot write %s: File too large; the run goes on without this report",
           report_path());
  cr_expect_not_null(strstr(o.err, want), "stderr lacks '%s':\n%s", want, o.err);
  cr_expect_not_null(
      strstr(o.err, "khost: 1 report(s) could not be written in full (see the messages above)"),
      "stderr:\n%s", o.err);
  cr_expect_null(strstr(o.err, "stopped early"), "stderr:\n%s", o.err);
  cr_expect_eq(count_cases(o.out), CASES, "every case runs; stdout:\n%s", o.out);
  json_t *doc = report(&o);
  size_t kept = json_array_size(json_object_get(doc, "rows"));
  cr_expect(kept > 0 && kept < (size_t)(CASES * rows_per_case(0)), "%zu rows in the JSON", kept);
  cr_expect_not(json_is_true(json_object_get(doc, "finished")));
  char *text = slurp(csv);
  int lines = 0;
  for (const char *p = text; p && (p = strstr(p, ",1\n")); p++) lines++;
  cr_expect_eq(lines, CASES * rows_per_case(0), "every row in the CSV, finished:\n%s", text);
  free(text);
  free_outcome(&o);
  free(csv);
  free(suite);
}

/* Another program that removes the report (or replaces it) while the run goes
 * on: this run's rows would reach nobody; it says so and goes on. The plugin
 * removes the file during the first of two cases. */
Test(reports, a_report_removed_during_the_run_is_reported_and_the_run_goes_on)
{
  char *entry = NULL, *suite = small_suite(2);
  cr_assert(asprintf(&entry, "KHOST_TEST_REMOVE_PATH=%s", report_path()) >= 0);
  const char *envs[] = {entry, NULL};
  outcome o;
  KHOST_ENV(&o, envs, FAST, "--suite", suite, "--plugin", "@fault_free.so", "--plugin",
            "@fault_removes_report.so", "--backends", "fault_free,fault_removes_report", "--json",
            report_path());
  cr_expect_eq(o.status, 1, "exit %d; stderr:\n%s", o.status, o.err);
  char want[1024];
  snprintf(
      want, sizeof want,
      "khost: JSON report: %s was removed or replaced by another program during the run; the run goes on "
      "without this report",
      report_path());
  cr_expect_not_null(strstr(o.err, want), "stderr lacks '%s':\n%s", want, o.err);
  cr_expect_eq(count_cases(o.out), 2, "every case runs; stdout:\n%s", o.out);
  expect_row(&o, "c1", "fault_free", "PASS");
  expect_row(&o, "c1", "fault_removes_report", "PASS");
  cr_expect_eq(access(report_path(), F_OK), -1, "the removed report is not made again");
  free_outcome(&o);
  free(entry);
  free(suite);
}

/* A plugin's umask() (here from its constructor, in khost's own process) does not
 * decide the reports' mode: the umask khost started with does. */
Test(reports, reports_get_the_mode_of_the_umask_khost_started_with)
{
  char *csv = scratch_path("run.csv");
  mode_t before = umask(022);
  outcome o;
  KHOST_JSON(&o, FAST, "--case", COPY_CASE, "--plugin", "@fault_umask.so", "--csv", csv);
  umask(before);
  cr_expect_eq(o.status, 0, "exit %d; stderr:\n%s", o.status, o.err);
  const char *paths[] = {report_path(), csv};
  for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
    struct stat st;
    cr_assert_eq(stat(paths[i], &st), 0, "%s", paths[i]);
    cr_expect_eq(st.st_mode & 0777, 0644, "%s: mode %o", paths[i], (unsigned)(st.st_mode & 0777));
  }
  free_outcome(&o);
  free(csv);
}

/* The CSV says whether the run finished: 1 in the last column of every row of a
 * run that ran every case (a killed run's rows have 0: a_killed_run_leaves_no_temporary_file). */
Test(reports, the_csv_says_the_run_finished)
{
  char *csv = scratch_path("run.csv");
  outcome o;
  KHOST(&o, FAST, "--case", COPY_CASE "," GEMV_CASE, "--backends", "reference", "--csv", csv);
  cr_expect_eq(o.status, 0, "exit %d; stderr:\n%s", o.status, o.err);
  char *text = slurp(csv);
  cr_assert_not_null(text);
  int rows = 0;
  for (char *line = strchr(text, '\n') + 1; *line; line = strchr(line, '\n') + 1) {
    size_t len = strcspn(line, "\n");
    cr_expect(len > 2 && !strncmp(line + len - 2, ",1", 2), "not finished: %.*s", (int)len, line);
    rows++;
  }
  cr_expect_eq(rows, 2 * rows_per_case(0));
  cr_expect_not_null(strstr(text, ",device_uuid,timer,sol_s,sol_fraction,sol_kernel,finished\n"),
                     "the header names it last:\n%s", text);
  free(text);
  free_outcome(&o);
  free(csv);
}

/* A plugin's bytes (not UTF-8, terminal escapes, tab, carriage return) reach no
 * report as they are: the table, the CSV and the JSON all print the same safe
 * text, and a message's line feed stays a line break. */
Test(reports, a_plugin_s_text_is_made_safe_alike_in_every_report)
{
  char *csv = scratch_path("run.csv");
  outcome o;
  KHOST_JSON(&o, FAST, "--case", COPY_CASE, "--plugin", "@fault_hostile_text.so", "--backends",
             "fault_hostile_text", "--csv", csv);
  cr_expect_eq(o.status, 1, "exit %d; stderr:\n%s", o.status, o.err);
  const char *clean = "bad ? byte, ?[31mred?[0m,?tab,?return\nsecond line";
  const char *variant = "bytewise?]0;title?_transpose?";
  json_t *row = json_row(report(&o), COPY_CASE, "fault_hostile_text");
  cr_assert_not_null(row);
  const char *message = json_text(row, "message");
  cr_expect_not_null(strstr(message, clean), "JSON message: %s", message);
  cr_expect_str_eq(json_text(row, "variant"), variant);
  char *text = slurp(csv), *quoted = NULL;
  cr_assert(text && asprintf(&quoted, ",\"%s\",", message) > 0);
  cr_expect_not_null(strstr(text, quoted), "the CSV lacks the JSON's message %s:\n%s", quoted, text);
  cr_expect_not_null(strstr(text, variant), "the CSV lacks the variant:\n%s", text);
  table_row t = find_row(o.out, COPY_CASE, "fault_hostile_text");
  cr_expect_not_null(strstr(t.details, "bad ? byte, ?[31mred?[0m,?tab,?return\n      second line\n"),
                     "details:\n%s", t.details);
  cr_expect_not_null(strstr(o.out, variant), "the table lacks the variant:\n%s", o.out);
  const char *raw = "\x1b\xff\r\t\x07";
  cr_expect_eq(strcspn(o.out, raw), strlen(o.out), "raw bytes in the table:\n%s", o.out);
  cr_expect_eq(strcspn(text, raw), strlen(text), "raw bytes in the CSV:\n%s", text);
  free(quoted);
  free(text);
  free_outcome(&o);
  free(csv);
}

/* A folder given as a report is refused before anything runs, as any report path that cannot be used. */
Test(reports, a_folder_given_as_a_report_exits_2_before_running)
{
  char want[128];
  snprintf(want, sizeof want, "khost: JSON report: %s is a folder", scratch);
  expect_refused_before_running("--json", scratch, want);
  snprintf(want, sizeof want, "khost: CSV report: %s is a folder", scratch);
  expect_refused_before_running("--csv", scratch, want);
  snprintf(want, sizeof want, "khost: JUnit report: %s is a folder", scratch);
  expect_refused_before_running("--junit", scratch, want);
}

/* One file named two ways ("r.json" and "./r.json") by --json and --csv: one
 * report would replace the other, so khost refuses before anything runs. */
Test(reports, one_file_named_two_ways_for_two_outputs_exits_2_before_running)
{
  char *json = scratch_path("r.json"), *csv = NULL;
  cr_assert(asprintf(&csv, "%s/./r.json", scratch) >= 0);
  outcome o;
  KHOST(&o, FAST, "--case", COPY_CASE, "--json", json, "--csv", csv);
  cr_expect_eq(o.status, 2, "exit %d; stderr:\n%s", o.status, o.err);
  cr_expect_not_null(strstr(o.err, "--json and --csv name the same file"), "stderr:\n%s", o.err);
  cr_expect_null(strstr(o.out, "summary:"), "nothing may run:\n%s", o.out);
  cr_expect_eq(access(json, F_OK), -1, "nothing is written");
  free_outcome(&o);
  free(csv);
  free(json);
}

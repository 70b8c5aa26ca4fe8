/* Tests for core/json.c: every field round-trips through jansson, the file is a
 * valid document after every row (a cut run keeps what it finished), a row is
 * written in place without the rows before it, the finished document is exactly
 * as jansson writes it, numbers JSON cannot hold become null, and failures to
 * write are reported. */
#include <criterion/criterion.h>

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "json.h"
#include "support/drain_fifo.h"
#include "support/scratch_dir.h"
#include "support/start_elsewhere.h"

static char path[128];

static void make_dir(void)
{
  scratch_dir_make();
  scratch_dir_path(path, sizeof path, "report.json");
}

TestSuite(json, .init = make_dir, .fini = scratch_dir_remove);

static khost__run_info sample_info(void)
{
  khost__run_info info;
  memset(&info, 0, sizeof info);
  snprintf(info.khost_version, sizeof info.khost_version, "0.1.0");
  snprintf(info.host, sizeof info.host, "node7");
  snprintf(info.device, sizeof info.device, "NVIDIA H200");
  info.sm_count = 132;
  info.l2_bytes = (size_t)60 << 20;
  info.peak_gbps = 4100.5;
  info.empty_call_s = 2.88e-6;
  info.cuda_driver = 13000;
  snprintf(info.command, sizeof info.command, "khost run --suite smoke");
  snprintf(info.date, sizeof info.date, "2025-06-01T12:00:00Z");
  return info;
}

static khost__row sample_row(const char *backend, khost__row_status status, double median, double speedup)
{
  int timed = median > 0;
  khost__row r = {
      .id = {.case_name = "gemv_small",
             .op = "nvfp4_gemv",
             .params = "m=128 k=256 l=2",
             .device = "cuda",
             .flops = 131072,
             .bytes = 24576,
             .atol = 0.25,
             .rtol = 0.125},
      .measured = {.status = status,
                   .check = {.count = 256, .max_abs = 0.5, .max_rel = 0.0625, .mean_abs = 0.03125},
                   .time = {.samples = timed ? 20 : 0,
                            .median = median,
                            .mean = median * 1.5,
                            .min = median * 0.5,
                            .max = median * 2,
                            .stddev = median * 0.25,
                            .noise = timed ? 1.5 : 0}},
      .derived = {.speedup = speedup, .is_baseline = speedup == 1},
  };
  snprintf(r.id.backend, sizeof r.id.backend, "%s", backend);
  r.derived.gbps = timed ? r.id.bytes / median / 1e9 : 0;
  r.derived.tflops = timed ? r.id.flops / median / 1e12 : 0;
  return r;
}

static json_t *load(void)
{
  json_error_t error;
  json_t *doc = json_load_file(path, 0, &error);
  cr_assert_not_null(doc, "%s is not valid JSON: %s (line %d)", path, error.text, error.line);
  return doc;
}

static json_t *field(json_t *obj, const char *dotted)
{
  char key[64];
  const char *rest = dotted;
  json_t *v = obj;
  while (*rest) {
    size_t n = strcspn(rest, ".");
    snprintf(key, sizeof key, "%.*s", (int)n, rest);
    v = json_object_get(v, key);
    cr_assert_not_null(v, "no \"%s\" in the document", dotted);
    rest += n + (rest[n] == '.');
  }
  return v;
}

static khost__json_writer *open_ok(void)
{
  khost__run_info info = sample_info();
  khost__json_writer *w = NULL;
  khost__err err = {{0}};
  cr_assert_eq(khost__json_open(path, &info, 0644, &w, &err), KHOST__OK, "%s", err.msg);
  return w;
}

static void append_ok(khost__json_writer *w, const khost__row *row)
{
  khost__err err = {{0}};
  cr_assert_eq(khost__json_append(w, row, &err), KHOST__OK, "%s", err.msg);
}

Test(json, open_writes_a_valid_empty_document)
{
  khost__json_writer *w = open_ok();
  json_t *doc = load();
  cr_expect_eq(json_integer_value(field(doc, "schema_version")), 1);
  cr_expect_str_eq(json_string_value(field(doc, "khost_version")), "0.1.0");
  cr_expect(json_is_false(field(doc, "finished")));
  cr_expect_eq(json_array_size(field(doc, "rows")), 0);
  cr_expect_str_eq(json_string_value(field(doc, "run.device")), "NVIDIA H200");
  cr_expect_eq(json_integer_value(field(doc, "run.l2_bytes")), 60 << 20);
  cr_expect_eq(json_real_value(field(doc, "run.peak_gbps")), 4100.5);
  cr_expect_eq(json_real_value(field(doc, "run.empty_call_s")), 2.88e-6);
  cr_expect_str_eq(json_string_value(field(doc, "run.command")), "khost run --suite smoke");
  cr_expect_str_eq(json_string_value(field(doc, "run.date")), "2025-06-01T12:00:00Z");
  cr_expect(json_is_null(field(doc, "run.sm_clock_mhz")), "0 means unknown");
  cr_expect_eq(json_integer_value(field(doc, "run.sm_count")), 132);
  cr_expect_eq(json_integer_value(field(doc, "run.cuda_driver_version")), 13000);
  cr_expect(json_is_null(field(doc, "run.cuda_runtime_version")), "0 means unknown");
  json_decref(doc);
  khost__json_free(w);
}

Test(json, row_fields_round_trip)
{
  khost__json_writer *w = open_ok();
  khost__row row = sample_row("cute", KHOST__ROW_FAIL, 2e-6, 4);
  row.measured.check.mismatches = 7;
  row.measured.check.unwritten = 3;
  row.measured.check.nshown = 2;
  row.measured.check.shown[0] = (khost__mismatch){5, "c[batch=0, row=5]", 1.5, -0.75};
  row.measured.check.shown[1] = (khost__mismatch){300, "c[batch=1, row=44]", 6, 2};
  row.derived.peak_fraction = 0.25;
  row.measured.time.sm_mhz = 1980.5;
  row.measured.time.throttled = 4;
  row.measured.time.sm_mhz_min = 1971;
  row.measured.call_overhead_s = 6.5e-6;
  row.measured.graph_not_applied = 1;
  snprintf(row.measured.message, sizeof row.measured.message, "7 elements differ, \"quoted\"");
  snprintf(row.measured.variant, sizeof row.measured.variant, "gemv_rows<tpr=32,w=2>");
  append_ok(w, &row);
  json_t *doc = load();
  json_t *r = json_array_get(field(doc, "rows"), 0);
  cr_assert_not_null(r);
  struct {
    const char *key, *value;
  } texts[] = {
      {"case", "gemv_small"},
      {"op", "nvfp4_gemv"},
      {"params", "m=128 k=256 l=2"},
      {"backend", "cute"},
      {"device", "cuda"},
      {"status", "FAIL"},
      {"message", "7 elements differ, \"quoted\""},
      {"variant", "gemv_rows<tpr=32,w=2>"},
  };
  for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
    cr_expect_str_eq(json_string_value(field(r, texts[i].key)), texts[i].value, "%s", texts[i].key);
  struct {
    const char *key;
    double value;
  } numbers[] = {
      {"atol", 0.25},
      {"rtol", 0.125},
      {"check.max_abs", 0.5},
      {"check.max_rel", 0.0625},
      {"check.mean_abs", 0.03125},
      {"time.median_s", 2e-6},
      {"time.mean_s", 3e-6},
      {"time.min_s", 1e-6},
      {"time.max_s", 4e-6},
      {"time.stddev_s", 5e-7},
      {"time.noise_pct", 1.5},
      {"time.sm_mhz", 1980.5},
      {"time.sm_mhz_min", 1971},
      {"time.call_overhead_s", 6.5e-6},
      {"flops", 131072},
      {"bytes", 24576},
      {"gbps", 12.288},
      {"tflops", 0.065536},
      {"peak_fraction", 0.25},
      {"speedup", 4},
  };
  for (size_t i = 0; i < sizeof numbers / sizeof numbers[0]; i++)
    cr_expect_float_eq(json_number_value(field(r, numbers[i].key)), numbers[i].value,
                       1e-12 * numbers[i].value, "%s", numbers[i].key);
  cr_expect_eq(json_integer_value(field(r, "check.count")), 256);
  cr_expect_eq(json_integer_value(field(r, "check.mismatches")), 7);
  cr_expect_eq(json_integer_value(field(r, "check.unwritten")), 3);
  cr_expect_eq(json_integer_value(field(r, "time.samples")), 20);
  cr_expect_eq(json_integer_value(field(r, "time.throttled")), 4);
  cr_expect(json_is_false(field(r, "is_baseline")));
  cr_expect(json_is_true(field(r, "time.graph_not_applied")));
  json_t *shown = field(r, "check.first_mismatches");
  cr_assert_eq(json_array_size(shown), 2);
  cr_expect_eq(json_integer_value(field(json_array_get(shown, 1), "index")), 300);
  cr_expect_str_eq(json_string_value(field(json_array_get(shown, 1), "where")), "c[batch=1, row=44]");
  cr_expect_eq(json_number_value(field(json_array_get(shown, 0), "got")), 1.5);
  cr_expect_eq(json_number_value(field(json_array_get(shown, 0), "expected")), -0.75);
  json_decref(doc);
  khost__json_free(w);
}

/* Writes the keys of obj in document order, comma-separated, into buf. */
static void keys_of(json_t *obj, char *buf, size_t size)
{
  size_t used = 0;
  buf[0] = '\0';
  for (void *it = json_object_iter(obj); it && used < size; it = json_object_iter_next(obj, it))
    used += (size_t)snprintf(buf + used, size - used, "%s%s", used ? "," : "", json_object_iter_key(it));
}

/* Readers that stream the document see keys in the order written; the order is part of the format. */
Test(json, keys_come_in_their_documented_order)
{
  khost__json_writer *w = open_ok();
  khost__row row = sample_row("cute", KHOST__ROW_PASS, 2e-6, 4);
  append_ok(w, &row);
  json_t *doc = load();
  json_t *r = json_array_get(field(doc, "rows"), 0);
  char keys[1024];
  keys_of(doc, keys, sizeof keys);
  cr_expect_str_eq(keys, "schema_version,khost_version,finished,run,rows,summary");
  keys_of(r, keys, sizeof keys);
  cr_expect_str_eq(keys,
                   "case,op,params,backend,device,variant,status,message,atol,rtol,check,time,flops,bytes,"
                   "gbps,tflops,peak_fraction,speedup,is_baseline,case_index,device_ordinal,device_name,"
                   "device_uuid");
  keys_of(field(doc, "run"), keys, sizeof keys);
  cr_expect_str_eq(
      keys, "khost_version,host,cpu,ncpus,device,sm_count,l2_bytes,sm_clock_mhz,mem_clock_mhz,peak_gbps,"
            "empty_call_s,cuda_driver_version,cuda_runtime_version,suite,command,date,baseline,shard,"
            "merged_shards,devices");
  keys_of(field(r, "check"), keys, sizeof keys);
  cr_expect_str_eq(keys, "count,mismatches,unwritten,max_abs,max_rel,mean_abs,max_mixed,first_mismatches");
  keys_of(field(r, "time"), keys, sizeof keys);
  cr_expect_str_eq(
      keys,
      "samples,median_s,mean_s,min_s,max_s,stddev_s,noise_pct,sm_mhz,throttled,sm_mhz_min,call_overhead_s,"
      "graph_not_applied");
  json_decref(doc);
  khost__json_free(w);
}

/* A run killed after two rows leaves a valid document with both rows. */
Test(json, cut_run_leaves_a_valid_document)
{
  khost__json_writer *w = open_ok();
  khost__row a = sample_row("reference", KHOST__ROW_PASS, 8e-3, 1);
  khost__row b = sample_row("cute", KHOST__ROW_PASS, 2e-3, 4);
  append_ok(w, &a);
  append_ok(w, &b);
  char tmp[160];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  cr_expect_neq(access(tmp, F_OK), 0, "the temporary file is renamed into place");
  khost__json_free(w); /* no finish: as if the run died here */
  json_t *doc = load();
  cr_expect(json_is_false(field(doc, "finished")));
  cr_assert_eq(json_array_size(field(doc, "rows")), 2);
  cr_expect_str_eq(json_string_value(field(json_array_get(field(doc, "rows"), 1), "backend")), "cute");
  cr_expect_eq(json_integer_value(field(doc, "summary.rows")), 2);
  cr_expect_eq(json_integer_value(field(doc, "summary.counts.PASS")), 2);
  json_t *backends = field(doc, "summary.backends");
  cr_assert_eq(json_array_size(backends), 2);
  cr_expect_str_eq(json_string_value(field(json_array_get(backends, 1), "backend")), "cute");
  cr_expect_eq(json_integer_value(field(json_array_get(backends, 1), "wins")), 1);
  cr_expect_float_eq(json_number_value(field(json_array_get(backends, 1), "geomean_speedup")), 4, 1e-12);
  json_decref(doc);
}

Test(json, finish_marks_the_document_finished)
{
  khost__json_writer *w = open_ok();
  khost__row a = sample_row("reference", KHOST__ROW_PASS, 8e-3, 1);
  khost__err err = {{0}};
  append_ok(w, &a);
  cr_assert_eq(khost__json_end(w, 1, &err), KHOST__OK, "%s", err.msg);
  khost__json_free(w);
  json_t *doc = load();
  cr_expect(json_is_true(field(doc, "finished")));
  cr_expect_eq(json_array_size(field(doc, "rows")), 1);
  cr_expect(json_is_true(field(json_array_get(field(doc, "rows"), 0), "is_baseline")));
  json_decref(doc);
}

Test(json, non_finite_numbers_become_null)
{
  khost__json_writer *w = open_ok();
  khost__row row = sample_row("nan", KHOST__ROW_FAIL, 1e-3, 0);
  row.measured.check.max_abs = NAN;
  row.measured.check.max_rel = INFINITY;
  row.measured.check.nshown = 1;
  row.measured.check.shown[0] = (khost__mismatch){0, "c[batch=0, row=0]", -INFINITY, 2};
  append_ok(w, &row);
  json_t *doc = load();
  json_t *r = json_array_get(field(doc, "rows"), 0);
  cr_expect(json_is_null(field(r, "check.max_abs")));
  cr_expect(json_is_null(field(r, "check.max_rel")));
  json_t *first = json_array_get(field(r, "check.first_mismatches"), 0);
  cr_expect(json_is_null(field(first, "got")));
  cr_expect_eq(json_number_value(field(first, "expected")), 2);
  cr_expect(json_is_null(field(r, "speedup")), "0 means not comparable");
  json_decref(doc);
  khost__json_free(w);
}

Test(json, untimed_row_has_null_times)
{
  khost__json_writer *w = open_ok();
  khost__row row = sample_row("picky", KHOST__ROW_SKIP, 0, 0);
  row.measured.check.count = 0;
  snprintf(row.measured.message, sizeof row.measured.message, "declines k=256");
  append_ok(w, &row);
  json_t *doc = load();
  json_t *r = json_array_get(field(doc, "rows"), 0);
  const char *nulls[] = {
      "time.median_s", "time.mean_s",   "time.noise_pct", "time.sm_mhz_min", "gbps",
      "tflops",        "peak_fraction", "check.max_abs",  "variant",         "time.call_overhead_s"};
  for (size_t i = 0; i < sizeof nulls / sizeof nulls[0]; i++)
    cr_expect(json_is_null(field(r, nulls[i])), "%s", nulls[i]);
  cr_expect_eq(json_integer_value(field(r, "time.samples")), 0);
  cr_expect_str_eq(json_string_value(field(r, "status")), "SKIP");
  cr_expect_eq(json_integer_value(field(doc, "summary.counts.SKIP")), 1);
  json_decref(doc);
  khost__json_free(w);
}

/* One sample has no spread: null, not a perfect 0. */
Test(json, a_single_sample_has_null_stddev_and_noise)
{
  khost__json_writer *w = open_ok();
  khost__row row = sample_row("once", KHOST__ROW_PASS, 2.5, 0);
  row.measured.time.samples = 1;
  row.measured.time.stddev = NAN;
  row.measured.time.noise = NAN;
  append_ok(w, &row);
  json_t *doc = load();
  json_t *r = json_array_get(field(doc, "rows"), 0);
  cr_expect(json_is_null(field(r, "time.stddev_s")));
  cr_expect(json_is_null(field(r, "time.noise_pct")));
  cr_expect_float_eq(json_real_value(field(r, "time.median_s")), 2.5, 1e-12);
  json_decref(doc);
  khost__json_free(w);
}

/* A row crosses a pipe as bytes: a text field filled to its end has no NUL, and
 * is read no further. (Invalid UTF-8 never reaches the writer: test_text.c.) */
Test(json, a_text_field_without_its_nul_is_cut_at_its_size)
{
  khost__json_writer *w = open_ok();
  khost__row row = sample_row("bytes", KHOST__ROW_ERROR, 0, 0);
  snprintf(row.measured.message, sizeof row.measured.message, "line one\nline two");
  memset(row.id.device, 'x', sizeof row.id.device); /* no terminating NUL */
  append_ok(w, &row);
  json_t *doc = load();
  json_t *r = json_array_get(field(doc, "rows"), 0);
  cr_expect_str_eq(json_string_value(field(r, "message")), "line one\nline two");
  cr_expect_str_eq(json_string_value(field(r, "device")), "xxxxxxxx");
  json_decref(doc);
  khost__json_free(w);
}

Test(json, a_pipe_gets_one_document_at_the_end_and_stays_a_pipe, .timeout = 20)
{
  fifo_copy pipe;
  fifo_copy_start(&pipe, scratch_dir, "pipe.json");
  khost__run_info info = sample_info();
  khost__json_writer *w = NULL;
  khost__err err = {{0}};
  cr_assert_eq(khost__json_open(pipe.fifo, &info, 0644, &w, &err), KHOST__OK, "%s", err.msg);
  khost__row a = sample_row("reference", KHOST__ROW_PASS, 8e-3, 1);
  cr_assert_eq(khost__json_append(w, &a, &err), KHOST__OK, "%s", err.msg);
  cr_assert_eq(khost__json_append(w, &a, &err), KHOST__OK, "%s", err.msg);
  cr_assert_eq(khost__json_end(w, 1, &err), KHOST__OK, "%s", err.msg);
  khost__json_free(w);
  fifo_copy_wait(&pipe);
  json_error_t error;
  json_t *doc = json_load_file(pipe.copy, 0, &error); /* one document: a second would be trailing garbage */
  cr_assert_not_null(doc, "%s: %s (line %d)", pipe.copy, error.text, error.line);
  cr_expect(json_is_true(field(doc, "finished")));
  cr_expect_eq(json_array_size(field(doc, "rows")), 2);
  json_decref(doc);
}

Test(json, unwritable_path_is_an_error)
{
  khost__run_info info = sample_info();
  khost__json_writer *w = NULL;
  khost__err err = {{0}};
  cr_expect_eq(khost__json_open("/nonexistent-dir/report.json", &info, 0644, &w, &err), KHOST__E_IO);
  cr_expect_null(w);
  cr_expect_not_null(strstr(err.msg, "/nonexistent-dir/report.json"), "%s", err.msg);
}

/* A plugin may move khost to another folder after the report is opened: the
 * report stays in the start folder, and messages name it as the user did. */
Test(json, a_relative_path_stays_in_the_start_folder_and_is_named_as_given)
{
  khost__run_info info = sample_info();
  khost__json_writer *w = NULL;
  khost__err err = {{0}};
  start_elsewhere(scratch_dir);
  cr_assert_eq(khost__json_open("report.json", &info, 0644, &w, &err), KHOST__OK, "%s", err.msg);
  khost__row row = sample_row("reference", KHOST__ROW_PASS, 8e-3, 1);
  append_ok(w, &row);
  cr_assert_eq(khost__json_end(w, 1, &err), KHOST__OK, "%s", err.msg);
  khost__json_free(w);
  json_t *doc = load();
  cr_assert_not_null(doc, "no document at %s", path);
  cr_expect_eq(json_array_size(field(doc, "rows")), 1);
  json_decref(doc);
  w = NULL;
  cr_expect_eq(khost__json_open("no-such-folder/report.json", &info, 0644, &w, &err), KHOST__E_IO);
  cr_expect_str_eq(err.msg,
                   "JSON report: cannot create no-such-folder/report.json: No such file or directory");
}

/* A write that fails (here the file size limit, as a full disk would) leaves the
 * document as it was, rows before included, and says why. */
Test(json, a_failed_write_keeps_the_last_document)
{
  khost__json_writer *w = open_ok();
  khost__row a = sample_row("reference", KHOST__ROW_PASS, 8e-3, 1);
  khost__err err = {{0}};
  append_ok(w, &a);
  struct stat st;
  cr_assert_eq(stat(path, &st), 0);
  signal(SIGXFSZ, SIG_IGN); /* the write fails with EFBIG instead of ending the process */
  struct rlimit limit = {(rlim_t)st.st_size + 100, (rlim_t)st.st_size + 100};
  cr_assert_eq(setrlimit(RLIMIT_FSIZE, &limit), 0);
  cr_expect_eq(khost__json_append(w, &a, &err), KHOST__E_IO);
  cr_expect_not_null(strstr(err.msg, "File too large"), "%s", err.msg);
  cr_expect_not_null(strstr(err.msg, path), "%s", err.msg);
  json_t *doc = load();
  cr_expect_eq(json_array_size(field(doc, "rows")), 1);
  cr_expect_eq(json_integer_value(field(doc, "summary.rows")), 1);
  json_decref(doc);
  cr_assert_eq(stat(path, &st), 0);
  cr_expect_leq(st.st_size, limit.rlim_cur, "the part written past the old end is taken back");
  khost__json_free(w);
}

/* The bytes before the new row's place are not written again: a row costs its
 * own size, not the report's. A tab put into the head's and the first row's
 * indentation (still the same document) survives the next row. */
Test(json, a_row_is_written_in_place_after_the_rows_before_it)
{
  khost__json_writer *w = open_ok();
  khost__row a = sample_row("reference", KHOST__ROW_PASS, 8e-3, 1);
  khost__row b = sample_row("cute", KHOST__ROW_PASS, 2e-3, 4);
  append_ok(w, &a);
  struct stat before, after;
  cr_assert_eq(stat(path, &before), 0);
  char *text = calloc(1, (size_t)before.st_size + 1);
  FILE *f = fopen(path, "r+");
  cr_assert(f && text && fread(text, 1, (size_t)before.st_size, f) == (size_t)before.st_size);
  const char *marks[] = {"\n  \"schema_version\"", "\n      \"case\""};
  for (size_t i = 0; i < sizeof marks / sizeof marks[0]; i++) {
    const char *at = strstr(text, marks[i]);
    cr_assert_not_null(at, "no %s in:\n%s", marks[i], text);
    cr_assert_eq(fseek(f, at - text + 1, SEEK_SET), 0);
    cr_assert_eq(fputc('\t', f), '\t');
  }
  cr_assert_eq(fclose(f), 0);
  append_ok(w, &b);
  char *now = calloc(1, (size_t)before.st_size + 4096);
  f = fopen(path, "r");
  cr_assert(f && now);
  cr_assert_gt(fread(now, 1, (size_t)before.st_size + 4095, f), 0);
  fclose(f);
  cr_expect_not_null(strstr(now, "\n\t \"schema_version\""), "the head was written again:\n%s", now);
  cr_expect_not_null(strstr(now, "\n\t     \"case\""), "the first row was written again:\n%s", now);
  cr_assert_eq(stat(path, &after), 0);
  cr_expect_eq(after.st_ino, before.st_ino, "the same file, not a new one renamed over it");
  json_t *doc = load();
  cr_expect_eq(json_array_size(field(doc, "rows")), 2);
  cr_expect_eq(json_integer_value(field(doc, "summary.counts.PASS")), 2);
  json_decref(doc);
  free(text);
  free(now);
  khost__json_free(w);
}

/* The whole file, NUL-terminated (caller frees). */
static char *read_all(const char *file)
{
  FILE *f = fopen(file, "r");
  cr_assert_not_null(f, "%s: %s", file, strerror(errno));
  char *text = calloc(1, 1 << 20);
  cr_assert_not_null(text);
  fread(text, 1, (1 << 20) - 1, f);
  fclose(f);
  return text;
}

/* jansson's own layout of the document at path, with the line end the writer adds. */
static char *as_jansson_writes_it(void)
{
  json_t *doc = load();
  char *text = json_dumps(doc, JSON_INDENT(2) | JSON_REAL_PRECISION(15)), *line = NULL;
  cr_assert(text && asprintf(&line, "%s\n", text) > 0);
  free(text);
  json_decref(doc);
  return line;
}

/* After every row the file is the document so far, as jansson would write it
 * (spaces after its end aside); the finished one is exactly jansson's. */
Test(json, every_row_leaves_the_document_jansson_would_write)
{
  khost__json_writer *w = open_ok();
  khost__err err = {{0}};
  for (int i = 0; i < 40; i++) {
    khost__row row = sample_row(i % 3 ? "cute" : "reference", i % 5 ? KHOST__ROW_PASS : KHOST__ROW_FAIL,
                                1e-3 * (i + 1), i % 3 ? 1.0 + i : 1);
    snprintf(row.id.case_name, sizeof row.id.case_name, "case_%d", i / 3);
    snprintf(
        row.measured.message, sizeof row.measured.message, "%.*s", i * 7 % 300,
        "a message \"quoted\" and long, long, long, long, long, long, long, long, long, long, long, "
        "long, long, long, long, long, long, long, long, long, long, long, long, long, long, long, long, "
        "long, long, long, long, long, long, long, long, long, long, long, long, long, long, long, long");
    append_ok(w, &row);
    char *file = read_all(path), *expected = as_jansson_writes_it();
    size_t n = strlen(expected);
    cr_assert_eq(strncmp(file, expected, n), 0, "after row %d:\n%s\nexpected:\n%s", i, file, expected);
    cr_assert_eq(strspn(file + n, " "), strlen(file + n), "after row %d, more than spaces follow", i);
    free(file);
    free(expected);
  }
  cr_assert_eq(khost__json_end(w, 1, &err), KHOST__OK, "%s", err.msg);
  char *file = read_all(path), *expected = as_jansson_writes_it();
  cr_expect_str_eq(file, expected);
  json_t *doc = load();
  cr_expect(json_is_true(field(doc, "finished")));
  cr_expect_eq(json_array_size(field(doc, "rows")), 40);
  json_decref(doc);
  free(file);
  free(expected);
  khost__json_free(w);
}

/* The GPU is learnt after the first case: the run description, before the rows, changes. */
Test(json, a_new_run_description_keeps_every_row)
{
  khost__json_writer *w = open_ok();
  khost__row a = sample_row("reference", KHOST__ROW_PASS, 8e-3, 1);
  khost__err err = {{0}};
  append_ok(w, &a);
  khost__run_info info = sample_info();
  snprintf(info.device, sizeof info.device, "NVIDIA H200 (sm_90) with a longer name");
  info.sm_clock_mhz = 1980;
  cr_assert_eq(khost__json_set_info(w, &info, &err), KHOST__OK, "%s", err.msg);
  append_ok(w, &a);
  json_t *doc = load();
  cr_expect_str_eq(json_string_value(field(doc, "run.device")), "NVIDIA H200 (sm_90) with a longer name");
  cr_expect_eq(json_integer_value(field(doc, "run.sm_clock_mhz")), 1980);
  cr_expect_eq(json_array_size(field(doc, "rows")), 2);
  json_decref(doc);
  khost__json_free(w);
}

/* No one else's file is ever written through: a link at the name the old
 * writer used for its temporary file is left alone, and no temporary file stays. */
Test(json, a_link_at_a_temporary_name_is_not_followed)
{
  char link[200], victim[200];
  snprintf(link, sizeof link, "%s.tmp", path);
  scratch_dir_path(victim, sizeof victim, "victim");
  FILE *f = fopen(victim, "w");
  cr_assert(f && fputs("keep me\n", f) >= 0 && fclose(f) == 0);
  cr_assert_eq(symlink(victim, link), 0);
  khost__json_writer *w = open_ok();
  khost__row a = sample_row("reference", KHOST__ROW_PASS, 8e-3, 1);
  khost__err err = {{0}};
  append_ok(w, &a);
  cr_assert_eq(khost__json_end(w, 1, &err), KHOST__OK, "%s", err.msg);
  khost__json_free(w);
  char *kept = read_all(victim);
  cr_expect_str_eq(kept, "keep me\n");
  free(kept);
  cr_expect_eq(scratch_dir_others((const char *const[]){"report.json", "report.json.tmp", "victim", NULL}), 0,
               "no temporary file stays");
}

Test(json, a_folder_is_refused)
{
  khost__run_info info = sample_info();
  khost__json_writer *w = NULL;
  khost__err err = {{0}};
  cr_expect_eq(khost__json_open(scratch_dir, &info, 0644, &w, &err), KHOST__E_CONFIG);
  cr_expect_null(w);
  cr_expect_not_null(strstr(err.msg, "is a folder"), "%s", err.msg);
}

/* Another run (or anyone) that replaces the file takes it over: the writer
 * says so rather than write rows nobody will read, and leaves the new file alone. */
Test(json, a_report_replaced_by_another_program_is_not_written_to)
{
  khost__json_writer *w = open_ok();
  khost__row a = sample_row("reference", KHOST__ROW_PASS, 8e-3, 1);
  khost__err err = {{0}};
  append_ok(w, &a);
  char other[200];
  scratch_dir_path(other, sizeof other, "other.json");
  FILE *f = fopen(other, "w");
  cr_assert(f && fputs("{\"other\": true}\n", f) >= 0 && fclose(f) == 0);
  cr_assert_eq(rename(other, path), 0);
  cr_expect_eq(khost__json_append(w, &a, &err), KHOST__E_IO);
  cr_expect_not_null(strstr(err.msg, "removed or replaced"), "%s", err.msg);
  cr_expect_eq(khost__json_end(w, 1, &err), KHOST__E_IO);
  char *kept = read_all(path);
  cr_expect_str_eq(kept, "{\"other\": true}\n");
  free(kept);
  khost__json_free(w);
}

/* The file gets the mode asked for, whatever the umask is now (a plugin may have set it). */
Test(json, a_new_report_gets_the_mode_asked_for)
{
  umask(0777);
  khost__run_info info = sample_info();
  khost__json_writer *w = NULL;
  khost__err err = {{0}};
  cr_assert_eq(khost__json_open(path, &info, 0640, &w, &err), KHOST__OK, "%s", err.msg);
  struct stat st;
  cr_assert_eq(stat(path, &st), 0);
  cr_expect_eq(st.st_mode & 0777, 0640, "mode %o", (unsigned)(st.st_mode & 0777));
  khost__json_free(w);
}

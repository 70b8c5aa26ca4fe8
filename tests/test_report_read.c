/* Tests for core/report_read.c: a report read back, and each way an input is
 * refused (missing, a folder, not JSON, another schema version, a row without
 * its identity, a key of the wrong type, an unknown status, a bad compute peak). */
#include <criterion/criterion.h>

#include <string.h>

#include "report.h"
#include "report_doc.h"

TestSuite(report_read, .init = scratch_dir_make, .fini = scratch_dir_remove);

static void expect_refused(const char *text, int status, const char *part)
{
  char path[256];
  khost__report_doc doc;
  khost__err err;
  report_file(path, sizeof path, "r.json", text);
  cr_assert_eq(khost__report_read(path, &doc, &err), status, "%s", text);
  cr_expect(strstr(err.msg, part) != NULL, "'%s' lacks '%s'", err.msg, part);
  cr_expect(strstr(err.msg, "r.json") != NULL, "'%s' does not name the file", err.msg);
  cr_expect_null(doc.root);
}

Test(report_read, a_report_reads_back)
{
  khost__report_doc doc;
  khost__err err;
  double median = 0;
  cr_assert_eq(report_of("r.json", ROW("a", "k", "PASS", "1e-3", "0.1", "\"v\"", "1980"), &doc, &err),
               KHOST__OK, "%s", err.msg);
  cr_expect_eq(doc.nrows, 1);
  cr_expect(doc.finished);
  cr_expect_str_eq(khost__report_text(khost__report_row(&doc, 0), "variant"), "v");
  cr_expect(khost__report_number(khost__report_row(&doc, 0), "time.median_s", &median));
  cr_expect_float_eq(median, 1e-3, 1e-15);
  cr_expect_not(khost__report_number(khost__report_row(&doc, 0), "time.stddev_s", &median), "absent is none");
  cr_expect_str_eq(khost__report_text(khost__report_row(&doc, 0), "params"), "");
  khost__report_free(&doc);
}

/* A path that names no report: absent (an I/O error) or a folder (a usage error). */
Test(report_read, a_missing_file_or_a_folder_is_refused)
{
  static const struct {
    const char *name, *part;
    int status;
  } cases[] = {{"absent.json", "No such file", KHOST__E_IO}, {"", "is a folder", KHOST__E_CONFIG}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    khost__report_doc doc;
    khost__err err;
    char path[256];
    scratch_dir_path(path, sizeof path, cases[i].name);
    cr_expect_eq(khost__report_read(path, &doc, &err), cases[i].status);
    cr_expect(strstr(err.msg, cases[i].part) != NULL, "%s", err.msg);
  }
}

#define ROW_OF(keys)                                                                                         \
  "{\"schema_version\": 1, \"run\": {}, \"finished\": true, \"rows\": [{\"case\": \"a\", \"op\": \"o\","     \
  " \"backend\": \"b\", \"device\": \"cuda\"" keys "}]}"
#define RUN_OF(keys) "{\"schema_version\": 1, \"rows\": [], \"finished\": true, \"run\": " keys "}"

Test(report_read, each_bad_input_says_what_is_wrong)
{
  static const struct {
    const char *text, *part;
  } cases[] = {
      {"{\"schema_version\": 1,", "not JSON: line 1"},
      {"[1, 2]", "not a JSON object"},
      {"{\"rows\": []}", "no integer schema_version"},
      {"{\"schema_version\": 2, \"run\": {}, \"rows\": [], \"finished\": true}",
       "schema_version 2 is not one this khost reads (1)"},
      {"{\"schema_version\": 1, \"run\": {}, \"rows\": {}, \"finished\": true}", "a rows array"},
      {"{\"schema_version\": 1, \"run\": {}, \"rows\": [{\"case\": \"a\"}], \"finished\": true}",
       "rows[0].op: expected a string"},
      {ROW_OF(", \"status\": \"GREAT\""), "rows[0].status: 'GREAT' is not a status"},
      {ROW_OF(", \"status\": \"PASS\", \"time\": {\"median_s\": \"1\"}"),
       "rows[0].time.median_s: expected a number"},
      {ROW_OF(", \"status\": \"PASS\", \"time\": 3"), "rows[0].time: expected an object"},
      {RUN_OF("{\"peak_gbps\": \"fast\"}"), "run.peak_gbps: expected a number"},
      {RUN_OF("{\"peak_tflops\": {\"e4m3\": \"x\"}}"), "run.peak_tflops.e4m3: expected a number"},
      {RUN_OF("{\"peak_tflops\": \"x\"}"), "run.peak_tflops: expected a number or an object of numbers"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
    expect_refused(cases[i].text, KHOST__E_CONFIG, cases[i].part);
}

/* The matrix peaks khost measures come back into the run's description by name
 * (khost merge keeps them); a single number names no input type. */
Test(report_read, the_measured_peaks_read_back_by_name)
{
  static const char *const texts[] = {
      RUN_OF("{\"peak_tflops\": {\"e4m3\": 1480.5, \"bf16\": 760.25, \"tf32\": 400}}"),
      RUN_OF("{\"peak_tflops\": 1480}"),
  };
  for (int i = 0; i < 2; i++) {
    char path[256];
    khost__report_doc doc;
    khost__run_info info;
    khost__err err;
    report_file(path, sizeof path, "r.json", texts[i]);
    cr_assert_eq(khost__report_read(path, &doc, &err), KHOST__OK, "%s", err.msg);
    khost__report_run_info(&doc, &info);
    cr_expect_eq(info.peak_tflops[KHOST__PEAK_E4M3], i == 0 ? 1480.5 : 0);
    cr_expect_eq(info.peak_tflops[KHOST__PEAK_BF16], i == 0 ? 760.25 : 0);
    cr_expect_eq(info.peak_tflops[KHOST__PEAK_FP16], 0);
    khost__report_free(&doc);
  }
}

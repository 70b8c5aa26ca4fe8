/* Tests for core/report_read.c: a report read back, and each way an input is
 * refused (missing, a folder, not JSON, another schema version, a row without
 * its identity, a key of the wrong type, an unknown status, a bad compute peak). */
#include <criterion/criterion.h>

#include <string.h>

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

Test(report_read, a_missing_file_is_an_io_error)
{
  khost__report_doc doc;
  khost__err err;
  char path[256];
  scratch_dir_path(path, sizeof path, "absent.json");
  cr_expect_eq(khost__report_read(path, &doc, &err), KHOST__E_IO);
  cr_expect(strstr(err.msg, "No such file") != NULL, "%s", err.msg);
}

Test(report_read, a_folder_is_refused)
{
  khost__report_doc doc;
  khost__err err;
  char path[256];
  scratch_dir_path(path, sizeof path, "");
  cr_expect_eq(khost__report_read(path, &doc, &err), KHOST__E_CONFIG);
  cr_expect(strstr(err.msg, "is a folder") != NULL, "%s", err.msg);
}

Test(report_read, each_bad_input_says_what_is_wrong)
{
  expect_refused("{\"schema_version\": 1,", KHOST__E_CONFIG, "not JSON: line 1");
  expect_refused("[1, 2]", KHOST__E_CONFIG, "not a JSON object");
  expect_refused("{\"rows\": []}", KHOST__E_CONFIG, "no integer schema_version");
  expect_refused("{\"schema_version\": 2, \"run\": {}, \"rows\": [], \"finished\": true}", KHOST__E_CONFIG,
                 "schema_version 2 is not one this khost reads (1)");
  expect_refused("{\"schema_version\": 1, \"run\": {}, \"rows\": {}, \"finished\": true}", KHOST__E_CONFIG,
                 "a rows array");
  expect_refused("{\"schema_version\": 1, \"run\": {}, \"rows\": [{\"case\": \"a\"}], \"finished\": true}",
                 KHOST__E_CONFIG, "rows[0].op: expected a string");
  expect_refused(
      "{\"schema_version\": 1, \"run\": {}, \"finished\": true, \"rows\": [{\"case\": \"a\", \"op\": \"o\","
      " \"backend\": \"b\", \"device\": \"cuda\", \"status\": \"GREAT\"}]}",
      KHOST__E_CONFIG, "rows[0].status: 'GREAT' is not a status");
  expect_refused(
      "{\"schema_version\": 1, \"run\": {}, \"finished\": true, \"rows\": [{\"case\": \"a\", \"op\": \"o\","
      " \"backend\": \"b\", \"device\": \"cuda\", \"status\": \"PASS\", \"time\": {\"median_s\": \"1\"}}]}",
      KHOST__E_CONFIG, "rows[0].time.median_s: expected a number");
  expect_refused(
      "{\"schema_version\": 1, \"run\": {}, \"finished\": true, \"rows\": [{\"case\": \"a\", \"op\": \"o\","
      " \"backend\": \"b\", \"device\": \"cuda\", \"status\": \"PASS\", \"time\": 3}]}",
      KHOST__E_CONFIG, "rows[0].time: expected an object");
  expect_refused(
      "{\"schema_version\": 1, \"run\": {\"peak_gbps\": \"fast\"}, \"rows\": [], \"finished\": true}",
      KHOST__E_CONFIG, "run.peak_gbps: expected a number");
  expect_refused(
      "{\"schema_version\": 1, \"run\": {\"peak_tflops\": {\"e4m3\": \"x\"}}, \"rows\": [], \"finished\": "
      "true}",
      KHOST__E_CONFIG, "run.peak_tflops.e4m3: expected a number");
}

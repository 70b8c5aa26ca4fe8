/* Small khost JSON reports for the tests of the code that reads them back
 * (test_report_read.c, test_compare.c): rows written as JSON text, wrapped in a
 * schema-1 document, written to the test's scratch folder. */
#ifndef KHOST_TEST_REPORT_DOC_H
#define KHOST_TEST_REPORT_DOC_H

#include <criterion/criterion.h>
#include <stdio.h>

#include "report_read.h"
#include "support/scratch_dir.h"

/* Writes text to name in the scratch folder; its path in buf. */
static inline const char *report_file(char *buf, size_t size, const char *name, const char *text)
{
  scratch_dir_path(buf, size, name);
  FILE *f = fopen(buf, "w");
  cr_assert_not_null(f);
  fputs(text, f);
  fclose(f);
  return buf;
}

/* A report whose rows are rows_json (the text inside the rows array); read into doc. */
static inline int report_of(const char *name, const char *rows_json, khost__report_doc *doc, khost__err *err)
{
  char path[256], *text = NULL;
  cr_assert_geq(asprintf(&text,
                         "{\"schema_version\": 1, \"khost_version\": \"0.1.0\", \"finished\": true,"
                         " \"run\": {\"device\": \"\"}, \"rows\": [%s], \"summary\": {}}",
                         rows_json),
                0);
  report_file(path, sizeof path, name, text);
  free(text);
  return khost__report_read(path, doc, err);
}

/* A row's JSON text: status, median seconds (0 for null), noise percent, variant ("" for null), SM MHz. */
#define ROW(case_name, backend, status, median, noise, variant, mhz)                                         \
  "{\"case\": \"" case_name "\", \"op\": \"reduce_sum\", \"backend\": \"" backend                            \
  "\", \"device\": \"cuda\","                                                                                \
  " \"status\": \"" status "\", \"message\": \"why " status "\", \"variant\": " variant ","                  \
  " \"time\": {\"median_s\": " median ", \"noise_pct\": " noise ", \"sm_mhz\": " mhz "}}"

#endif

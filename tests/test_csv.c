/* Tests for core/csv.c: RFC 4180 quoting, one field per header column, empty
 * fields for values a row does not have, the finished column, and reported
 * write failures. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "csv.h"
#include "support/scratch_dir.h"
#include "support/start_elsewhere.h"

#define MAX_FIELDS 64

/* Splits one CSV record starting at *p (RFC 4180) into fields (caller frees
 * each); advances *p past the record's line break. Returns the field count. */
static int parse_record(const char **p, char **fields)
{
  int n = 0;
  const char *s = *p;
  for (;;) {
    char *out = malloc(strlen(s) + 1), *o = out;
    if (*s == '"') {
      for (s++; !(*s == '"' && s[1] != '"'); s++) {
        cr_assert_neq(*s, '\0', "unterminated quoted field");
        if (*s == '"') s++;
        *o++ = *s;
      }
      s++;
    } else {
      while (*s && *s != ',' && *s != '\n') *o++ = *s++;
    }
    *o = '\0';
    cr_assert_lt(n, MAX_FIELDS);
    fields[n++] = out;
    if (*s != ',') break;
    s++;
  }
  cr_assert_eq(*s, '\n', "a record ends with a line break");
  *p = s + 1;
  return n;
}

static khost__row sample_row(void)
{
  return (khost__row){
      .id = {.case_name = "reduce_bf16",
             .op = "reduce_sum",
             .params = "m=7 n=33 dtype=bf16",
             .backend = "cute",
             .device = "cuda",
             .bytes = 462,
             .atol = 0.001,
             .rtol = 0.02},
      .measured =
          {.status = KHOST__ROW_PASS,
           .variant = "reduce_rows<tpr=8,nv=8,words>",
           .check = {.count = 7, .max_abs = 0.00025},
           .time = {.samples = 30, .median = 0.00125, .sm_mhz = 1755, .throttled = 2, .sm_mhz_min = 1740},
           .timer = "cupti",
           .sol_s = 0.001,
           .sol_kernel = "read_first_2x512"},
      .derived = {.gbps = 0.0003696, .speedup = 2.5, .sol_fraction = 0.8},
  };
}

/* Header plus one row, as text (caller frees). */
static char *render(const khost__row *row)
{
  char *text = NULL;
  size_t size = 0;
  khost__err err = {{0}};
  FILE *f = open_memstream(&text, &size);
  cr_assert_not_null(f);
  cr_assert_eq(khost__csv_write_header(f, &err), KHOST__OK, "%s", err.msg);
  cr_assert_eq(khost__csv_write_row(f, row, 0, &err), KHOST__OK, "%s", err.msg);
  fclose(f);
  return text;
}

/* The value of column `name` in the row of text (header first). */
static char *value_of(const char *text, const char *name, char *out, size_t size)
{
  char *header[MAX_FIELDS], *row[MAX_FIELDS];
  const char *p = text;
  int nh = parse_record(&p, header), nr = parse_record(&p, row);
  cr_assert_eq(nr, nh, "the row has %d fields, the header %d", nr, nh);
  cr_assert_eq(*p, '\0', "nothing follows the row");
  out[0] = '\0';
  int found = 0;
  for (int i = 0; i < nh; i++) {
    if (strcmp(header[i], name) == 0) {
      snprintf(out, size, "%s", row[i]);
      found = 1;
    }
    free(header[i]);
    free(row[i]);
  }
  cr_assert(found, "no column %s", name);
  return out;
}

struct quoting_case {
  const char *message, *encoded;
};

Test(csv, messages_are_quoted_per_rfc4180)
{
  const struct quoting_case cases[] = {
      {"plain message", ",plain message,"},           {"needs k=256, got 100", ",\"needs k=256, got 100\","},
      {"say \"hi\"", ",\"say \"\"hi\"\"\","},         {"two\nlines", ",\"two\nlines\","},
      {"carriage\rreturn", ",\"carriage\rreturn\","}, {"", ",PASS,,"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    khost__row row = sample_row();
    char value[600];
    snprintf(row.measured.message, sizeof row.measured.message, "%s", cases[i].message);
    char *text = render(&row);
    cr_expect_not_null(strstr(text, cases[i].encoded), "\"%s\" not encoded as %s in:\n%s", cases[i].message,
                       cases[i].encoded, text);
    cr_expect_str_eq(value_of(text, "message", value, sizeof value), cases[i].message);
    free(text);
  }
}

Test(csv, header_names_every_field)
{
  khost__row row = sample_row();
  char *text = render(&row);
  /* The whole header, in order: readers index columns by place, and places only grow. */
  const char *header =
      "case,op,params,backend,device,status,message,atol,rtol,count,mismatches,unwritten,"
      "max_abs,max_rel,mean_abs,samples,median_s,mean_s,min_s,max_s,stddev_s,noise_pct,flops,"
      "bytes,gbps,tflops,peak_fraction,speedup,is_baseline,variant,sm_mhz,throttled,"
      "sm_mhz_min,max_mixed,device_ordinal,device_name,device_uuid,timer,sol_s,sol_fraction,sol_kernel,"
      "finished\n";
  cr_expect_eq(strncmp(text, header, strlen(header)), 0, "%s", text);
  struct {
    const char *column, *value;
  } expected[] = {
      {"case", "reduce_bf16"},
      {"params", "m=7 n=33 dtype=bf16"},
      {"status", "PASS"},
      {"atol", "0.001"},
      {"count", "7"},
      {"max_abs", "0.00025"},
      {"samples", "30"},
      {"median_s", "0.00125"},
      {"bytes", "462"},
      {"gbps", "0.0003696"},
      {"speedup", "2.5"},
      {"is_baseline", "0"},
      {"variant", "reduce_rows<tpr=8,nv=8,words>"},
      {"sm_mhz", "1755"},
      {"throttled", "2"},
      {"sm_mhz_min", "1740"},
      {"timer", "cupti"},
      {"sol_s", "0.001"},
      {"sol_fraction", "0.8"},
      {"sol_kernel", "read_first_2x512"},
      {"finished", "0"},
  };
  for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++) {
    char value[600];
    cr_expect_str_eq(value_of(text, expected[i].column, value, sizeof value), expected[i].value, "%s",
                     expected[i].column);
  }
  free(text);
}

Test(csv, missing_values_are_empty_fields)
{
  khost__row row = sample_row();
  row.measured.status = KHOST__ROW_TIMEOUT;
  row.measured.check.count = 0;
  row.measured.time.samples = 0;
  row.derived.speedup = 0;
  row.derived.sol_fraction = 0;
  char *text = render(&row);
  const char *empty[] = {"max_abs", "median_s", "noise_pct",  "gbps",  "tflops",      "peak_fraction",
                         "speedup", "sm_mhz",   "sm_mhz_min", "timer", "sol_fraction"};
  for (size_t i = 0; i < sizeof empty / sizeof empty[0]; i++) {
    char value[600];
    cr_expect_str_eq(value_of(text, empty[i], value, sizeof value), "", "%s", empty[i]);
  }
  char value[600];
  cr_expect_str_eq(value_of(text, "status", value, sizeof value), "TIMEOUT");
  cr_expect_str_eq(value_of(text, "samples", value, sizeof value), "0");
  /* The case's, measured whether or not this row was timed. */
  cr_expect_str_eq(value_of(text, "sol_s", value, sizeof value), "0.001");
  free(text);
}

/* One sample has no spread: none is written, rather than a perfect 0. */
Test(csv, a_single_sample_has_no_stddev_or_noise)
{
  khost__row row = sample_row();
  row.measured.time.samples = 1;
  row.measured.time.stddev = NAN;
  row.measured.time.noise = NAN;
  char *text = render(&row);
  char value[600];
  cr_expect_str_eq(value_of(text, "stddev_s", value, sizeof value), "");
  cr_expect_str_eq(value_of(text, "noise_pct", value, sizeof value), "");
  cr_expect_str_eq(value_of(text, "median_s", value, sizeof value), "0.00125");
  free(text);
}

static char path[128];

static void make_dir(void)
{
  scratch_dir_make();
  scratch_dir_path(path, sizeof path, "rows.csv");
}

/* The lines of the file at path, and the last field of line i (0 the header) in last. */
static int read_lines(char last[][16], int max)
{
  char line[2048];
  int n = 0;
  FILE *in = fopen(path, "r");
  cr_assert_not_null(in);
  while (fgets(line, sizeof line, in) && n < max) {
    line[strcspn(line, "\n")] = '\0';
    const char *comma = strrchr(line, ',');
    snprintf(last[n++], sizeof last[0], "%.15s", comma ? comma + 1 : line);
  }
  fclose(in);
  return n;
}

static khost__csv_writer *open_with_rows(int nrows)
{
  khost__csv_writer *w = NULL;
  khost__err err = {{0}};
  khost__row row = sample_row();
  cr_assert_eq(khost__csv_open(path, 0644, &w, &err), KHOST__OK, "%s", err.msg);
  for (int i = 0; i < nrows; i++) cr_assert_eq(khost__csv_append(w, &row, &err), KHOST__OK, "%s", err.msg);
  return w;
}

Test(csv, a_file_gets_each_row_as_it_comes, .init = make_dir, .fini = scratch_dir_remove)
{
  char last[8][16];
  khost__csv_writer *w = open_with_rows(1);
  cr_expect_eq(read_lines(last, 8), 2, "header and row, before the end");
  cr_expect_str_eq(last[0], "finished");
  cr_expect_str_eq(last[1], "0");
  khost__csv_free(w);
}

/* A reader tells a complete report by its finished column: 0 on every line
 * while the run goes on and when it stopped early, 1 once it ran every case. */
Test(csv, finished_is_1_on_every_row_once_the_run_completed_else_0, .init = make_dir,
     .fini = scratch_dir_remove)
{
  for (int finished = 0; finished <= 1; finished++) {
    char last[8][16], want[2] = {(char)('0' + finished), '\0'};
    khost__err err = {{0}};
    khost__csv_writer *w = open_with_rows(3);
    cr_assert_eq(khost__csv_end(w, finished, &err), KHOST__OK, "%s", err.msg);
    khost__csv_free(w);
    cr_assert_eq(read_lines(last, 8), 4);
    for (int i = 1; i < 4; i++) cr_expect_str_eq(last[i], want, "row %d", i);
  }
}

Test(csv, a_relative_path_is_created_in_the_start_folder, .init = make_dir, .fini = scratch_dir_remove)
{
  khost__csv_writer *w = NULL;
  khost__err err = {{0}};
  start_elsewhere(scratch_dir);
  cr_assert_eq(khost__csv_open("rows.csv", 0644, &w, &err), KHOST__OK, "%s", err.msg);
  cr_expect_eq(khost__csv_end(w, 1, &err), KHOST__OK, "%s", err.msg);
  khost__csv_free(w);
  cr_expect_eq(access(path, F_OK), 0, "no %s", path);
}

Test(csv, unwritable_path_and_full_disk_are_errors)
{
  khost__csv_writer *w = NULL;
  khost__err err = {{0}};
  khost__row row = sample_row();
  cr_expect_eq(khost__csv_open("/nonexistent-dir/rows.csv", 0644, &w, &err), KHOST__E_IO);
  cr_expect_not_null(strstr(err.msg, "/nonexistent-dir/rows.csv"), "%s", err.msg);
  FILE *f = fopen("/dev/full", "w");
  if (!f) cr_skip_test("/dev/full is not available");
  cr_expect_eq(khost__csv_write_row(f, &row, 0, &err), KHOST__E_IO);
  fclose(f);
}

Test(csv, a_folder_is_refused, .init = make_dir, .fini = scratch_dir_remove)
{
  khost__csv_writer *w = NULL;
  khost__err err = {{0}};
  cr_expect_eq(khost__csv_open(scratch_dir, 0644, &w, &err), KHOST__E_CONFIG);
  cr_expect_not_null(strstr(err.msg, "is a folder"), "%s", err.msg);
}

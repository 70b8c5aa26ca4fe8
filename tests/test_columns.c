/* Tests for core/columns.c: the list of report columns is well formed (names,
 * JSON paths, CSV headers and places, table titles and places), the reports'
 * orders come out of it, and reading a column follows its part of the
 * measurement. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "columns.h"
#include "report.h"

static const khost__column *column(const char *name)
{
  for (int i = 0; i < khost__ncolumns; i++)
    if (strcmp(khost__columns[i].name, name) == 0) return &khost__columns[i];
  cr_assert_fail("no column %s", name);
  return NULL;
}

Test(columns, every_column_has_a_name_a_reader_and_a_report)
{
  cr_assert_gt(khost__ncolumns, 0);
  cr_assert_leq(khost__ncolumns, KHOST__MAX_COLUMNS);
  for (int i = 0; i < khost__ncolumns; i++) {
    const khost__column *c = &khost__columns[i];
    cr_assert(c->name && c->name[0], "column %d has no name", i);
    cr_expect_not_null(c->read, "%s", c->name);
    cr_expect(c->json || c->csv.title || c->table.title, "%s appears in no report", c->name);
  }
}

/* Names, JSON paths, CSV headers and table titles: each names one column. */
Test(columns, names_json_paths_csv_headers_and_table_titles_are_unique)
{
  for (int i = 0; i < khost__ncolumns; i++) {
    const khost__column *a = &khost__columns[i];
    for (int j = i + 1; j < khost__ncolumns; j++) {
      const khost__column *b = &khost__columns[j];
      cr_expect_str_neq(a->name, b->name, "two columns named %s", a->name);
      if (a->json && b->json) cr_expect_str_neq(a->json, b->json, "%s and %s", a->name, b->name);
      if (a->csv.title && b->csv.title)
        cr_expect_str_neq(a->csv.title, b->csv.title, "%s and %s", a->name, b->name);
      if (a->table.title && b->table.title)
        cr_expect_str_neq(a->table.title, b->table.title, "%s and %s", a->name, b->name);
    }
  }
}

/* A report's places run 1, 2, ... with no gap and no place taken twice, and a
 * column has a place exactly where it has a title. */
static void expect_places(const char *report, khost__place (*of)(const khost__column *))
{
  int titled = 0;
  for (int i = 0; i < khost__ncolumns; i++) {
    khost__place p = of(&khost__columns[i]);
    titled += p.title != NULL;
    cr_expect_eq(p.title != NULL, p.at > 0, "%s: %s has a title or a place without the other", report,
                 khost__columns[i].name);
  }
  for (int at = 1; at <= titled; at++) {
    int holders = 0;
    for (int i = 0; i < khost__ncolumns; i++) holders += of(&khost__columns[i]).at == at;
    cr_expect_eq(holders, 1, "%s: %d columns at place %d", report, holders, at);
  }
}

static khost__place csv_place(const khost__column *c)
{
  return c->csv;
}

static khost__place table_place(const khost__column *c)
{
  return c->table;
}

Test(columns, csv_and_table_places_count_from_one_without_gaps)
{
  expect_places("CSV", csv_place);
  expect_places("table", table_place);
}

/* Only the JSON can hold a list of mismatches. */
Test(columns, the_mismatch_list_is_in_the_json_only)
{
  const khost__column *c = column("first_mismatches");
  cr_expect_eq(c->format, KHOST__FORMAT_MISMATCHES);
  cr_expect_str_eq(c->json, "check.first_mismatches");
  cr_expect_null(c->csv.title);
  cr_expect_null(c->table.title);
}

static void expect_order(khost__placement in, const char *const *names, int n)
{
  const khost__column *placed[KHOST__MAX_COLUMNS];
  int count = khost__columns_placed(in, placed);
  cr_assert_geq(count, n);
  for (int k = 0; k < n; k++) cr_expect_str_eq(placed[k]->name, names[k], "place %d", k + 1);
}

Test(columns, each_report_gets_its_columns_in_its_order)
{
  static const char *const csv[] = {"case", "op", "params", "backend", "device", "status", "message", "atol"};
  /* device_ordinal is placed third but shown only for a run over several devices. */
  static const char *const table[] = {"backend", "device",  "device_ordinal", "status",
                                      "max_abs", "max_rel", "mismatches",     "median_s"};
  expect_order(KHOST__IN_CSV, csv, sizeof csv / sizeof csv[0]);
  expect_order(KHOST__IN_TABLE, table, sizeof table / sizeof table[0]);
  const khost__column *placed[KHOST__MAX_COLUMNS];
  int in_table = 0;
  for (int i = 0; i < khost__ncolumns; i++) in_table += khost__columns[i].table.title != NULL;
  cr_expect_eq(khost__columns_placed(KHOST__IN_TABLE, placed), in_table);
  cr_expect_str_eq(placed[in_table - 1]->name, "variant", "the variant ends a table line");
}

/* Checked (with mismatches) and timed. */
static khost__row timed_row(void)
{
  return (khost__row){
      .id = {.case_name = "c1", .bytes = 462},
      .measured = {.status = KHOST__ROW_FAIL,
                   .check = {.count = 7, .mismatches = 2, .max_abs = 0.25},
                   .time = {.samples = 30, .median = 0.00125, .noise = 1.5}},
      .derived = {.gbps = 0.0003696},
  };
}

Test(columns, a_column_reads_its_own_field)
{
  khost__row r = timed_row();
  khost__value v;
  struct {
    const char *name;
    double number;
  } numbers[] = {
      {"bytes", 462}, {"max_abs", 0.25}, {"median_s", 0.00125}, {"noise_pct", 1.5}, {"gbps", 0.0003696}};
  for (size_t i = 0; i < sizeof numbers / sizeof numbers[0]; i++) {
    cr_expect(khost__column_read(column(numbers[i].name), &r, &v), "%s", numbers[i].name);
    cr_expect_eq(v.number, numbers[i].number, "%s", numbers[i].name);
  }
  cr_expect(khost__column_read(column("mismatches"), &r, &v));
  cr_expect_eq(v.count, 2);
  cr_expect(khost__column_read(column("status"), &r, &v));
  cr_expect_eq(strncmp(v.text, "FAIL", v.size), 0);
  cr_expect_eq(v.size, 4);
  cr_expect(khost__column_read(column("case"), &r, &v));
  cr_expect_str_eq(v.text, "c1");
}

/* On a row never checked nor timed, values of the check and the timing are
 * absent, but counts are there (nothing counted: 0). */
Test(columns, values_of_a_part_that_did_not_happen_are_absent_but_counts_are_zero)
{
  khost__row r = timed_row();
  r.measured.check.count = 0;
  r.measured.time.samples = 0;
  khost__value v;
  const char *absent[] = {"max_abs", "mean_abs", "median_s", "stddev_s", "noise_pct", "gbps"};
  for (size_t i = 0; i < sizeof absent / sizeof absent[0]; i++) {
    cr_expect_not(khost__column_read(column(absent[i]), &r, &v), "%s", absent[i]);
    cr_expect_not(khost__column_measured(column(absent[i]), &r), "%s", absent[i]);
  }
  cr_expect(khost__column_read(column("mismatches"), &r, &v));
  cr_expect_eq(v.count, 2);
  cr_expect_not(khost__column_measured(column("mismatches"), &r), "the table shows a dash");
  cr_expect(khost__column_read(column("samples"), &r, &v));
  cr_expect_eq(v.count, 0);
  cr_expect(khost__column_measured(column("bytes"), &r), "the case's counts need no measurement");
}

/* Zero is "not measured" for rates, clocks and ratios; one sample has no spread. */
Test(columns, unmeasured_rates_and_spreads_are_absent)
{
  khost__row r = timed_row();
  khost__value v;
  r.derived.gbps = 0;
  r.measured.time.noise = NAN;
  cr_expect_not(khost__column_read(column("gbps"), &r, &v));
  cr_expect_not(khost__column_read(column("noise_pct"), &r, &v));
  cr_expect_not(khost__column_read(column("speedup"), &r, &v));
  cr_expect_not(khost__column_read(column("sm_mhz"), &r, &v));
  cr_expect_not(khost__column_read(column("variant"), &r, &v), "no name, no variant");
  cr_expect(khost__column_read(column("is_baseline"), &r, &v));
  cr_expect_eq(v.count, 0);
}

/* The cell and the show rules the table and the HTML report share: a dash where
 * the part of the measurement is missing, counts included; the device's ordinal,
 * in every row, shown only for a run over several devices; %peak also where the
 * run measured its copy bandwidth. */
Test(columns, cells_and_the_columns_shown_follow_the_table_s_rules)
{
  khost__row r = timed_row();
  char cell[72];
  cr_expect(khost__column_cell(column("mismatches"), &r, cell, sizeof cell));
  cr_expect_str_eq(cell, "2");
  r.measured.check.count = 0;
  cr_expect_not(khost__column_cell(column("mismatches"), &r, cell, sizeof cell));
  cr_expect_str_eq(cell, "-", "a count of a check that never ran is a dash");
  r.id.device_ordinal = 3;
  cr_expect(khost__column_cell(column("device_ordinal"), &r, cell, sizeof cell));
  cr_expect_str_eq(cell, "3");
  cr_expect_not(khost__column_shown_by_row(column("device_ordinal"), &r, cell, sizeof cell),
                "a row's ordinal alone does not show the column");
  cr_expect(khost__column_shown_by_row(column("median_s"), &r, cell, sizeof cell));
  khost__run_info one = {.ndevices = 1}, spread = {.ndevices = 2}, peak = {.peak_gbps = 3000};
  cr_expect_not(khost__column_shown_for_run(column("device_ordinal"), &one));
  cr_expect_not(khost__column_shown_for_run(column("device_ordinal"), NULL));
  cr_expect(khost__column_shown_for_run(column("device_ordinal"), &spread));
  cr_expect_not(khost__column_shown_for_run(column("peak_fraction"), &one));
  cr_expect(khost__column_shown_for_run(column("peak_fraction"), &peak));
  cr_expect(khost__column_shown_for_run(column("status"), NULL));
}

#include "html_report.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "columns.h"
#include "html.h"
#include "html_charts.h"
#include "report.h"
#include "report_row.h"

#define CELL        72
#define MAX_SERIES  64 /* the JSON's summary names no more backends either */
#define SERIES_NAME 160

/* A row's roof, the first of these it has: the case's speed of light where the
 * report has it, else the measured copy bandwidth. Both are fractions. */
static const char *const roof_keys[] = {"sol_fraction", "peak_fraction"};

static const char style[] =
    "body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1400px}"
    "h1{font-size:22px}h2{font-size:18px;margin-top:32px;border-bottom:1px solid #ccc}"
    "table{border-collapse:collapse;margin:8px 0}td,th{padding:2px "
    "8px;white-space:nowrap;text-align:right;border-bottom:1px "
    "solid #eee}"
    "th{background:#f4f4f4}td.text,th.text{text-align:left}table.run "
    "td:first-child{color:#555;text-align:left}"
    "table.run td{text-align:left}pre{margin:0;white-space:pre-wrap;font-size:12px;color:#a00}"
    ".banner{background:#fff3cd;border:1px solid #e0b000;padding:8px 12px;font-weight:bold}"
    ".legend{list-style:none;padding:0;margin:4px 0}.legend li{display:inline-block;margin-right:16px}"
    ".swatch{display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:middle}"
    "svg{display:block;margin:8px 0}svg text{font-size:11px;fill:#222}svg .tick{fill:#555}"
    "svg .grid{stroke:#e4e4e4}svg .axis{stroke:#444}svg .axis-title{font-size:12px}"
    "svg .none{fill:#999}svg .noise{fill:#ddd}svg .roof{stroke-width:2}svg .memory{stroke:#1f77b4}"
    "svg .compute{stroke:#d62728}svg .roof-label{fill:#d62728}svg .point{stroke:#222}"
    ".status-FAIL{fill:#d62728;color:#d62728}.status-ERROR{fill:#ff7f0e;color:#b35900}"
    ".status-CRASH{fill:#7b0000;color:#7b0000}.status-TIMEOUT{fill:#8c564b;color:#8c564b}"
    ".status-SKIP{fill:#aaa;color:#777}svg text.status-text{font-weight:bold;fill:#222}"
    ".verdict-SAME{fill:#7f7f7f;color:#555}.verdict-FAST{fill:#2ca02c;color:#1a7a1a}"
    ".verdict-SLOW{fill:#d62728;color:#d62728}tr.lost td{color:#d62728}";

/* The backends of the whole report, in order of first appearance: a backend has
 * one colour on every chart. */
typedef struct series_list {
  char names[MAX_SERIES][SERIES_NAME];
  const char *ptrs[MAX_SERIES];
  int n;
} series_list;

static int series_of(series_list *s, const json_t *row)
{
  char name[SERIES_NAME];
  snprintf(name, sizeof name, "%s %s", khost__report_text(row, "backend"), khost__report_text(row, "device"));
  for (int i = 0; i < s->n; i++)
    if (strcmp(s->names[i], name) == 0) return i;
  if (s->n == MAX_SERIES) return MAX_SERIES - 1; /* past the last, backends share its colour */
  snprintf(s->names[s->n], SERIES_NAME, "%s", name);
  s->ptrs[s->n] = s->names[s->n];
  return s->n++;
}

/* A row's roof fraction: 1 and *key naming it, when it has one. */
static int roof_of(const json_t *row, double *fraction, const char **key)
{
  for (size_t k = 0; k < sizeof roof_keys / sizeof *roof_keys; k++)
    if (khost__report_number(row, roof_keys[k], fraction)) return *key = roof_keys[k], 1;
  return 0;
}

static void format_number(khost__format f, double x, char *cell)
{
  khost__value v = {.number = x};
  khost__column_format(f, &v, cell, CELL);
}

/* One op's rows: indexes into the report, in report order. */
typedef struct op_rows {
  const char *op;
  size_t *at;
  int n;
} op_rows;

static void fill_bar(khost__bar *b, const json_t *row, series_list *series, int by_roof)
{
  double x, speedup;
  const char *key;
  b->series = series_of(series, row);
  b->status = khost__report_text(row, "status");
  if (by_roof ? roof_of(row, &x, &key) : khost__report_number(row, "gbps", &x)) {
    b->has_value = 1;
    b->value = fmax(x, 0);
    format_number(by_roof ? KHOST__FORMAT_FRACTION : KHOST__FORMAT_RATE, x, b->label);
  }
  if (khost__report_number(row, "speedup", &speedup)) format_number(KHOST__FORMAT_RATIO, speedup, b->note);
}

/* The cases of the op's rows, in order, each with its bars. */
static int bar_groups(const khost__report_doc *doc, const op_rows *op, series_list *series, int by_roof,
                      khost__bar_group *groups, khost__bar *bars)
{
  int ngroups = 0;
  for (int i = 0; i < op->n; i++) {
    const json_t *row = khost__report_row(doc, op->at[i]);
    const char *name = khost__report_text(row, "case");
    if (ngroups == 0 || strcmp(groups[ngroups - 1].name, name) != 0)
      groups[ngroups++] = (khost__bar_group){name, &bars[i], 0};
    fill_bar(&bars[i], row, series, by_roof);
    groups[ngroups - 1].nbars++;
  }
  return ngroups;
}

static int any_roof(const khost__report_doc *doc, const op_rows *op)
{
  double x;
  const char *key;
  for (int i = 0; i < op->n; i++)
    if (roof_of(khost__report_row(doc, op->at[i]), &x, &key)) return 1;
  return 0;
}

static int op_chart(FILE *out, const khost__report_doc *doc, const op_rows *op, series_list *series)
{
  khost__bar_group *groups = calloc((size_t)op->n, sizeof *groups);
  khost__bar *bars = calloc((size_t)op->n, sizeof *bars);
  int by_roof = any_roof(doc, op), rc = KHOST__OK;
  if (!groups || !bars) {
    rc = KHOST__E_NOMEM;
    goto out;
  }
  khost__bar_chart c = {.op = op->op, .unit = by_roof ? "% of roof" : "GB/s", .scale = by_roof ? 100 : 1};
  c.groups = groups;
  c.ngroups = bar_groups(doc, op, series, by_roof, groups, bars);
  c.series = series->ptrs;
  c.nseries = series->n;
  fprintf(
      out,
      "<p>%s; over each bar the speedup against the baseline row (the JSON's <code>speedup</code>).</p>\n",
      by_roof ? "Each backend's % of the roof per case: the case's speed of light "
                "(<code>sol_fraction</code>) where the "
                "report has it, else the measured copy bandwidth (<code>peak_fraction</code>)"
              : "No row of this op has a roof (CPU rows have none): each backend's GB/s per case");
  khost__chart_bars(out, &c);
out:
  free(groups);
  free(bars);
  return rc;
}

/* The run's compute peaks: run.peak_tflops, one number or an object of them. */
static int compute_peaks(const json_t *run, const char **names, double *peaks, int max)
{
  json_t *p = khost__report_value(run, "peak_tflops");
  const char *name;
  json_t *v;
  int n = 0;
  if (json_is_number(p) && json_number_value(p) > 0)
    return names[0] = "compute peak", peaks[0] = json_number_value(p), 1;
  json_object_foreach(json_is_object(p) ? p : NULL, name, v)
  {
    if (n < max && json_is_number(v) && json_number_value(v) > 0)
      names[n] = name, peaks[n++] = json_number_value(v);
  }
  return n;
}

static int place_point(const json_t *row, series_list *series, khost__point *p)
{
  double flops, bytes, tflops;
  if (strcmp(khost__report_text(row, "status"), "PASS") != 0 || !khost__report_number(row, "flops", &flops) ||
      !khost__report_number(row, "bytes", &bytes) || !khost__report_number(row, "tflops", &tflops) ||
      flops <= 0 || bytes <= 0 || tflops <= 0)
    return 0;
  char rate[CELL];
  format_number(KHOST__FORMAT_RATE, tflops, rate);
  p->series = series_of(series, row);
  p->intensity = flops / bytes;
  p->tflops = tflops;
  snprintf(p->title, sizeof p->title, "%s, %s %s: %s TFLOP/s at %.3g FLOP/byte",
           khost__report_text(row, "case"), khost__report_text(row, "backend"),
           khost__report_text(row, "device"), rate, p->intensity);
  return 1;
}

/* The roofline of an op with FLOPs, when the run has a compute peak. */
static int op_roofline(FILE *out, const khost__report_doc *doc, const op_rows *op, series_list *series,
                       int id)
{
  const char *names[16];
  double peaks[16], gbps = 0;
  khost__roofline r = {.id = id, .op = op->op, .peak_names = names, .peaks = peaks};
  r.npeaks = compute_peaks(doc->run, names, peaks, 16);
  if (r.npeaks == 0) return KHOST__OK;
  khost__point *points = calloc((size_t)op->n, sizeof *points);
  if (!points) return KHOST__E_NOMEM;
  for (int i = 0; i < op->n; i++)
    r.npoints += place_point(khost__report_row(doc, op->at[i]), series, &points[r.npoints]);
  khost__report_number(doc->run, "peak_gbps", &gbps);
  r.peak_gbps = gbps;
  r.points = points;
  r.series = series->ptrs;
  r.nseries = series->n;
  if (r.npoints > 0) {
    fputs("<h3>Roofline</h3><p>TFLOP/s against FLOP per byte (the JSON's <code>flops</code> / "
          "<code>bytes</code>); "
          "the memory roof is the measured copy bandwidth, the compute roofs the run's "
          "<code>peak_tflops</code>.</p>\n",
          out);
    khost__chart_roofline(out, &r);
  }
  free(points);
  return KHOST__OK;
}

/* The table's columns, as the terminal table has them, shown where a row of the op has a value. */
typedef struct row_table {
  const khost__column *cols[KHOST__MAX_COLUMNS];
  int shown[KHOST__MAX_COLUMNS];
  int n;
} row_table;

/* The terminal table's columns and cells (columns.h), of each row read back as
 * the run held it (report_row.h): the page and the table cannot show, format or
 * judge a value two ways. */
static void plan_table(row_table *t, const khost__report_doc *doc, const op_rows *op)
{
  char cell[CELL];
  khost__run_info info;
  khost__report_run_info(doc, &info);
  t->n = khost__columns_placed(KHOST__IN_TABLE, t->cols);
  for (int k = 0; k < t->n; k++) t->shown[k] = khost__column_shown_for_run(t->cols[k], &info);
  for (int i = 0; i < op->n; i++) {
    khost__row row;
    khost__report_row_read(khost__report_row(doc, op->at[i]), &row);
    for (int k = 0; k < t->n; k++) t->shown[k] |= khost__column_shown_by_row(t->cols[k], &row, cell, CELL);
  }
}

static void text_cell(FILE *out, const char *tag, const char *text)
{
  fprintf(out, "<%s class=\"text\">", tag);
  khost__html_text(out, text);
  fprintf(out, "</%s>", tag);
}

static void table_row(FILE *out, const row_table *t, const json_t *row)
{
  char cell[CELL];
  khost__row read;
  khost__report_row_read(row, &read);
  const char *status = khost__report_text(row, "status"), *message = khost__report_text(row, "message");
  int ncols = 2;
  fprintf(out, "<tr class=\"row status-%s\" data-status=\"%s\">", status, status);
  text_cell(out, "td", khost__report_text(row, "case"));
  text_cell(out, "td", khost__report_text(row, "params"));
  for (int k = 0; k < t->n; k++) {
    if (!t->shown[k]) continue;
    khost__column_cell(t->cols[k], &read, cell, CELL);
    ncols++;
    text_cell(out, "td", cell);
  }
  fputs("</tr>\n", out);
  if (strcmp(status, "PASS") == 0 || !message[0]) return;
  fprintf(out, "<tr class=\"message\"><td class=\"text\" colspan=\"%d\"><pre>", ncols);
  khost__html_text(out, message);
  fputs("</pre></td></tr>\n", out);
}

static void op_table(FILE *out, const khost__report_doc *doc, const op_rows *op)
{
  row_table t;
  plan_table(&t, doc, op);
  fputs("<table class=\"rows\"><tr><th class=\"text\">case</th><th class=\"text\">params</th>", out);
  for (int k = 0; k < t.n; k++)
    if (t.shown[k]) text_cell(out, "th", t.cols[k]->table.title);
  fputs("</tr>\n", out);
  for (int i = 0; i < op->n; i++) table_row(out, &t, khost__report_row(doc, op->at[i]));
  fputs("</table>\n", out);
}

static int op_section(FILE *out, const khost__report_doc *doc, const op_rows *op, series_list *series, int id)
{
  fputs("<section class=\"op\" data-op=\"", out);
  khost__html_text(out, op->op);
  fputs("\"><h2>op ", out);
  khost__html_text(out, op->op);
  fputs("</h2>\n", out);
  int rc = op_chart(out, doc, op, series);
  if (rc == KHOST__OK) rc = op_roofline(out, doc, op, series, id);
  op_table(out, doc, op);
  fputs("</section>\n", out);
  return rc;
}

/* Each op in order of its first row, with its rows. */
static int op_sections(FILE *out, const khost__report_doc *doc)
{
  series_list *series = calloc(1, sizeof *series);
  size_t *at = calloc(doc->nrows ? doc->nrows : 1, sizeof *at);
  char *done = calloc(doc->nrows ? doc->nrows : 1, 1);
  int rc = series && at && done ? KHOST__OK : KHOST__E_NOMEM, id = 0;
  for (size_t i = 0; i < doc->nrows && rc == KHOST__OK; i++) {
    if (done[i]) continue;
    op_rows op = {khost__report_text(khost__report_row(doc, i), "op"), at, 0};
    for (size_t j = i; j < doc->nrows; j++)
      if (!done[j] && strcmp(khost__report_text(khost__report_row(doc, j), "op"), op.op) == 0)
        done[j] = 1, at[op.n++] = j;
    rc = op_section(out, doc, &op, series, id++);
  }
  free(series);
  free(at);
  free(done);
  return rc;
}

/* How the run header shows a run key. */
typedef enum { FACT_TEXT, FACT_COUNT, FACT_MHZ, FACT_GBPS, FACT_SECONDS, FACT_MIB, FACT_CUDA } fact_kind;

static const struct fact {
  const char *label, *key;
  fact_kind kind;
} facts[] = {
    {"device", "device", FACT_TEXT},
    {"SMs", "sm_count", FACT_COUNT},
    {"L2", "l2_bytes", FACT_MIB},
    {"SM clock (rated)", "sm_clock_mhz", FACT_MHZ},
    {"memory clock (rated)", "mem_clock_mhz", FACT_MHZ},
    {"measured copy bandwidth", "peak_gbps", FACT_GBPS},
    {"empty kernel", "empty_call_s", FACT_SECONDS},
    {"CUDA driver", "cuda_driver_version", FACT_CUDA},
    {"CUDA runtime", "cuda_runtime_version", FACT_CUDA},
    {"khost version", "khost_version", FACT_TEXT},
    {"suite", "suite", FACT_TEXT},
    {"date", "date", FACT_TEXT},
    {"command", "command", FACT_TEXT},
    {"host", "host", FACT_TEXT},
    {"CPU", "cpu", FACT_TEXT},
    {"CPUs", "ncpus", FACT_COUNT},
};

/* The fact's value as the terminal table's header writes it; "-" when the run has none. */
static void format_fact(const struct fact *f, const json_t *run, char *cell, size_t size)
{
  double x;
  if (f->kind == FACT_TEXT) {
    snprintf(cell, size, "%s", khost__report_value(run, f->key) ? khost__report_text(run, f->key) : "-");
    return;
  }
  if (!khost__report_number(run, f->key, &x) || x <= 0) {
    snprintf(cell, size, "-");
    return;
  }
  switch (f->kind) {
  case FACT_MHZ: snprintf(cell, size, "%.0f MHz", x); break;
  case FACT_GBPS: snprintf(cell, size, "%.1f GB/s", x); break;
  case FACT_SECONDS: khost__format_seconds(x, cell, size); break;
  case FACT_MIB: snprintf(cell, size, "%.1f MiB", x / (1 << 20)); break;
  case FACT_CUDA: snprintf(cell, size, "%d.%d", (int)x / 1000, (int)x % 1000 / 10); break;
  default: snprintf(cell, size, "%.0f", x); break;
  }
}

static void run_header(FILE *out, const khost__report_doc *doc, const char *path)
{
  char cell[2048];
  const char *names[16];
  double peaks[16];
  int npeaks = compute_peaks(doc->run, names, peaks, 16);
  fputs("<table class=\"run\"><tr data-key=\"report\"><td>report</td><td>", out);
  khost__html_text(out, path);
  fputs("</td></tr>\n", out);
  for (size_t k = 0; k < sizeof facts / sizeof *facts; k++) {
    format_fact(&facts[k], doc->run, cell, sizeof cell);
    fprintf(out, "<tr data-key=\"%s\"><td>%s</td><td>", facts[k].key, facts[k].label);
    khost__html_text(out, cell);
    fputs("</td></tr>\n", out);
  }
  for (int i = 0; i < npeaks; i++) {
    fputs("<tr data-key=\"peak_tflops\"><td>", out);
    khost__html_text(out, names[i]);
    fprintf(out, "</td><td>%g TFLOP/s</td></tr>\n", peaks[i]);
  }
  fputs("</table>\n", out);
}

static void summary_counts(FILE *out, const json_t *root)
{
  json_t *counts = khost__report_value(root, "summary.counts");
  const char *status;
  json_t *n;
  fputs("<p class=\"counts\">rows per status:", out);
  json_object_foreach(json_is_object(counts) ? counts : NULL, status, n)
  {
    if (!json_is_integer(n)) continue;
    fputs(" <span class=\"status-", out);
    khost__html_text(out, status);
    fputs("\">", out);
    khost__html_text(out, status);
    fprintf(out, " %" JSON_INTEGER_FORMAT "</span>", json_integer_value(n));
  }
  fputs("</p>\n", out);
}

static void summary_backends(FILE *out, const json_t *root)
{
  json_t *backends = khost__report_value(root, "summary.backends"), *b;
  size_t i;
  char speedup[CELL];
  fputs("<table class=\"summary\"><tr><th class=\"text\">backend</th><th class=\"text\">device</th>"
        "<th>speedup (geomean)</th><th>cases</th><th>wins</th></tr>\n",
        out);
  json_array_foreach(json_is_array(backends) ? backends : NULL, i, b)
  {
    double g;
    if (khost__report_number(b, "geomean_speedup", &g))
      format_number(KHOST__FORMAT_RATIO, g, speedup);
    else
      strcpy(speedup, "-");
    fputs("<tr>", out);
    text_cell(out, "td", khost__report_text(b, "backend"));
    text_cell(out, "td", khost__report_text(b, "device"));
    fprintf(out, "<td>%s</td><td>%" JSON_INTEGER_FORMAT "</td><td>%" JSON_INTEGER_FORMAT "</td></tr>\n",
            speedup, json_integer_value(khost__report_value(b, "speedup_cases")),
            json_integer_value(khost__report_value(b, "wins")));
  }
  fputs("</table>\n", out);
}

static void compared_row(FILE *out, const khost__compared *c)
{
  char base[CELL], run[CELL];
  const char *verdict = khost__verdict_name(c->verdict);
  khost__format_seconds(c->base_s, base, sizeof base);
  khost__format_seconds(c->run_s, run, sizeof run);
  fprintf(out, "<tr class=\"compared verdict-%s\" data-verdict=\"%s\">", verdict, verdict);
  text_cell(out, "td", c->key.case_name);
  text_cell(out, "td", c->key.backend);
  text_cell(out, "td", c->key.device);
  fprintf(out, "<td>%s</td><td>%s</td><td>%+.2f%%</td><td>&#177;%.2f%%</td><td class=\"text\">%s", base, run,
          c->diff_pct, c->limit_pct, verdict);
  if (c->base_variant) khost__html_printf(out, " (variant %s -> %s)", c->base_variant, c->run_variant);
  if (c->base_mhz != 0) fprintf(out, " (SM clock %.0f -&gt; %.0f MHz)", c->base_mhz, c->run_mhz);
  fputs("</td></tr>\n", out);
}

static void lost_row(FILE *out, const khost__lost *l)
{
  fputs("<tr class=\"lost\">", out);
  text_cell(out, "td", l->key.case_name);
  text_cell(out, "td", l->key.backend);
  text_cell(out, "td", l->key.device);
  fputs("<td class=\"text\">PASS -&gt; ", out);
  khost__html_text(out, l->status);
  fputs("</td><td class=\"text\"><pre>", out);
  khost__html_text(out, l->message);
  fputs("</pre></td></tr>\n", out);
}

static int ratio_chart(FILE *out, const khost__comparison *c)
{
  khost__ratio *r = calloc((size_t)c->nrows + 1, sizeof *r);
  if (!r) return KHOST__E_NOMEM;
  for (int i = 0; i < c->nrows; i++) {
    const khost__compared *x = &c->rows[i];
    snprintf(r[i].name, sizeof r[i].name, "%s %s %s", x->key.case_name, x->key.backend, x->key.device);
    r[i].diff_pct = x->diff_pct;
    r[i].limit_pct = x->limit_pct;
    r[i].verdict = khost__verdict_name(x->verdict);
  }
  khost__chart_ratios(out, r, c->nrows);
  free(r);
  return KHOST__OK;
}

static void comparison_tables(FILE *out, const khost__comparison *c, double tolerance)
{
  fprintf(out,
          "<p class=\"compare-summary\">rows compared: %d, largest difference %.2f%%, beyond %g%%: %d, lost: "
          "%d</p>\n",
          c->nrows, c->worst_pct, tolerance, c->beyond, c->nlost);
  fputs("<table class=\"comparison\"><tr><th class=\"text\">case</th><th class=\"text\">backend</th>"
        "<th class=\"text\">device</th><th>base</th><th>run</th><th>diff</th><th>same within</th>"
        "<th class=\"text\">verdict</th></tr>\n",
        out);
  for (int i = 0; i < c->nrows; i++) compared_row(out, &c->rows[i]);
  fputs("</table>\n", out);
  if (c->nlost == 0) return;
  fputs("<h3>Lost: passed in the base run, not in this one</h3><table class=\"lost\">", out);
  for (int i = 0; i < c->nlost; i++) lost_row(out, &c->lost[i]);
  fputs("</table>\n", out);
}

static int comparison_section(FILE *out, const khost__html_sources *s, khost__err *err)
{
  khost__comparison c;
  int rc = khost__compare(s->run, s->base, &s->compare, &c, err);
  if (rc != KHOST__OK) return rc;
  fputs("<section class=\"comparison\"><h2>Against the base run</h2>\n<p>Base: ", out);
  khost__html_text(out, s->base_path);
  fprintf(out,
          ". A row timed in both runs is SAME when its medians differ by at most the larger of %g%% "
          "(the tolerance) and twice the larger noise of the two, else FAST or SLOW; rows under %g us are "
          "left out. LOST: passed in the base run, and did not pass here or is missing.</p>\n",
          s->compare.tolerance_pct, s->compare.min_us);
  if (c.nrows > 0) rc = ratio_chart(out, &c);
  if (rc == KHOST__OK) comparison_tables(out, &c, s->compare.tolerance_pct);
  fputs("</section>\n", out);
  khost__comparison_free(&c);
  return rc == KHOST__E_NOMEM ? khost__errorf(err, rc, "out of memory drawing the comparison") : rc;
}

static void banner(FILE *out, const khost__report_doc *doc, const char *path)
{
  if (doc->finished) return;
  fputs("<p class=\"banner unfinished\">", out);
  khost__html_text(out, path);
  fputs(": this run did not finish (<code>finished</code> is false): the page shows the rows it finished "
        "before it stopped.</p>\n",
        out);
}

static void page_head(FILE *out, const khost__html_sources *s)
{
  /* No network, no script: the policy makes the browser refuse anything else, and say so. */
  fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src "
        "'unsafe-inline'\">\n"
        "<title>khost report: ",
        out);
  khost__html_text(out, khost__report_text(s->run->run, "suite"));
  fputc(' ', out);
  khost__html_text(out, khost__report_text(s->run->run, "date"));
  fprintf(out, "</title>\n<style>%s</style></head>\n<body>\n<h1>khost report</h1>\n", style);
  banner(out, s->run, s->run_path);
  if (s->base) banner(out, s->base, s->base_path);
}

int khost__html_report(FILE *out, const khost__html_sources *s, khost__err *err)
{
  page_head(out, s);
  run_header(out, s->run, s->run_path);
  summary_counts(out, s->run->root);
  summary_backends(out, s->run->root);
  int rc = op_sections(out, s->run);
  if (rc != KHOST__OK) return khost__errorf(err, rc, "out of memory drawing the charts");
  if (s->base && (rc = comparison_section(out, s, err)) != KHOST__OK) return rc;
  fputs("</body></html>\n", out);
  if (fflush(out) != 0 || ferror(out)) return khost__errorf(err, KHOST__E_IO, "could not write the page");
  return KHOST__OK;
}

#include "table.h"

#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

#include "columns.h"

enum { SUM_BACKEND, SUM_DEVICE, SUM_SPEEDUP, SUM_CASES, SUM_WINS, SUM_NCOLS };

#define CELL          72 /* room for a backend name (63 characters) */
#define INDENT        "  "
#define DETAIL_INDENT "      "

static const char *const summary_titles[SUM_NCOLS] = {"backend", "device", "speedup (geomean)", "cases",
                                                      "wins"};
static const char *const status_verbs[KHOST__ROW_STATUS_COUNT] = {
    [KHOST__ROW_PASS] = "passed",   [KHOST__ROW_FAIL] = "failed",   [KHOST__ROW_SKIP] = "skipped",
    [KHOST__ROW_ERROR] = "errored", [KHOST__ROW_CRASH] = "crashed", [KHOST__ROW_TIMEOUT] = "timed out",
};

/* Column widths, which columns appear and which are text (left-aligned). */
typedef struct layout {
  int ncols;
  int width[KHOST__MAX_COLUMNS];
  int shown[KHOST__MAX_COLUMNS];
  int text[KHOST__MAX_COLUMNS];
} layout;

/* The rows' part of the table: its columns in their order, and their layout. */
typedef struct row_layout {
  const khost__column *cols[KHOST__MAX_COLUMNS];
  const char *titles[KHOST__MAX_COLUMNS];
  layout l;
} row_layout;

static void fill_cells(const row_layout *t, const khost__row *r, char (*c)[CELL])
{
  for (int k = 0; k < t->l.ncols; k++) khost__column_cell(t->cols[k], r, c[k], CELL);
}

static void widen(layout *l, char (*c)[CELL])
{
  for (int k = 0; k < l->ncols; k++) {
    int w = (int)strlen(c[k]);
    if (w > l->width[k]) l->width[k] = w;
  }
}

/* Columns before first_numeric are text. */
static void layout_init(layout *l, int ncols, int first_numeric, const char *const *col_titles)
{
  memset(l, 0, sizeof *l);
  l->ncols = ncols;
  for (int k = 0; k < ncols; k++) {
    l->shown[k] = 1;
    l->text[k] = k < first_numeric;
    l->width[k] = (int)strlen(col_titles[k]);
  }
}

/* The table's columns. Widths fit every row of every case, so all blocks line up
 * under each other. */
static void plan_rows(row_layout *t, const khost__run_info *info, const khost__row *rows, int nrows)
{
  char c[KHOST__MAX_COLUMNS][CELL];
  int n = khost__columns_placed(KHOST__IN_TABLE, t->cols);
  for (int k = 0; k < n; k++) t->titles[k] = t->cols[k]->table.title;
  layout_init(&t->l, n, 0, t->titles);
  for (int k = 0; k < n; k++) {
    t->l.text[k] = t->cols[k]->format == KHOST__FORMAT_TEXT;
    t->l.shown[k] = khost__column_shown_for_run(t->cols[k], info);
  }
  for (int i = 0; i < nrows; i++) {
    for (int k = 0; k < n; k++) t->l.shown[k] |= khost__column_shown_by_row(t->cols[k], &rows[i], c[k], CELL);
    widen(&t->l, c);
  }
}

static void print_cells(FILE *out, const layout *l, char (*c)[CELL])
{
  const char *sep = INDENT;
  int last = l->ncols - 1;
  while (last > 0 && !l->shown[last]) last--;
  for (int k = 0; k <= last; k++) {
    if (!l->shown[k]) continue;
    /* A text column last is not padded, so no line ends in blanks. */
    int w = !l->text[k] ? l->width[k] : k == last ? 0 : -l->width[k];
    fprintf(out, "%s%*s", sep, w, c[k]);
    sep = "  ";
  }
  fputc('\n', out);
}

static void print_titles(FILE *out, const layout *l, const char *const *col_titles)
{
  char c[KHOST__MAX_COLUMNS][CELL];
  for (int k = 0; k < l->ncols; k++) snprintf(c[k], CELL, "%s", col_titles[k]);
  print_cells(out, l, c);
}

/* Prints " | " then the formatted item: the parts of one header line. */
static void item(FILE *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void item(FILE *out, const char *fmt, ...)
{
  va_list ap;
  fputs(" | ", out);
  va_start(ap, fmt);
  vfprintf(out, fmt, ap);
  va_end(ap);
}

static void print_device(FILE *out, const khost__run_info *info)
{
  fprintf(out, "device %s", info->device);
  if (info->sm_count > 0) item(out, "%d SMs", info->sm_count);
  if (info->l2_bytes > 0) item(out, "L2 %.1f MiB", (double)info->l2_bytes / (1 << 20));
  if (info->sm_clock_mhz > 0) item(out, "SM %d MHz", info->sm_clock_mhz);
  if (info->mem_clock_mhz > 0) item(out, "memory %d MHz", info->mem_clock_mhz);
  if (info->peak_gbps > 0) item(out, "measured copy peak %.1f GB/s", info->peak_gbps);
  if (info->empty_call_s > 0) {
    char t[CELL];
    khost__format_seconds(info->empty_call_s, t, sizeof t);
    item(out, "empty kernel %s", t);
  }
  if (info->cuda_driver > 0)
    item(out, "CUDA driver %d.%d, runtime %d.%d", info->cuda_driver / 1000, info->cuda_driver % 1000 / 10,
         info->cuda_runtime / 1000, info->cuda_runtime % 1000 / 10);
  fputc('\n', out);
}

static void print_header(FILE *out, const khost__run_info *info, const char *baseline)
{
  if (info) {
    fprintf(out, "khost %s", info->khost_version);
    if (info->host[0]) item(out, "host %s", info->host);
    if (info->cpu[0]) item(out, "cpu %s", info->cpu);
    if (info->ncpus > 0) item(out, "%d cpus", info->ncpus);
    fputc('\n', out);
    if (info->device[0]) print_device(out, info);
    if (info->suite[0]) fprintf(out, "suite %s\n", info->suite);
    if (info->date[0]) fprintf(out, "date %s\n", info->date);
  }
  if (baseline) fprintf(out, "speedup is relative to backend %s\n", baseline);
}

/* Writes text line by line under the row it explains. */
static void print_indented(FILE *out, const char *text)
{
  while (*text) {
    size_t n = strcspn(text, "\n");
    fprintf(out, DETAIL_INDENT "%.*s\n", (int)n, text);
    text += n + (text[n] == '\n');
  }
}

static void print_mismatches(FILE *out, const khost__row *r)
{
  const khost__check_stats *s = &r->measured.check;
  fprintf(out, DETAIL_INDENT "%" PRIu64 " of %" PRIu64 " elements outside atol %.3g + rtol %.3g * |expected|",
          s->mismatches, s->count, r->id.atol, r->id.rtol);
  if (s->unwritten > 0) fprintf(out, ", %" PRIu64 " never written", s->unwritten);
  fputc('\n', out);
  for (int i = 0; i < s->nshown && i < KHOST__MAX_MISMATCHES; i++) {
    const khost__mismatch *m = &s->shown[i];
    fprintf(out, DETAIL_INDENT "  %s (flat index %" PRIu64 "): got %.9g, expected %.9g\n",
            m->where[0] ? m->where : "?", m->index, m->got, m->expected);
  }
}

/* A GPU time under twice the empty kernel's is mostly the launch and the events,
 * which compress every ratio taken from it (GB/s, % of peak, speedups). */
static void print_overhead(FILE *out, const khost__row *r, double empty_call_s)
{
  const khost__timing *t = &r->measured.time;
  if (empty_call_s <= 0 || t->samples == 0 || strcmp(r->id.device, "cuda") != 0 ||
      t->median >= 2 * empty_call_s)
    return;
  char empty[CELL];
  khost__format_seconds(empty_call_s, empty, sizeof empty);
  fprintf(out,
          DETAIL_INDENT "half or more of this time is launch and event overhead: an empty kernel takes %s "
                        "timed the same way\n",
          empty);
}

/* A plugin's fixed host cost of a call (its call_overhead(): the python
 * plugin's empty Python kernel). A CPU row's time holds it, and is mostly it
 * under twice its size; a CUDA row's is host time spent before the launch. */
static void print_call_overhead(FILE *out, const khost__row *r)
{
  const khost__measurement *m = &r->measured;
  if (m->call_overhead_s <= 0) return;
  char t[CELL];
  khost__format_seconds(m->call_overhead_s, t, sizeof t);
  int cpu = strcmp(r->id.device, "cpu") == 0;
  const char *what = !cpu ? "call overhead, host time"
                     : m->time.samples > 0 && m->time.median < 2 * m->call_overhead_s
                         ? "half or more of this time is call overhead"
                         : "call overhead, inside this time";
  fprintf(out, DETAIL_INDENT "%s: an empty kernel of this plugin takes %s called the same way\n", what, t);
}

/* --graph N was asked, but this kernel cannot be captured: its time is of single
 * calls between events, host waits inside the call included, not of a graph. */
static void print_graph_not_applied(FILE *out, const khost__row *r)
{
  if (r->measured.graph_not_applied)
    fprintf(out, DETAIL_INDENT "--graph not applied: the kernel waits on the host or enqueues work a CUDA "
                               "graph cannot hold; timed call by call\n");
}

static void print_details(FILE *out, const khost__row *r, double empty_call_s)
{
  const khost__measurement *m = &r->measured;
  int has_mismatches = m->check.mismatches > 0 || m->check.unwritten > 0;
  static const char throttled[] = "more samples were discarded: the SM clock ran under the --throttle floor";
  if (m->time.throttled > 0 && m->time.samples > 0)
    fprintf(out, DETAIL_INDENT "%" PRIu32 " %s\n", m->time.throttled, throttled);
  print_overhead(out, r, empty_call_s);
  print_call_overhead(out, r);
  print_graph_not_applied(out, r);
  if (m->status == KHOST__ROW_PASS) return;
  print_indented(out, m->message);
  if (has_mismatches) print_mismatches(out, r);
  if (!m->message[0] && !has_mismatches) fputs(DETAIL_INDENT "(no reason recorded)\n", out);
}

static void print_case(FILE *out, const row_layout *t, const khost__row *rows, int nrows, int first,
                       double empty_call_s)
{
  char c[KHOST__MAX_COLUMNS][CELL];
  const khost__row_id *head = &rows[first].id;
  fprintf(out, "\ncase %s | op %s", head->case_name, head->op);
  if (head->params[0]) item(out, "%s", head->params);
  fputc('\n', out);
  print_titles(out, &t->l, t->titles);
  for (int i = first; i < nrows; i++) {
    if (strcmp(rows[i].id.case_name, head->case_name) != 0) continue;
    fill_cells(t, &rows[i], c);
    print_cells(out, &t->l, c);
    print_details(out, &rows[i], empty_call_s);
  }
}

static void backend_cells(const khost__backend_summary *b, char (*c)[CELL])
{
  snprintf(c[SUM_BACKEND], CELL, "%s", b->name);
  snprintf(c[SUM_DEVICE], CELL, "%s", b->device);
  if (b->speedup_cases > 0)
    snprintf(c[SUM_SPEEDUP], CELL, "%.2fx", b->geomean_speedup);
  else
    strcpy(c[SUM_SPEEDUP], "-");
  snprintf(c[SUM_CASES], CELL, "%d", b->speedup_cases);
  snprintf(c[SUM_WINS], CELL, "%d", b->wins);
}

static void print_summary(FILE *out, const khost__summary *s)
{
  char c[KHOST__MAX_COLUMNS][CELL];
  layout l;
  fprintf(out, "\nsummary: %d rows", s->nrows);
  for (int k = 0; k < KHOST__ROW_STATUS_COUNT; k++)
    fprintf(out, "%s%d %s", k ? ", " : ": ", s->by_status[k], status_verbs[k]);
  fputc('\n', out);
  layout_init(&l, SUM_NCOLS, SUM_SPEEDUP, summary_titles);
  for (int b = 0; b < s->nbackends; b++) {
    backend_cells(&s->backends[b], c);
    widen(&l, c);
  }
  print_titles(out, &l, summary_titles);
  for (int b = 0; b < s->nbackends; b++) {
    backend_cells(&s->backends[b], c);
    print_cells(out, &l, c);
  }
  if (s->rows_omitted > 0)
    fprintf(out, INDENT "(%d rows of further backends are left out of the lines above)\n", s->rows_omitted);
  fputs(INDENT "speedup: geometric mean over passed cases; wins: cases where it was the fastest to pass\n",
        out);
}

int khost__table_print(FILE *out, const khost__run_info *info, const khost__row *rows, int nrows,
                       const char *baseline, khost__err *err)
{
  row_layout t;
  khost__summary summary;
  print_header(out, info, baseline);
  plan_rows(&t, info, rows, nrows);
  for (int i = 0; i < nrows; i++)
    if (khost__row_opens_case(rows, i)) print_case(out, &t, rows, nrows, i, info ? info->empty_call_s : 0);
  if (khost__summarize(rows, nrows, &summary) != KHOST__OK)
    return khost__errorf(err, KHOST__E_NOMEM, "out of memory summarising the results");
  print_summary(out, &summary);
  if (fflush(out) != 0 || ferror(out))
    return khost__errorf(err, KHOST__E_IO, "could not write the result table");
  return KHOST__OK;
}

#include "run_reports.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "progress.h"
#include "standard_fds.h"
#include "table.h"
#include "text.h"

/* A report that could not be written stays as last written; the run goes on
 * without it, for the table and the other report, and exits 1. */
static void drop_report(khost__run_reports *r, const khost__err *err)
{
  khost__progress_say("%s; the run goes on without this report", err->msg);
  r->failed_reports++;
}

static void write_json(khost__run_reports *r, const khost__row *rows, int n, int info_changed)
{
  khost__err err;
  int rc = info_changed ? khost__json_set_info(r->json, &r->info, &err) : KHOST__OK;
  for (int i = 0; i < n && rc == KHOST__OK; i++) rc = khost__json_append(r->json, &rows[i], &err);
  if (rc == KHOST__OK) return;
  drop_report(r, &err);
  khost__json_free(r->json);
  r->json = NULL;
}

static void write_csv(khost__run_reports *r, const khost__row *rows, int n)
{
  khost__err err;
  int rc = KHOST__OK;
  for (int i = 0; i < n && rc == KHOST__OK; i++) rc = khost__csv_append(r->csv, &rows[i], &err);
  if (rc == KHOST__OK) return;
  drop_report(r, &err);
  khost__csv_free(r->csv);
  r->csv = NULL;
}

/* Keeps a copy of the case's rows, with their text made safe for every report once. */
static int keep_rows(khost__run_reports *r, const khost__row *rows, int n, khost__err *err)
{
  khost__row *grown = realloc(r->rows, (size_t)(r->nrows + n) * sizeof *grown);
  if (!grown) return khost__errorf(err, KHOST__E_NOMEM, "out of memory keeping results");
  r->rows = grown;
  memcpy(r->rows + r->nrows, rows, (size_t)n * sizeof *rows);
  for (int i = r->nrows; i < r->nrows + n; i++) {
    khost__text_clean_row(&r->rows[i]);
    r->undumped += r->rows[i].measured.dump_incomplete;
    r->failed_rows += khost__row_status_fails(r->rows[i].measured.status);
  }
  r->nrows += n;
  return KHOST__OK;
}

int khost__run_reports_add(khost__run_reports *r, const khost__row *rows, int n, int info_changed,
                           khost__err *err)
{
  int rc = KHOST__OK;
  /* With no row there is nothing to keep, and realloc(p, 0) would free p. */
  if (n > 0 && (rc = keep_rows(r, rows, n, err)) != KHOST__OK) return rc;
  const khost__row *kept = n > 0 ? r->rows + r->nrows - n : NULL;
  if (r->json) write_json(r, kept, n, info_changed);
  if (r->csv) write_csv(r, kept, n);
  if (n > 0 && !r->quiet) khost__progress_say("%s done", kept[0].id.case_name);
  return KHOST__OK;
}

int khost__run_reports_open(khost__run_reports *r, const khost__options *o, khost__err *err)
{
  int rc = KHOST__OK;
  if (o->json) rc = khost__json_open(o->json, &r->info, o->report_mode, &r->json, err);
  if (rc == KHOST__OK && o->csv) rc = khost__csv_open(o->csv, o->report_mode, &r->csv, err);
  if (rc == KHOST__OK && o->junit) rc = khost__junit_open(o->junit, &r->info, o->report_mode, &r->junit, err);
  /* Before any case runs, a report path that cannot be written is a bad flag
   * value (exit 2), as an unusable --dump folder is; later write failures stay
   * I/O errors. */
  return rc == KHOST__E_IO ? KHOST__E_CONFIG : rc;
}

/* rc, or the first failure after it (a report not written in full: KHOST__E_IO) with its message. */
static int first_failure(int rc, int next, const khost__err *next_err, khost__err *err)
{
  if (rc != KHOST__OK || next == KHOST__OK) return rc;
  *err = *next_err;
  return KHOST__E_IO;
}

int khost__run_reports_close(khost__run_reports *r, const char *baseline, int finished, khost__err *err)
{
  int rc = KHOST__OK;
  /* Rows already finished are printed even when the run stopped early (a
   * worker that could not be started): they cost GPU time. */
  if (finished || r->nrows > 0)
    rc = khost__table_print(khost__standard_output(), &r->info, r->rows, r->nrows, baseline, err);
  if (!finished && r->nrows > 0)
    fprintf(stderr, "khost: the run stopped early; the table above has the %d rows finished before\n",
            r->nrows);
  /* The reports are closed even when the table could not be printed (stdout a
   * closed pipe): they hold the same rows. */
  khost__err end_err;
  if (r->json) rc = first_failure(rc, khost__json_end(r->json, finished, &end_err), &end_err, err);
  khost__json_free(r->json);
  if (r->csv) rc = first_failure(rc, khost__csv_end(r->csv, finished, &end_err), &end_err, err);
  khost__csv_free(r->csv);
  if (r->junit)
    rc = first_failure(rc, khost__junit_end(r->junit, &r->info, r->rows, r->nrows, finished, &end_err),
                       &end_err, err);
  khost__junit_free(r->junit);
  free(r->rows);
  r->rows = NULL;
  r->json = NULL;
  r->csv = NULL;
  r->junit = NULL;
  return rc;
}

int khost__run_reports_failed(const khost__run_reports *r)
{
  if (r->undumped)
    fprintf(stderr, "khost: --dump: %d row(s) lack some of their files (see the messages above)\n",
            r->undumped);
  if (r->failed_reports)
    fprintf(stderr, "khost: %d report(s) could not be written in full (see the messages above)\n",
            r->failed_reports);
  return r->undumped > 0 || r->failed_reports > 0 || r->failed_rows > 0;
}

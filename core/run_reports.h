/* What one run reports into: the rows kept for the closing table, and the JSON,
 * CSV and JUnit reports written as each case ends. A run (main.c) and a merge
 * of shards' reports (merge.c) go through these same functions, so that both
 * print the one table and summary and write the one format. */
#ifndef KHOST_RUN_REPORTS_H
#define KHOST_RUN_REPORTS_H

#include "csv.h"
#include "json.h"
#include "junit.h"
#include "options.h"
#include "report.h"

/* Owned by the caller: zero it, open, add rows, close (which frees it). */
typedef struct khost__run_reports {
  khost__run_info info;     /* the run's description, which the caller keeps up to date */
  khost__json_writer *json; /* NULL also once it could not be written */
  khost__csv_writer *csv;   /* likewise */
  khost__junit_writer *junit;
  int quiet; /* no line per finished case */
  khost__row *rows;
  int nrows;
  int undumped;       /* rows whose --dump files are incomplete */
  int failed_reports; /* reports that could not be written in full */
  int failed_rows;    /* rows whose status fails the run */
} khost__run_reports;

/* Opens o's --json, --csv and --junit (each may be NULL) with r->info as the
 * run's description. A path that cannot be written is KHOST__E_CONFIG. */
int khost__run_reports_open(khost__run_reports *r, const khost__options *o, khost__err *err);

/* Keeps a copy of rows (n of one case, borrowed), their text made safe, and
 * writes them to every open report; info_changed: r->info changed since the
 * last call. A report that cannot be written is dropped with a message, and the
 * run goes on. KHOST__E_NOMEM when the rows cannot be kept. */
int khost__run_reports_add(khost__run_reports *r, const khost__row *rows, int n, int info_changed,
                           khost__err *err);

/* Prints the table (when finished or some rows were kept) to the standard
 * output, relative to baseline, and ends every report with finished; frees
 * what r holds. The first failure: the table could not be printed or a report
 * not written in full (KHOST__E_IO). */
int khost__run_reports_close(khost__run_reports *r, const char *baseline, int finished, khost__err *err);

/* After close: prints the closing lines about incomplete dumps and reports,
 * and returns 1 when the run failed by them or by a row's status. */
int khost__run_reports_failed(const khost__run_reports *r);

#endif

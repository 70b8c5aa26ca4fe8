/* The HTML report (`khost report`): one self-contained page of a JSON report,
 * with the run's description, a chart and a table per op, a roofline where the
 * run has a compute peak, and, given a base run, the comparison of the two
 * (docs/REPORTS.md, "The HTML report"). The page loads nothing and runs no
 * script; every number on it is a value of the JSON report, formatted as the
 * terminal table formats it. */
#ifndef KHOST_HTML_REPORT_H
#define KHOST_HTML_REPORT_H

#include <stdio.h>

#include "compare.h"
#include "report_read.h"

/* Where the page's reports came from, as the user named them. */
typedef struct khost__html_sources {
  const char *run_path, *base_path; /* base_path NULL: no comparison */
  const khost__report_doc *run, *base;
  khost__compare_options compare;
} khost__html_sources;

/* Writes the page of s (borrowed) to out. KHOST__E_NOMEM, or KHOST__E_IO when
 * out reports a write error. */
int khost__html_report(FILE *out, const khost__html_sources *s, khost__err *err);

#endif

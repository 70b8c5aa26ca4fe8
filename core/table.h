/* The comparison table printed at the end of a run: plain ASCII, aligned columns. */
#ifndef KHOST_TABLE_H
#define KHOST_TABLE_H

#include <stdio.h>

#include "error.h"
#include "report.h"

/* Prints to out a header from info (NULL for none), one block per case with a
 * line per backend and, under each row that did not pass, why; then the summary.
 * rows are borrowed; baseline names the backend speedups are relative to (NULL
 * when none). KHOST__E_IO when out reports a write error. */
int khost__table_print(FILE *out, const khost__run_info *info, const khost__row *rows, int nrows,
                       const char *baseline, khost__err *err);

#endif

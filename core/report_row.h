/* A row of a JSON report read back (report_read.h) into the khost__row it was
 * written from, column by column (columns.h), so that `khost merge` hands the
 * table, summary and reports the rows a run hands them. */
#ifndef KHOST_REPORT_ROW_H
#define KHOST_REPORT_ROW_H

#include <jansson.h>

#include "result.h"

/* Fills *out (overwritten) from row, an object khost__report_read has checked
 * (borrowed). What the JSON cannot hold comes back as a run leaves it unset:
 * an absent or null key is no value, a text longer than its field is cut, and
 * dump_incomplete is 0. */
void khost__report_row_read(const json_t *row, khost__row *out);

#endif

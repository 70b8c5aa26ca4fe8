/* The CSV report: a header line, then one line per row (RFC 4180), flushed as
 * each row arrives so a run killed early keeps every row it finished. */
#ifndef KHOST_CSV_H
#define KHOST_CSV_H

#include <stdio.h>

#include "error.h"
#include "result.h"

/* Creates path (from the start folder, start_folder.h), writes the header line
 * and returns the stream in *out; the caller owns it and closes it with
 * khost__csv_close. */
int khost__csv_open(const char *path, FILE **out, khost__err *err);

/* Writes the header line to out (borrowed). */
int khost__csv_write_header(FILE *out, khost__err *err);

/* Writes one line for row to out (both borrowed) and flushes it. */
int khost__csv_write_row(FILE *out, const khost__row *row, khost__err *err);

/* Closes f (NULL is fine), reporting a failed final write. */
int khost__csv_close(FILE *f, khost__err *err);

#endif

/* The CSV report: a header line, then one line per row (RFC 4180), each written
 * as its row arrives so that a run killed early keeps every row it finished.
 * Column 34, finished (the last until the timer and speed-of-light columns came
 * after it), is 0 until the run has run every case: the file is then written
 * whole again with 1 in it. A regular file is made as
 * report_file.h says; a path that is not one (a pipe, a device) gets the whole
 * report at the end, when its finished is known. */
#ifndef KHOST_CSV_H
#define KHOST_CSV_H

#include <stdio.h>
#include <sys/types.h>

#include "error.h"
#include "result.h"

/* An open CSV report. Opaque; owned by the caller, released by khost__csv_free. */
typedef struct khost__csv_writer khost__csv_writer;

/* Writes the header line to path (nothing yet to a path that is not a regular
 * file; a folder is KHOST__E_CONFIG) and returns the writer in *out. mode is the
 * new file's. Texts in rows must be clean (text.h). */
int khost__csv_open(const char *path, mode_t mode, khost__csv_writer **out, khost__err *err);

/* Adds a line for row (borrowed), with finished 0 (a regular file's at once). */
int khost__csv_append(khost__csv_writer *w, const khost__row *row, khost__err *err);

/* When the run completed (finished), writes the report whole with finished 1 on
 * every line; a pipe or device gets its one report either way (a file keeps the
 * last one written). The writer stays valid until freed. */
int khost__csv_end(khost__csv_writer *w, int finished, khost__err *err);

/* Releases w (NULL is fine); the file stays as last written. */
void khost__csv_free(khost__csv_writer *w);

/* Writes the header line to out (borrowed). */
int khost__csv_write_header(FILE *out, khost__err *err);

/* Writes one line for row to out (both borrowed), finished (0 or 1) in column 34, and flushes it. */
int khost__csv_write_row(FILE *out, const khost__row *row, int finished, khost__err *err);

#endif

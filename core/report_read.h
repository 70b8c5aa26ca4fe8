/* A khost JSON report read back (docs/REPORTS.md defines it), for the
 * subcommands that take reports as input: `khost compare` and `khost report`.
 * The document is checked once, when read, so that its users may take every
 * key they read to have its documented type. */
#ifndef KHOST_REPORT_READ_H
#define KHOST_REPORT_READ_H

#include <jansson.h>
#include <stddef.h>

#include "error.h"

/* One report. Owned by the caller; khost__report_free releases it. */
typedef struct khost__report_doc {
  json_t *root; /* the document */
  json_t *run;  /* its run description, an object; borrowed from root */
  json_t *rows; /* its rows, an array of objects; borrowed from root */
  size_t nrows;
  int finished; /* the run ran every case (the document's `finished`) */
} khost__report_doc;

/* Reads and checks the report at path (relative to the folder khost started
 * in). KHOST__E_IO when the file cannot be read; KHOST__E_CONFIG when it is a
 * folder, not JSON, or not a khost report of schema version 1: a key of the
 * wrong type (`rows[3].time.median_s: expected a number`), a row without its
 * case, op, backend, device or status, a status khost never writes. Messages
 * start with path. */
int khost__report_read(const char *path, khost__report_doc *doc, khost__err *err);

void khost__report_free(khost__report_doc *doc);

/* Row i, borrowed from doc. */
json_t *khost__report_row(const khost__report_doc *doc, size_t i);

/* The value at a dotted path ("time.median_s") under obj; NULL when absent or null. */
json_t *khost__report_value(const json_t *obj, const char *path);

/* The text at path; "" when absent or null. Borrowed from obj. */
const char *khost__report_text(const json_t *obj, const char *path);

/* 1 and the number at path in *v when there is one (JSON null is none). */
int khost__report_number(const json_t *obj, const char *path, double *v);

#endif

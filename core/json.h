/* The JSON report. A regular file holds a complete, valid document from the
 * start: the first one is written whole and renamed into place (report_file.h),
 * then each row is written in place with the new summary and closing brackets
 * after it, in one write, so that a row costs its own size and not the
 * report's. A path that is not a regular file (a pipe, /dev/stdout) gets one
 * document, at the end. */
#ifndef KHOST_JSON_H
#define KHOST_JSON_H

#include <sys/types.h>

#include "error.h"
#include "report.h"

#define KHOST__JSON_SCHEMA_VERSION 1

/* An open JSON report. Opaque; owned by the caller, released by khost__json_free. */
typedef struct khost__json_writer khost__json_writer;

/* Writes a document with no rows to path (nothing yet to a path that is not a
 * regular file; a folder is KHOST__E_CONFIG) and returns the writer in *out.
 * info is copied; mode is the new file's. Texts in info and rows must be clean
 * (text.h): a JSON string is valid UTF-8. */
int khost__json_open(const char *path, const khost__run_info *info, mode_t mode, khost__json_writer **out,
                     khost__err *err);

/* Adds a copy of row, with the summary, to the document (a regular file's at once). */
int khost__json_append(khost__json_writer *w, const khost__row *row, khost__err *err);

/* Replaces the run description (copied), for facts learnt during the run such
 * as the GPU. The run comes before the rows: when it changed, a regular file
 * is written whole again. */
int khost__json_set_info(khost__json_writer *w, const khost__run_info *info, khost__err *err);

/* Marks the document "finished": true when the run completed and writes it whole;
 * for a run that stopped early only a pipe or device still needs its one
 * document (a file keeps the last one written). The writer stays valid until freed. */
int khost__json_end(khost__json_writer *w, int finished, khost__err *err);

/* Releases w (NULL is fine); the file stays as last written. */
void khost__json_free(khost__json_writer *w);

#endif

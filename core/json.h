/* The JSON report, rewritten whole after every row and renamed into place, so a
 * run killed at any moment leaves the last complete, valid document behind. A
 * path that is not a regular file (a pipe, /dev/stdout) gets one document, at the
 * end: renaming over it would replace the device or pipe with a file. */
#ifndef KHOST_JSON_H
#define KHOST_JSON_H

#include "error.h"
#include "report.h"

#define KHOST__JSON_SCHEMA_VERSION 1

/* An open JSON report. Opaque; owned by the caller, released by khost__json_free. */
typedef struct khost__json_writer khost__json_writer;

/* Writes a document with no rows to path, found from the start folder
 * (start_folder.h): path.tmp is used for the atomic replacement, and nothing is
 * written yet to a path that is not a regular file. Returns the writer in *out;
 * info is copied. Messages name path as given. */
int khost__json_open(const char *path, const khost__run_info *info, khost__json_writer **out,
                     khost__err *err);

/* Adds a copy of row and rewrites the document, summary included (a regular file only). */
int khost__json_append(khost__json_writer *w, const khost__row *row, khost__err *err);

/* Replaces the run description (copied), for facts learnt during the run such
 * as the GPU; written with the next append or finish. */
void khost__json_set_info(khost__json_writer *w, const khost__run_info *info);

/* Marks the document "finished": true when the run completed and rewrites it; for
 * a run that stopped early only a pipe or device still needs its one document (a
 * file keeps the last one written). The writer stays valid until freed. */
int khost__json_end(khost__json_writer *w, int finished, khost__err *err);

/* Releases w (NULL is fine); the file stays as last written. */
void khost__json_free(khost__json_writer *w);

#endif

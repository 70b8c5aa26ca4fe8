/* The file a report (JSON or CSV) is written to. A new file is written whole
 * under a unique name in the report's folder (made exclusively, so that no
 * link or file of another run is ever written through) and renamed over the
 * path: a reader never sees it half written. After that it changes in place,
 * a row at a time. A path that exists and is not a regular file (a pipe, a
 * device) is written once, in place. */
#ifndef KHOST_REPORT_FILE_H
#define KHOST_REPORT_FILE_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "error.h"

/* Owned by the caller; khost__report_file_close releases what open took. */
typedef struct khost__report_file {
  const char *label; /* "JSON report", for messages; static */
  char *path;        /* as the user gave it, for messages */
  char *opened;      /* the same from the start folder (start_folder.h): what khost opens */
  mode_t mode;       /* a new file's mode */
  int stream;        /* the path is a pipe or a device */
  int fd;            /* the file now at path, or -1 (nothing written yet, or a stream) */
  size_t size;       /* bytes in that file */
} khost__report_file;

/* Takes path (copied) for a report: a folder, or a pipe or device khost may not
 * write, is KHOST__E_CONFIG; nothing is created yet. mode is a new file's, as
 * the user's umask at khost's start gives it (a plugin may change the umask). */
int khost__report_file_open(khost__report_file *f, const char *label, const char *path, mode_t mode,
                            khost__err *err);

/* Writes the whole report, the parts one after the other: a regular file is
 * replaced by a new one; a stream is written. KHOST__E_IO with the reason, and
 * the file at path stays as it was. */
int khost__report_file_publish(khost__report_file *f, const struct iovec *parts, int nparts, khost__err *err);

/* Writes a whole document to a stream: KHOST__OK, or a status with err set. */
typedef int (*khost__report_writer)(FILE *out, const void *ctx, khost__err *err);

/* The document write(out, ctx) makes, made whole in memory, then published as
 * khost__report_file_publish does: a reader never sees part of it. write's
 * status, KHOST__E_NOMEM, or publish's. The JUnit and HTML reports go out so. */
int khost__report_file_publish_written(khost__report_file *f, khost__report_writer write, const void *ctx,
                                       khost__err *err);

/* Replaces the file's bytes from offset at to its end with data, in one write,
 * padded with spaces where data is shorter: the file never shrinks, so no stale
 * byte is left behind. A regular file that publish wrote only. On failure,
 * KHOST__E_IO with the reason, and the bytes that were there are put back.
 * Also KHOST__E_IO when the file is no longer at path (another program removed
 * or replaced it): its rows would reach nobody. */
int khost__report_file_write_at(khost__report_file *f, size_t at, const char *data, size_t size,
                                khost__err *err);

/* Closes the file; it stays as last written. */
void khost__report_file_close(khost__report_file *f);

#endif

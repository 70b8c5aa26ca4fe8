/* The JUnit XML report, for CI systems: one <testcase> per row. A CI system
 * reads it once the run is over, and a half-written run would show the cases
 * not yet run as neither passed nor failed, so the report is written whole
 * twice: when the run starts, a document whose one test case is an error
 * saying the run has not finished (what a killed run leaves), and when it
 * ends, the rows (with that error again when the run stopped early). A
 * regular file is made as report_file.h says; a path that is not one (a pipe,
 * a device) gets the one document at the end. */
#ifndef KHOST_JUNIT_H
#define KHOST_JUNIT_H

#include <stdio.h>
#include <sys/types.h>

#include "error.h"
#include "report.h"

/* An open JUnit report. Opaque; owned by the caller, released by khost__junit_free. */
typedef struct khost__junit_writer khost__junit_writer;

/* Writes the unfinished document to path (nothing yet to a path that is not a
 * regular file; a folder is KHOST__E_CONFIG) and returns the writer in *out.
 * info (borrowed for the call) gives the suite, host and date; mode is the new
 * file's. */
int khost__junit_open(const char *path, const khost__run_info *info, mode_t mode, khost__junit_writer **out,
                      khost__err *err);

/* Writes the document whole: the nrows rows (borrowed), and the unfinished
 * run's error unless finished. */
int khost__junit_end(khost__junit_writer *w, const khost__run_info *info, const khost__row *rows, int nrows,
                     int finished, khost__err *err);

/* Releases w (NULL is fine); the file stays as last written. */
void khost__junit_free(khost__junit_writer *w);

/* Writes the document to out (borrowed): the rows and, unless finished, the
 * error that says the run did not finish. Texts must be clean (text.h); any
 * character XML 1.0 does not allow becomes '?' all the same. */
int khost__junit_write(FILE *out, const khost__run_info *info, const khost__row *rows, int nrows,
                       int finished, khost__err *err);

#endif

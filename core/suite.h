/* Suites: INI files (read with inih) that name the cases to run, one [case]
 * section each. A suite is checked whole before anything runs; any error refuses
 * the file with "FILE:LINE: reason". docs/SUITES.md describes the format. */
#ifndef KHOST_SUITE_H
#define KHOST_SUITE_H

#include <stddef.h>

#include "catalog.h"
#include "error.h"

/* Longest case name (inih truncates longer section names silently, so khost
 * refuses them instead). */
#define KHOST__CASE_NAME_MAX 48

/* A loaded suite. Owned by the caller; khost__suite_free releases `cases`. */
typedef struct khost__suite {
  char path[4096];
  int ncases;
  khost__case *cases; /* validated, tolerances in force, in file order */
} khost__suite;

/* Reads, checks and validates the suite at path (from the start folder,
 * start_folder.h) into *out (overwritten). On error *out holds no cases and err
 * says "FILE:LINE: reason"; KHOST__E_CONFIG for a bad or unreadable file,
 * KHOST__E_IO for a read failure, KHOST__E_NOMEM. */
int khost__suite_load(const char *path, khost__suite *out, khost__err *err);

/* Releases what khost__suite_load allocated; the suite is left empty. */
void khost__suite_free(khost__suite *s);

/* Resolves a suite argument to a file path written into path_out (n bytes).
 * Anything with a '/' or ending in ".ini" is a path, used as is; a bare NAME is
 * NAME.ini in the source tree's suites/, then the installed suites folder, then
 * each entry of $KHOST_SUITE_PATH (colon-separated). path_out is spelled as the
 * user gave it, relative paths found from the start folder (start_folder.h).
 * When nothing matches, err lists the folders searched and the suite names
 * found there. */
int khost__suite_find(const char *name_or_path, char *path_out, size_t n, khost__err *err);

/* Keeps, in order, the cases whose op is in ops_csv and whose name matches a
 * pattern (fnmatch) in cases_csv; NULL keeps all. Both lists must have passed
 * khost__list_check. Refuses, leaving s unchanged, an unknown op, a pattern
 * that matches no case of the suite, and a filter that keeps nothing. */
int khost__suite_filter(khost__suite *s, const char *ops_csv, const char *cases_csv, khost__err *err);

#endif

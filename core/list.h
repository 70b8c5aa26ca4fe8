/* The comma-separated name lists of the command line (--backends, --op, --case):
 * one reading for all of them, blanks around a name trimmed, empty items skipped. */
#ifndef KHOST_LIST_H
#define KHOST_LIST_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"

/* Longest name or pattern an item may be. Readers hold an item in
 * KHOST__LIST_ITEM_MAX + 1 bytes, so a longer one is refused rather than cut
 * (a cut pattern would match other names than the one given). */
#define KHOST__LIST_ITEM_MAX 255

/* Refuses (KHOST__E_CONFIG, "--FLAG: 'NAME...' is longer than 255 characters")
 * a name of len characters at name, given to --flag, that is longer than
 * KHOST__LIST_ITEM_MAX. */
int khost__list_check_name(const char *flag, const char *name, size_t len, khost__err *err);

/* Every item of the list csv, given to --flag, checked by khost__list_check_name. */
int khost__list_check(const char *flag, const char *csv, khost__err *err);

/* The next name of the list at *csv into item (size n), advancing *csv; false
 * when the list has no more names. The list must have passed khost__list_check
 * and n be at least KHOST__LIST_ITEM_MAX + 1: no item is ever cut. */
bool khost__list_next(const char **csv, char *item, size_t n);

/* Whether name is one of the list's names, exactly. The list must have passed
 * khost__list_check. */
bool khost__list_has(const char *csv, const char *name);

#endif

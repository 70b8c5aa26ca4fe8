/* The comma-separated name lists of the command line (--backends, --op, --case):
 * one reading for all of them, blanks around a name trimmed, empty items skipped. */
#ifndef KHOST_LIST_H
#define KHOST_LIST_H

#include <stdbool.h>
#include <stddef.h>

/* The next name of the list at *csv into item (size n), advancing *csv; false
 * when the list has no more names. */
bool khost__list_next(const char **csv, char *item, size_t n);

/* Whether name is one of the list's names, exactly. */
bool khost__list_has(const char *csv, const char *name);

#endif

/* The comparison of two runs as `khost compare` prints it: a line per compared
 * row, a line per lost row, and a closing count (the text tools/compare.py
 * printed before it moved into khost). */
#ifndef KHOST_COMPARE_TEXT_H
#define KHOST_COMPARE_TEXT_H

#include <stdio.h>

#include "compare.h"

/* Prints c (borrowed), made with tolerance_pct, to out. KHOST__E_IO when out
 * reports a write error. */
int khost__compare_print(FILE *out, const khost__comparison *c, double tolerance_pct, khost__err *err);

#endif

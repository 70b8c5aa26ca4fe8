/* The command line: every flag, its default and its help text in one table. */
#ifndef KHOST_CLI_H
#define KHOST_CLI_H

#include <stdio.h>

#include "error.h"
#include "options.h"

/* Fills o from argv (defaults first). KHOST__E_CONFIG with the reason for an
 * unknown flag, a missing or malformed value. o borrows argv's strings. */
int khost__cli_parse(int argc, char **argv, khost__options *o, khost__err *err);

/* Prints the usage text (every flag) to out. */
void khost__cli_usage(FILE *out);

#endif

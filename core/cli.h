/* The command line: every flag, its default and its help text in one table. */
#ifndef KHOST_CLI_H
#define KHOST_CLI_H

#include <stdio.h>
#include <sys/types.h>

#include "error.h"
#include "options.h"

/* Fills o from argv (defaults first). KHOST__E_CONFIG with the reason for an
 * unknown flag, a missing or malformed value. o borrows argv's strings. */
int khost__cli_parse(int argc, char **argv, khost__options *o, khost__err *err);

/* Prints the usage text (every flag) to out. */
void khost__cli_usage(FILE *out);

/* Reads the value s of --flag_name into *out: a finite number from lo to hi (hi
 * INFINITY where only lo bounds it); else KHOST__E_CONFIG saying what it needs.
 * The subcommands' flags are read with it too. */
int khost__cli_parse_number(const char *flag_name, const char *s, double lo, double hi, double *out,
                            khost__err *err);

/* 0666 less the umask: the mode of a report file created now. Read before any
 * plugin is loaded, whose code may change the umask. */
mode_t khost__cli_report_mode(void);

#endif

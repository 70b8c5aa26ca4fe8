/* khost's subcommands, which read JSON reports and run nothing:
 *   khost compare RUN.json BASE.json [--min-us N] [--tolerance PCT]
 *   khost report RUN.json [BASE.json] -o FILE [--min-us N] [--tolerance PCT]
 * README and docs/REPORTS.md describe both. */
#ifndef KHOST_SUBCOMMAND_H
#define KHOST_SUBCOMMAND_H

/* 1 when argv[1] names a subcommand, which then has run and left its exit
 * status (exit_status.h) in *status; 0 when it names none (a run of khost). */
int khost__subcommand_main(int argc, char **argv, int *status);

#endif

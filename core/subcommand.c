#include "subcommand.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "cli.h"
#include "compare_text.h"
#include "exit_status.h"
#include "file_identity.h"
#include "html_report.h"
#include "merge.h"
#include "report_file.h"

enum { OPT_OUTPUT = 'o', OPT_MIN_US = 256, OPT_TOLERANCE, OPT_HELP, OPT_JSON, OPT_CSV, OPT_JUNIT };

/* What a subcommand's command line asked for. */
typedef struct args {
  const char *name;         /* "compare", "report" or "merge" */
  const char *const *files; /* in argv */
  int nfiles;
  const char *output; /* -o; report only */
  khost__compare_options compare;
  khost__options reports; /* merge: --json, --csv, --junit and the new files' mode */
  int help;
} args;

static const char compare_usage[] =
    "usage: khost compare RUN.json BASE.json [--min-us N] [--tolerance PCT]\n"
    "Compares two JSON reports row by row (case, backend, device): each row timed in both is SAME, FAST or\n"
    "SLOW, and each row that passed in BASE and not in RUN is LOST.\n"
    "  --min-us N         compare only rows whose shorter median is at least N microseconds (0)\n"
    "  --tolerance PCT    a difference beyond PCT percent and beyond the noise is a change (1)\n"
    "Exit status: 0 no row beyond the tolerance and none lost, 1 some, 2 usage error or a report that\n"
    "cannot be read.\n";

static const char report_usage[] =
    "usage: khost report RUN.json [BASE.json] -o FILE [--min-us N] [--tolerance PCT]\n"
    "Writes one self-contained HTML page of a JSON report: the run, a chart and a table per op, a roofline\n"
    "where the run has a compute peak, and with BASE.json the comparison of the two runs.\n"
    "  -o, --output FILE  the page to write\n"
    "  --min-us N, --tolerance PCT   as for khost compare\n"
    "Exit status: 0 written, 1 the page could not be written, 2 usage error or a report that cannot be "
    "read.\n";

static const char merge_usage[] =
    "usage: khost merge SHARD.json ... [--json FILE] [--csv FILE] [--junit FILE]\n"
    "Merges the JSON reports of a run's shards (--shard I/N) into the one table, summary and exit status\n"
    "of the whole run, in suite order. Refuses reports of different khost versions, suites or selections;\n"
    "names each shard missing or unfinished.\n"
    "  --json FILE, --csv FILE, --junit FILE   write the merged reports, as a run writes them\n"
    "Exit status: 0 all passed or skipped, 1 a row failed or a shard is missing or unfinished, 2 usage\n"
    "error or reports that cannot be read or merged.\n";

static int take_flag(args *a, int id, const char *value, khost__err *err)
{
  switch (id) {
  case OPT_OUTPUT: a->output = value; return KHOST__OK;
  case OPT_JSON: a->reports.json = value; return KHOST__OK;
  case OPT_CSV: a->reports.csv = value; return KHOST__OK;
  case OPT_JUNIT: a->reports.junit = value; return KHOST__OK;
  case OPT_MIN_US: return khost__cli_parse_number("min-us", value, 0, INFINITY, &a->compare.min_us, err);
  case OPT_TOLERANCE:
    return khost__cli_parse_number("tolerance", value, 0, INFINITY, &a->compare.tolerance_pct, err);
  default: a->help = 1; return KHOST__OK;
  }
}

/* The files named (getopt_long has moved them past the flags), and whether
 * there are as many as the subcommand takes. */
static int take_files(args *a, int argc, char **argv, khost__err *err)
{
  int is_report = strcmp(a->name, "report") == 0, is_merge = strcmp(a->name, "merge") == 0;
  int min = is_report || is_merge ? 1 : 2, max = is_merge ? argc : 2;
  a->files = (const char *const *)argv + optind;
  a->nfiles = argc - optind;
  if (a->nfiles > max)
    return khost__errorf(err, KHOST__E_CONFIG, "unexpected argument '%s' (see --help)", a->files[max]);
  if (a->nfiles < min)
    return khost__errorf(err, KHOST__E_CONFIG, "needs %s (see --help)",
                         is_merge   ? "SHARD.json"
                         : min == 2 ? "RUN.json and BASE.json"
                                    : "RUN.json");
  if (is_report && !a->output) return khost__errorf(err, KHOST__E_CONFIG, "needs -o FILE (see --help)");
  const khost__output_flag outputs[] = {{"-o", a->output},
                                        {"--json", a->reports.json},
                                        {"--csv", a->reports.csv},
                                        {"--junit", a->reports.junit}};
  /* An output that names a report read, or another output, would replace it. */
  return khost__outputs_distinct(outputs, sizeof outputs / sizeof *outputs, a->files, a->nfiles, err);
}

static int parse(args *a, int argc, char **argv, khost__err *err)
{
  static const struct option report_flags[] = {{"output", 1, 0, OPT_OUTPUT},
                                               {"min-us", 1, 0, OPT_MIN_US},
                                               {"tolerance", 1, 0, OPT_TOLERANCE},
                                               {"help", 0, 0, OPT_HELP},
                                               {0, 0, 0, 0}};
  static const struct option merge_flags[] = {{"json", 1, 0, OPT_JSON},
                                              {"csv", 1, 0, OPT_CSV},
                                              {"junit", 1, 0, OPT_JUNIT},
                                              {"help", 0, 0, OPT_HELP},
                                              {0, 0, 0, 0}};
  int is_report = strcmp(a->name, "report") == 0, id, rc = KHOST__OK;
  /* compare takes no -o: its table of flags starts past it. */
  const struct option *flags = strcmp(a->name, "merge") == 0 ? merge_flags
                               : is_report                   ? report_flags
                                                             : report_flags + 1;
  a->compare = (khost__compare_options){.min_us = 0, .tolerance_pct = 1.0};
  a->reports.report_mode = khost__cli_report_mode();
  opterr = 0;
  optind = 1;
  while (rc == KHOST__OK && (id = getopt_long(argc, argv, is_report ? ":o:" : ":", flags, NULL)) != -1) {
    if (id == ':')
      return khost__errorf(err, KHOST__E_CONFIG, "missing value for '%s' (see --help)", argv[optind - 1]);
    if (id == '?')
      return khost__errorf(err, KHOST__E_CONFIG, "unknown option '%s' (see --help)", argv[optind - 1]);
    rc = take_flag(a, id, optarg, err);
  }
  if (rc != KHOST__OK || a->help) return rc;
  return take_files(a, argc, argv, err);
}

static int compare(const args *a, khost__err *err)
{
  khost__report_doc run = {0}, base = {0};
  khost__comparison c = {0};
  int rc = khost__report_read(a->files[0], &run, err);
  if (rc == KHOST__OK) rc = khost__report_read(a->files[1], &base, err);
  if (rc != KHOST__OK) {
    rc = KHOST__EXIT_USAGE;
    goto out;
  }
  rc = khost__compare(&run, &base, &a->compare, &c, err);
  if (rc == KHOST__OK) rc = khost__compare_print(stdout, &c, a->compare.tolerance_pct, err);
  rc = rc != KHOST__OK ? KHOST__EXIT_FAILED : c.beyond || c.nlost ? KHOST__EXIT_FAILED : KHOST__EXIT_PASS;
out:
  khost__comparison_free(&c);
  khost__report_free(&run);
  khost__report_free(&base);
  return rc;
}

static int write_html(FILE *out, const void *sources, khost__err *err)
{
  return khost__html_report(out, sources, err);
}

/* The page, made whole in memory, then written as the JSON report is: under a
 * unique name in its folder and renamed over FILE, so no reader sees half a page. */
static int write_page(const args *a, const khost__html_sources *s, khost__err *err)
{
  khost__report_file f;
  int rc = khost__report_file_open(&f, "HTML report", a->output, khost__cli_report_mode(), err);
  if (rc != KHOST__OK) return rc;
  rc = khost__report_file_publish_written(&f, write_html, s, err);
  khost__report_file_close(&f);
  return rc;
}

static int report(const args *a, khost__err *err)
{
  khost__report_doc run = {0}, base = {0};
  khost__html_sources s = {a->files[0], a->nfiles > 1 ? a->files[1] : NULL, &run, NULL, a->compare};
  int rc = khost__report_read(a->files[0], &run, err);
  if (rc == KHOST__OK && s.base_path) rc = khost__report_read(s.base_path, &base, err), s.base = &base;
  if (rc != KHOST__OK) {
    rc = KHOST__EXIT_USAGE;
    goto out;
  }
  rc = write_page(a, &s, err);
  /* A folder given for the page is a usage error, as for --json; a file that
   * cannot be made or written is the run's failure. */
  rc = rc == KHOST__OK ? KHOST__EXIT_PASS : rc == KHOST__E_CONFIG ? KHOST__EXIT_USAGE : KHOST__EXIT_FAILED;
out:
  khost__report_free(&run);
  khost__report_free(&base);
  return rc;
}

int khost__subcommand_main(int argc, char **argv, int *status)
{
  khost__err err = {{0}};
  args a = {0};
  if (argc < 2 ||
      (strcmp(argv[1], "compare") != 0 && strcmp(argv[1], "report") != 0 && strcmp(argv[1], "merge") != 0))
    return 0;
  a.name = argv[1];
  const char *usage = a.name[0] == 'r' ? report_usage : a.name[0] == 'm' ? merge_usage : compare_usage;
  if (parse(&a, argc - 1, argv + 1, &err) != KHOST__OK) {
    *status = KHOST__EXIT_USAGE;
  } else if (a.help) {
    fputs(usage, stdout);
    *status = KHOST__EXIT_PASS;
    return 1;
  } else {
    *status = a.name[0] == 'c'   ? compare(&a, &err)
              : a.name[0] == 'r' ? report(&a, &err)
                                 : khost__merge(a.files, a.nfiles, &a.reports, &err);
  }
  if (err.msg[0]) fprintf(stderr, "khost %s: %s\n", a.name, err.msg);
  return 1;
}

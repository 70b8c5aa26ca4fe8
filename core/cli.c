#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file_identity.h"
#include "list.h"
#include "whole_number.h"

enum {
  OPT_SUITE = 256,
  OPT_OP,
  OPT_CASE,
  OPT_BACKENDS,
  OPT_BASELINE,
  OPT_REFERENCE,
  OPT_PLUGIN_DIR,
  OPT_PLUGIN,
  OPT_LIST,
  OPT_STRICT,
  OPT_JSON,
  OPT_CSV,
  OPT_JUNIT,
  OPT_DUMP,
  OPT_HOT,
  OPT_GRAPH,
  OPT_NO_ISOLATE,
  OPT_DEVICE,
  OPT_DEVICES,
  OPT_SHARD,
  OPT_THREADS,
  OPT_WARMUP,
  OPT_NO_BLOCKING,
  OPT_TIMER,
  OPT_MIN_TIME,
  OPT_MIN_SAMPLES,
  OPT_MAX_NOISE,
  OPT_MAX_TIME,
  OPT_THROTTLE,
  OPT_TIMEOUT,
  OPT_TRIALS,
  OPT_QUIET,
  OPT_HELP,
  OPT_VERSION
};

typedef struct flag {
  struct option opt;
  const char *arg, *help;
} flag;

static const flag flags[] = {
    {{"suite", 1, 0, OPT_SUITE},
     "NAME|FILE",
     "suite to run: NAME.ini from the suite folders, or a path (smoke)"},
    {{"op", 1, 0, OPT_OP}, "LIST", "only cases of these ops (comma-separated)"},
    {{"case", 1, 0, OPT_CASE}, "LIST", "only these cases (comma-separated names or glob patterns)"},
    {{"backends", 1, 0, OPT_BACKENDS},
     "LIST",
     "only these plugins (comma-separated; the reference always runs)"},
    {{"baseline", 1, 0, OPT_BASELINE},
     "NAME[:DEV]",
     "speedups relative to this plugin (reference, on the GPU if any)"},
    {{"reference", 1, 0, OPT_REFERENCE},
     "NAME",
     "the plugin whose CPU kernels are the correctness oracle (reference)"},
    {{"plugin-dir", 1, 0, OPT_PLUGIN_DIR}, "DIR", "also load every *.so in DIR (repeatable)"},
    {{"plugin", 1, 0, OPT_PLUGIN}, "FILE", "also load this plugin file (repeatable)"},
    {{"list", 0, 0, OPT_LIST},
     NULL,
     "list plugins, their ops and devices, and every load failure; run nothing"},
    {{"strict", 0, 0, OPT_STRICT}, NULL, "any plugin load failure is fatal (exit 2)"},
    {{"json", 1, 0, OPT_JSON},
     "FILE",
     "write the results as JSON (valid after every row; a pipe gets it at the end)"},
    {{"csv", 1, 0, OPT_CSV}, "FILE", "write the results as CSV (a row at a time; a pipe gets it at the end)"},
    {{"junit", 1, 0, OPT_JUNIT},
     "FILE",
     "write the results as JUnit XML, a test case per row (for CI; whole at the start and the end)"},
    {{"dump", 1, 0, OPT_DUMP},
     "DIR",
     "write inputs, reference and backend outputs as .npy under DIR/<case>/"},
    {{"hot", 0, 0, OPT_HOT}, NULL, "GPU: time back-to-back calls instead of flushing L2 before each sample"},
    {{"graph", 1, 0, OPT_GRAPH}, "N", "GPU: time N calls captured in one CUDA graph, per call (0: off)"},
    {{"no-isolate", 0, 0, OPT_NO_ISOLATE},
     NULL,
     "run backends in the khost process (debugging; a crash, or a hang past --timeout, ends khost)"},
    {{"no-blocking-kernel", 0, 0, OPT_NO_BLOCKING},
     NULL,
     "GPU: do not hold the stream while queueing timed calls (for ncu; launch gaps are then timed)"},
    {{"timer", 1, 0, OPT_TIMER},
     "NAME",
     "GPU: what times a call: events (CUDA events around it) or cupti (its kernels' span) (events)"},
    {{"device", 1, 0, OPT_DEVICE}, "N", "CUDA device ordinal (0)"},
    {{"devices", 1, 0, OPT_DEVICES}, "LIST|all", "spread the cases over these GPUs at once (0,1,3)"},
    {{"shard", 1, 0, OPT_SHARD},
     "I/N|slurm",
     "run only shard I of N (0 to N-1) of the selected cases, or the Slurm array task's"},
    {{"threads", 1, 0, OPT_THREADS}, "N", "threads CPU kernels may use (all cores)"},
    {{"warmup", 1, 0, OPT_WARMUP}, "SECONDS", "warm-up time per backend and case (0.025)"},
    {{"min-samples", 1, 0, OPT_MIN_SAMPLES}, "N", "samples before the noise rule may stop timing (10)"},
    {{"min-time", 1, 0, OPT_MIN_TIME},
     "SECONDS",
     "time per backend and case before the noise rule may stop (0.2)"},
    {{"max-noise", 1, 0, OPT_MAX_NOISE},
     "PCT",
     "stop when the relative standard error is at most PCT % (0.5)"},
    {{"max-time", 1, 0, OPT_MAX_TIME}, "SECONDS", "time budget per backend and case (1.0)"},
    {{"throttle", 1, 0, OPT_THROTTLE},
     "PCT",
     "GPU: discard a sample whose SM clock ran under PCT % of the rated clock (75; 0: keep all)"},
    {{"trials", 1, 0, OPT_TRIALS},
     "N",
     "after timing, check every backend on N fresh input sets, each from its own seed (1)"},
    {{"timeout", 1, 0, OPT_TIMEOUT},
     "SECONDS",
     "a worker silent this long (a hung call) is killed: TIMEOUT (60)"},
    {{"quiet", 0, 0, OPT_QUIET},
     NULL,
     "no progress line and no line per finished case on stderr (warnings and errors stay)"},
    {{"help", 0, 0, OPT_HELP}, NULL, "show this help"},
    {{"version", 0, 0, OPT_VERSION}, NULL, "show khost's version and plugin ABI version"},
};
#define NFLAGS (int)(sizeof flags / sizeof flags[0])

void khost__cli_usage(FILE *out)
{
  fprintf(out,
          "usage: khost [options]\n"
          "Checks every backend plugin against the reference on the same inputs, times it, and prints\n"
          "one comparison table. With no options: the smoke suite on every plugin that can run here.\n\n");
  for (int i = 0; i < NFLAGS; i++) {
    char left[64];
    snprintf(left, sizeof left, "--%s%s%s", flags[i].opt.name, flags[i].arg ? " " : "",
             flags[i].arg ? flags[i].arg : "");
    fprintf(out, "  %-26s %s\n", left, flags[i].help);
  }
  fprintf(out, "\nExit status: 0 all passed or skipped with a reason, 1 a result failed or errored,\n"
               "2 usage or configuration error. Environment: KHOST_PLUGIN_PATH, KHOST_SUITE_PATH,\n"
               "KHOST_CUPTI_LIBRARY.\n"
               "\nReports read back (each with --help): khost report RUN.json [BASE.json] -o FILE,\n"
               "khost compare RUN.json BASE.json, khost merge SHARD.json ... [--json FILE] [--csv FILE].\n");
}

/* 0666 less the umask: what a file created now gets. Read before any plugin is
 * loaded, whose code may change the umask. */
mode_t khost__cli_report_mode(void)
{
  mode_t mask = umask(0);
  umask(mask);
  return 0666 & ~mask;
}

static void defaults(khost__options *o)
{
  memset(o, 0, sizeof *o);
  o->suite = "smoke";
  o->reference = "reference";
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  o->threads = cores > 0 ? (int)cores : 1;
  o->warmup_s = 0.025;
  o->min_samples = 10;
  o->min_time_s = 0.2;
  o->max_noise_pct = 0.5;
  o->max_time_s = 1.0;
  o->throttle_pct = 75;
  o->timeout_s = 60.0;
  o->trials = 1;
  o->report_mode = khost__cli_report_mode();
}

static int parse_int(const char *flag_name, const char *s, int lo, int hi, int *out, khost__err *err)
{
  long v;
  if (!khost__whole_number(s, lo, hi, &v))
    return khost__errorf(err, KHOST__E_CONFIG, "--%s needs a whole number from %d to %d, got '%s'", flag_name,
                         lo, hi, s);
  *out = (int)v;
  return KHOST__OK;
}

int khost__cli_parse_number(const char *flag_name, const char *s, double lo, double hi, double *out,
                            khost__err *err)
{
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (!errno && end != s && !*end && isfinite(v) && v >= lo && v <= hi) {
    *out = v;
    return KHOST__OK;
  }
  if (isinf(hi))
    return khost__errorf(err, KHOST__E_CONFIG, "--%s needs a number of at least %g, got '%s'", flag_name, lo,
                         s);
  return khost__errorf(err, KHOST__E_CONFIG, "--%s needs a number from %g to %g, got '%s'", flag_name, lo, hi,
                       s);
}

static int add_path(const char **list, int *n, const char *flag_name, const char *value, khost__err *err)
{
  if (*n >= KHOST__MAX_PATHS)
    return khost__errorf(err, KHOST__E_CONFIG, "--%s given more than %d times", flag_name, KHOST__MAX_PATHS);
  list[(*n)++] = value;
  return KHOST__OK;
}

/* A name list is read item by item into fixed buffers: an item too long for
 * them is refused here, before anything is loaded. */
static int take_list(const char *flag_name, const char *value, const char **field, khost__err *err)
{
  *field = value;
  return khost__list_check(flag_name, value, err);
}

static int parse_timer(const char *v, khost__options *o, khost__err *err)
{
  const khost__timer_kind kinds[] = {KHOST__TIMER_EVENTS, KHOST__TIMER_CUPTI};
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
    if (strcmp(v, khost__timer_name(kinds[i])) == 0) return o->timer = kinds[i], KHOST__OK;
  return khost__errorf(err, KHOST__E_CONFIG, "--timer takes events or cupti, got '%s'", v);
}

/* NAME[:DEV]: NAME is held as a list item is. */
static int take_baseline(const char *value, khost__options *o, khost__err *err)
{
  o->baseline = value;
  return khost__list_check_name("baseline", value, strcspn(value, ":"), err);
}

static int apply(int id, const char *v, khost__options *o, khost__err *err)
{
  switch (id) {
  case OPT_SUITE: o->suite = v; break;
  case OPT_OP: return take_list("op", v, &o->ops, err);
  case OPT_CASE: return take_list("case", v, &o->cases, err);
  case OPT_BACKENDS: return take_list("backends", v, &o->backends, err);
  case OPT_BASELINE: return take_baseline(v, o, err);
  case OPT_REFERENCE: o->reference = v; break;
  case OPT_PLUGIN_DIR: return add_path(o->plugin_dirs, &o->nplugin_dirs, "plugin-dir", v, err);
  case OPT_PLUGIN: return add_path(o->plugin_files, &o->nplugin_files, "plugin", v, err);
  case OPT_LIST: o->list = 1; break;
  case OPT_STRICT: o->strict = 1; break;
  case OPT_JSON: o->json = v; break;
  case OPT_CSV: o->csv = v; break;
  case OPT_JUNIT: o->junit = v; break;
  case OPT_DUMP: o->dump = v; break;
  case OPT_HOT: o->hot = 1; break;
  case OPT_GRAPH: return parse_int("graph", v, 0, 100000, &o->graph_calls, err);
  case OPT_NO_ISOLATE: o->no_isolate = 1; break;
  case OPT_NO_BLOCKING: o->no_blocking_kernel = 1; break;
  case OPT_TIMER: return parse_timer(v, o, err);
  case OPT_DEVICE:
    o->device_given = 1;
    return parse_int("device", v, 0, KHOST__DEVICE_ORDINAL_MAX, &o->device, err);
  case OPT_DEVICES: o->spread = 1; return khost__devices_parse(v, &o->devices, err);
  case OPT_SHARD: return khost__shard_parse(v, &o->shard, err);
  case OPT_THREADS: return parse_int("threads", v, 1, 4096, &o->threads, err);
  case OPT_WARMUP: return khost__cli_parse_number("warmup", v, 0, INFINITY, &o->warmup_s, err);
  case OPT_MIN_SAMPLES: return parse_int("min-samples", v, 1, 1000000, &o->min_samples, err);
  case OPT_MIN_TIME: return khost__cli_parse_number("min-time", v, 0, INFINITY, &o->min_time_s, err);
  case OPT_MAX_NOISE: return khost__cli_parse_number("max-noise", v, 0, INFINITY, &o->max_noise_pct, err);
  case OPT_MAX_TIME: return khost__cli_parse_number("max-time", v, 0, INFINITY, &o->max_time_s, err);
  case OPT_THROTTLE: return khost__cli_parse_number("throttle", v, 0, 100, &o->throttle_pct, err);
  case OPT_TRIALS: return parse_int("trials", v, 1, 1000, &o->trials, err);
  /* A day at most: the worker's poll takes the time left in int milliseconds. */
  case OPT_TIMEOUT: return khost__cli_parse_number("timeout", v, 0.001, 86400, &o->timeout_s, err);
  case OPT_QUIET: o->quiet = 1; break;
  case OPT_HELP: o->help = 1; break;
  case OPT_VERSION: o->version = 1; break;
  }
  return KHOST__OK;
}

/* Flags that are fine alone but not together. */
static int check_together(const khost__options *o, khost__err *err)
{
  /* A warm-up sends no sign of life until it ends: the worker would be killed as hung. */
  if (o->warmup_s >= o->timeout_s)
    return khost__errorf(err, KHOST__E_CONFIG, "--warmup %g s must be shorter than --timeout %g s",
                         o->warmup_s, o->timeout_s);
  if (o->device_given && o->spread)
    return khost__errorf(err, KHOST__E_CONFIG,
                         "--device and --devices together: give one (--devices N runs on device N alone)");
  /* A lane is a process of khost's own: a crash in it would take its share of the run down unreported. */
  if (o->no_isolate && o->spread)
    return khost__errorf(err, KHOST__E_CONFIG, "--devices needs isolated workers: leave out --no-isolate");
  const khost__output_flag outputs[] = {
      {"--json", o->json}, {"--csv", o->csv}, {"--junit", o->junit}, {"--dump", o->dump}};
  const int n = sizeof outputs / sizeof outputs[0];
  for (int i = 0; i < n; i++)
    if (o->list && outputs[i].path)
      return khost__errorf(err, KHOST__E_CONFIG, "--list runs no case: %s has nothing to write",
                           outputs[i].flag);
  /* As files, not strings: "r.json" and "./r.json" are one file, and one output would replace the other. */
  return khost__outputs_distinct(outputs, n, NULL, 0, err);
}

static char command_line[1024];

static void remember_command(int argc, char **argv)
{
  size_t used = 0;
  command_line[0] = '\0';
  for (int i = 0; i < argc && used < sizeof command_line; i++)
    used += (size_t)snprintf(command_line + used, sizeof command_line - used, "%s%s", i ? " " : "", argv[i]);
}

int khost__cli_parse(int argc, char **argv, khost__options *o, khost__err *err)
{
  struct option longopts[NFLAGS + 1];
  for (int i = 0; i < NFLAGS; i++) longopts[i] = flags[i].opt;
  memset(&longopts[NFLAGS], 0, sizeof longopts[NFLAGS]);
  defaults(o);
  remember_command(argc, argv);
  o->command_line = command_line;
  opterr = 0;
  optind = 1;
  int id, rc = KHOST__OK;
  /* The leading ':' makes a missing value ':', so that '?' is an unknown option or a
   * value given to a flag that takes none. */
  while (rc == KHOST__OK && (id = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
    if (id != '?' && id != ':') {
      rc = apply(id, optarg, o, err);
      continue;
    }
    const char *arg = argv[optind - 1], *eq = strchr(arg, '=');
    if (id == ':') return khost__errorf(err, KHOST__E_CONFIG, "missing value for '%s' (see --help)", arg);
    if (optopt >= OPT_SUITE && eq)
      return khost__errorf(err, KHOST__E_CONFIG, "'%.*s' takes no value, got '%s' (see --help)",
                           (int)(eq - arg), arg, arg);
    return khost__errorf(err, KHOST__E_CONFIG, "unknown option '%s' (see --help)", arg);
  }
  if (rc == KHOST__OK && optind < argc)
    rc = khost__errorf(err, KHOST__E_CONFIG, "unexpected argument '%s' (see --help)", argv[optind]);
  if (rc == KHOST__OK) rc = check_together(o, err);
  return rc;
}

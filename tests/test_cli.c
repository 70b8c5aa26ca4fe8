/* Command-line parsing: defaults, every flag, and every kind of bad value. */
#include <criterion/criterion.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "list.h"

static int parse(khost__options *o, khost__err *err, int argc, const char **argv)
{
  return khost__cli_parse(argc, (char **)argv, o, err);
}

/* The timer is named as the reports write it; events unless asked. */
Test(cli, timer_is_events_unless_cupti_is_asked)
{
  khost__options o;
  khost__err err;
  const char *plain[] = {"khost"};
  cr_assert_eq(parse(&o, &err, 1, plain), KHOST__OK, "%s", err.msg);
  cr_expect_eq(o.timer, KHOST__TIMER_EVENTS);
  cr_expect_str_eq(khost__timer_name(o.timer), "events");
  const char *cupti[] = {"khost", "--timer", "cupti"};
  cr_assert_eq(parse(&o, &err, 3, cupti), KHOST__OK, "%s", err.msg);
  cr_expect_eq(o.timer, KHOST__TIMER_CUPTI);
  cr_expect_str_eq(khost__timer_name(o.timer), "cupti");
  const char *events[] = {"khost", "--timer=cupti", "--timer", "events"};
  cr_assert_eq(parse(&o, &err, 4, events), KHOST__OK, "%s", err.msg);
  cr_expect_eq(o.timer, KHOST__TIMER_EVENTS, "the last one given wins");
}

Test(cli, defaults)
{
  khost__options o;
  khost__err err;
  const char *argv[] = {"khost"};
  cr_assert_eq(parse(&o, &err, 1, argv), KHOST__OK);
  cr_expect_str_eq(o.suite, "smoke");
  cr_expect_str_eq(o.reference, "reference");
  cr_expect_null(o.backends);
  cr_expect_geq(o.threads, 1);
  cr_expect_float_eq(o.warmup_s, 0.025, 1e-12);
  cr_expect_eq(o.min_samples, 10);
  cr_expect_float_eq(o.min_time_s, 0.2, 1e-12);
  cr_expect_float_eq(o.max_noise_pct, 0.5, 1e-12);
  cr_expect_float_eq(o.max_time_s, 1.0, 1e-12);
  cr_expect_float_eq(o.timeout_s, 60.0, 1e-12);
  cr_expect_float_eq(o.throttle_pct, 75.0, 1e-12);
  cr_expect_eq(o.trials, 1);
  cr_expect_eq(o.hot + o.graph_calls + o.no_isolate + o.strict + o.list, 0);
}

Test(cli, every_flag_is_applied)
{
  khost__options o;
  khost__err err;
  const char *argv[] = {"khost",
                        "--suite",
                        "performance",
                        "--op",
                        "reduce_sum",
                        "--case",
                        "a,b*",
                        "--backends",
                        "cute,triton_aot",
                        "--baseline",
                        "cute:cuda",
                        "--reference",
                        "ref2",
                        "--plugin-dir",
                        "/d1",
                        "--plugin-dir",
                        "/d2",
                        "--plugin",
                        "/p.so",
                        "--strict",
                        "--json",
                        "r.json",
                        "--csv",
                        "r.csv",
                        "--junit",
                        "r.xml",
                        "--quiet",
                        "--dump",
                        "dumps",
                        "--hot",
                        "--graph",
                        "20",
                        "--no-isolate",
                        "--device",
                        "1",
                        "--threads",
                        "3",
                        "--warmup",
                        "0.5",
                        "--min-samples",
                        "7",
                        "--max-noise",
                        "2",
                        "--max-time",
                        "4",
                        "--timeout",
                        "9",
                        "--help",
                        "--version",
                        "--no-blocking-kernel",
                        "--min-time",
                        "0.3",
                        "--throttle",
                        "0",
                        "--trials",
                        "5"};
  int argc = (int)(sizeof argv / sizeof argv[0]);
  cr_assert_eq(parse(&o, &err, argc, argv), KHOST__OK, "%s", err.msg);
  cr_expect_str_eq(o.suite, "performance");
  cr_expect_str_eq(o.ops, "reduce_sum");
  cr_expect_str_eq(o.cases, "a,b*");
  cr_expect_str_eq(o.backends, "cute,triton_aot");
  cr_expect_str_eq(o.baseline, "cute:cuda");
  cr_expect_str_eq(o.reference, "ref2");
  cr_expect_eq(o.nplugin_dirs, 2);
  cr_expect_str_eq(o.plugin_dirs[1], "/d2");
  cr_expect_eq(o.nplugin_files, 1);
  cr_expect_str_eq(o.plugin_files[0], "/p.so");
  cr_expect(o.strict && o.hot && o.no_isolate && o.help && o.version && o.no_blocking_kernel);
  cr_expect_str_eq(o.json, "r.json");
  cr_expect_str_eq(o.csv, "r.csv");
  cr_expect_str_eq(o.junit, "r.xml");
  cr_expect(o.quiet);
  cr_expect_str_eq(o.dump, "dumps");
  cr_expect_eq(o.graph_calls, 20);
  cr_expect_eq(o.device, 1);
  cr_expect_eq(o.threads, 3);
  cr_expect_float_eq(o.warmup_s, 0.5, 1e-12);
  cr_expect_eq(o.min_samples, 7);
  cr_expect_float_eq(o.min_time_s, 0.3, 1e-12);
  cr_expect_float_eq(o.max_noise_pct, 2, 1e-12);
  cr_expect_float_eq(o.max_time_s, 4, 1e-12);
  cr_expect_float_eq(o.timeout_s, 9, 1e-12);
  cr_expect_float_eq(o.throttle_pct, 0, 1e-12);
  cr_expect_eq(o.trials, 5);
  cr_expect(strstr(o.command_line, "--graph 20"));
  /* Apart: --list runs nothing, so it takes no report or dump (flags_that_cannot_work_together...). */
  const char *list[] = {"khost", "--list"};
  cr_assert_eq(parse(&o, &err, 2, list), KHOST__OK, "%s", err.msg);
  cr_expect(o.list);
}

/* A new report's mode comes from the umask khost starts with: a plugin loaded
 * later may change the umask. */
Test(cli, a_report_gets_the_mode_of_the_umask_at_the_start)
{
  khost__options o;
  khost__err err;
  const char *argv[] = {"khost"};
  mode_t before = umask(027);
  cr_assert_eq(parse(&o, &err, 1, argv), KHOST__OK, "%s", err.msg);
  umask(0777);
  cr_expect_eq(o.report_mode, 0640, "mode %o", (unsigned)o.report_mode);
  cr_expect_eq(umask(before), 0777, "the umask is left as it was");
}

typedef struct bad_case {
  const char *flag, *value, *message;
} bad_case;

Test(cli, bad_values_are_refused_with_the_rule)
{
  static const bad_case cases[] = {
      {"--threads", "0", "--threads needs a whole number from 1 to 4096, got '0'"},
      {"--threads", "2x", "--threads needs a whole number"},
      {"--graph", "-1", "--graph needs a whole number from 0"},
      /* One rule for every whole number (whole_number.h): digits only, in range. */
      {"--device", "", "--device needs a whole number"},
      {"--device", "+1", "--device needs a whole number from 0 to 1023, got '+1'"},
      {"--device", "-1", "--device needs a whole number from 0 to 1023, got '-1'"},
      {"--device", " 1", "--device needs a whole number"},
      {"--device", "1024", "--device needs a whole number from 0 to 1023, got '1024'"},
      {"--device", "99999999999999999999", "--device needs a whole number"},
      {"--threads", "+2", "--threads needs a whole number from 1 to 4096, got '+2'"},
      {"--max-time", "abc", "--max-time needs a number of at least 0, got 'abc'"},
      {"--max-noise", "-1", "--max-noise needs a number of at least 0"},
      {"--timeout", "0", "--timeout needs a number from 0.001 to 86400, got '0'"},
      {"--timeout", "1e7", "--timeout needs a number from 0.001 to 86400, got '1e7'"},
      {"--warmup", "inf", "--warmup needs a number"},
      {"--min-samples", "0", "--min-samples needs a whole number from 1"},
      {"--throttle", "101", "--throttle needs a number from 0 to 100, got '101'"},
      {"--throttle", "-5", "--throttle needs a number from 0 to 100"},
      {"--throttle", "75%", "--throttle needs a number from 0 to 100, got '75%'"},
      {"--timer", "ncu", "--timer takes events or cupti, got 'ncu'"},
      {"--timer", "CUPTI", "--timer takes events or cupti, got 'CUPTI'"},
      {"--timer", "", "--timer takes events or cupti, got ''"},
      /* The first fresh trial is a guard against cached results: it cannot be turned off. */
      {"--trials", "0", "--trials needs a whole number from 1 to 1000, got '0'"},
      {"--trials", "1001", "--trials needs a whole number from 1 to 1000"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    khost__options o;
    khost__err err;
    const char *argv[] = {"khost", cases[i].flag, cases[i].value};
    cr_expect_eq(parse(&o, &err, 3, argv), KHOST__E_CONFIG, "%s %s", cases[i].flag, cases[i].value);
    cr_expect(strstr(err.msg, cases[i].message), "'%s' lacks '%s'", err.msg, cases[i].message);
  }
}

/* A name list is read item by item into buffers of KHOST__LIST_ITEM_MAX + 1
 * bytes: a longer item (or --baseline NAME) is refused, never cut to fit, where
 * a cut pattern would have matched other names than the one given. */
Test(cli, names_too_long_to_hold_are_refused)
{
  char longest[KHOST__LIST_ITEM_MAX + 1], too_long[KHOST__LIST_ITEM_MAX + 2], list[600], spec[600];
  memset(longest, '*', sizeof longest - 1), longest[sizeof longest - 1] = '\0';
  memset(too_long, '*', sizeof too_long - 1), too_long[sizeof too_long - 1] = '\0';
  static const char *const flags[] = {"--op", "--case", "--backends", "--baseline"};
  for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
    int is_baseline = !strcmp(flags[i], "--baseline");
    khost__options o;
    khost__err err = {{0}};
    /* Blanks around an item and a baseline's device are no part of the name. */
    snprintf(list, sizeof list, is_baseline ? "%s:cuda" : "a, \t%s\t ,b", longest);
    const char *fits[] = {"khost", flags[i], list};
    cr_expect_eq(parse(&o, &err, 3, fits), KHOST__OK, "%s of %d characters: %s", flags[i],
                 KHOST__LIST_ITEM_MAX, err.msg);
    snprintf(list, sizeof list, is_baseline ? "%s:cuda" : "a,%s", too_long);
    const char *refused[] = {"khost", flags[i], list};
    cr_expect_eq(parse(&o, &err, 3, refused), KHOST__E_CONFIG, "%s of %d characters", flags[i],
                 KHOST__LIST_ITEM_MAX + 1);
    snprintf(spec, sizeof spec, "%s: '%.40s...' is longer than 255 characters", flags[i], too_long);
    cr_expect_str_eq(err.msg, spec);
  }
}

/* Each value alone is fine; together they cannot work. */
Test(cli, flags_that_cannot_work_together_are_refused)
{
  static struct {
    const char *argv[5], *message;
  } cases[] = {
      /* The warm-up sends no sign of life, so the worker would be killed as hung. */
      {{"khost", "--warmup", "60"}, "--warmup 60 s must be shorter than --timeout 60 s"},
      {{"khost", "--warmup", "2", "--timeout", "1.5"}, "--warmup 2 s must be shorter than --timeout 1.5 s"},
      /* One report would replace the other: as files, whatever the spelling. */
      {{"khost", "--json", "out", "--csv", "out"}, "--json and --csv name the same file 'out'"},
      {{"khost", "--json", "out", "--csv", "./out"}, "--json and --csv name the same file 'out'"},
      {{"khost", "--dump", "./out", "--json", "out"}, "--json and --dump name the same file 'out'"},
      {{"khost", "--csv", "out", "--dump", "out/"}, "--csv and --dump name the same file 'out'"},
      {{"khost", "--junit", "./out", "--json", "out"}, "--json and --junit name the same file 'out'"},
      {{"khost", "--csv", "out", "--junit", "out"}, "--csv and --junit name the same file 'out'"},
      {{"khost", "--junit", "out", "--dump", "out"}, "--junit and --dump name the same file 'out'"},
      /* --list runs nothing: there would be nothing to write. */
      {{"khost", "--list", "--json", "out"}, "--list runs no case: --json has nothing to write"},
      {{"khost", "--csv", "out", "--list"}, "--list runs no case: --csv has nothing to write"},
      {{"khost", "--list", "--dump", "out"}, "--list runs no case: --dump has nothing to write"},
      {{"khost", "--list", "--junit", "out"}, "--list runs no case: --junit has nothing to write"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    khost__options o;
    khost__err err;
    int argc = 0;
    while (argc < 5 && cases[i].argv[argc]) argc++;
    cr_expect_eq(parse(&o, &err, argc, cases[i].argv), KHOST__E_CONFIG, "%s", cases[i].message);
    cr_expect(strstr(err.msg, cases[i].message), "'%s' lacks '%s'", err.msg, cases[i].message);
  }
  khost__options o;
  khost__err err;
  const char *fine[] = {"khost", "--warmup", "59.9", "--json", "out.json", "--csv", "out.csv"};
  cr_expect_eq(parse(&o, &err, 7, fine), KHOST__OK, "%s", err.msg);
}

Test(cli, unknown_flags_missing_values_and_stray_arguments)
{
  static const struct {
    const char *arg, *message;
  } cases[] = {
      {"--frobnicate", "unknown option '--frobnicate'"},
      {"--suite", "missing value for '--suite'"},
      {"--hot=1", "'--hot' takes no value, got '--hot=1'"},
      {"-x", "unknown option '-x'"},
      {"smoke", "unexpected argument 'smoke'"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    khost__options o;
    khost__err err;
    const char *argv[] = {"khost", cases[i].arg};
    cr_expect_eq(parse(&o, &err, 2, argv), KHOST__E_CONFIG, "%s", cases[i].arg);
    cr_expect(strstr(err.msg, cases[i].message), "'%s' lacks '%s'", err.msg, cases[i].message);
  }
}

Test(cli, too_many_plugin_dirs)
{
  const char *argv[2 * KHOST__MAX_PATHS + 3] = {"khost"};
  int argc = 1;
  for (int i = 0; i <= KHOST__MAX_PATHS; i++) argv[argc++] = "--plugin-dir", argv[argc++] = "/d";
  khost__options o;
  khost__err err;
  cr_expect_eq(parse(&o, &err, argc, argv), KHOST__E_CONFIG);
  cr_expect(strstr(err.msg, "more than 32 times"), "%s", err.msg);
}

Test(cli, usage_names_every_flag)
{
  char *text = NULL;
  size_t size = 0;
  FILE *out = open_memstream(&text, &size);
  khost__cli_usage(out);
  fclose(out);
  static const char *const names[] = {"--suite",      "--op",
                                      "--case",       "--backends",
                                      "--baseline",   "--reference",
                                      "--plugin-dir", "--plugin",
                                      "--list",       "--strict",
                                      "--json",       "--csv",
                                      "--dump",       "--hot",
                                      "--graph",      "--no-isolate",
                                      "--device",     "--threads",
                                      "--warmup",     "--min-samples",
                                      "--max-noise",  "--max-time",
                                      "--timeout",    "--help",
                                      "--version",    "--no-blocking-kernel",
                                      "--min-time",   "--throttle",
                                      "--trials",     "--junit",
                                      "--quiet"};
  cr_expect(strstr(text, "Exit status"));
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    char needle[48];
    /* Followed by a blank: "--plugin" must not be found inside "--plugin-dir". */
    snprintf(needle, sizeof needle, "  %s ", names[i]);
    cr_expect(strstr(text, needle), "usage does not list %s", names[i]);
  }
  free(text);
}

/* A leading zero is decimal, as in --devices and --shard: 08 is device 8. */
Test(cli, device_08_is_device_8)
{
  khost__options o;
  khost__err err;
  const char *argv[] = {"khost", "--device", "08"};
  cr_assert_eq(parse(&o, &err, 3, argv), KHOST__OK, "%s", err.msg);
  cr_expect_eq(o.device, 8);
}

Test(cli, shard_is_read_or_refused)
{
  khost__options o;
  khost__err err;
  const char *good[] = {"khost", "--shard", "1/3"};
  cr_assert_eq(parse(&o, &err, 3, good), KHOST__OK, "%s", err.msg);
  cr_expect(o.shard.index == 1 && o.shard.count == 3);
  const char *none[] = {"khost"};
  cr_assert_eq(parse(&o, &err, 1, none), KHOST__OK);
  cr_expect_eq(o.shard.count, 0, "no --shard: the whole selection");
  const char *bad[] = {"khost", "--shard", "3/3"};
  cr_expect_eq(parse(&o, &err, 3, bad), KHOST__E_CONFIG);
  cr_expect(strstr(err.msg, "--shard needs I/N"), "%s", err.msg);
}

/* End to end, what khost shows on a terminal: the progress line on a stderr
 * that is a terminal (a pseudo-terminal here), erased before every message and
 * at the end; nothing of it on a pipe or a file, with --quiet, or where TERM
 * cannot erase a line. */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TestSuite(terminal, .init = make_scratch, .fini = remove_scratch, .timeout = 120);

#define ERASE       "\r\033[K"
#define COPY_CASES  "copy_transpose_*" /* the smoke suite's three copy_transpose cases */
#define NCOPY_CASES 3
#define WIDE        200
/* Each case timed long enough for the line to be drawn again (at most every 0.1 s) as a backend runs. */
#define SLOW_ENOUGH "--min-time", "0.25", "--max-time", "0.25", "--warmup", "0"

static const launch on_a_terminal = {.terminal_columns = WIDE};
static const char *const xterm[] = {"TERM=xterm", NULL};

/* Every "khost: " message starts a line: right after an erase, or after a line end. */
static void expect_messages_on_lines_of_their_own(const char *err)
{
  for (const char *p = strstr(err, "khost: "); p; p = strstr(p + 1, "khost: ")) {
    size_t at = (size_t)(p - err);
    int after_erase = at >= strlen(ERASE) && strncmp(p - strlen(ERASE), ERASE, strlen(ERASE)) == 0;
    cr_expect(at == 0 || after_erase || p[-1] == '\n', "a message inside the progress line at byte %zu:\n%s",
              at, err);
  }
}

/* The text drawn after the last erase: what stays on the terminal's last line. */
static const char *last_drawn(const char *err)
{
  const char *last = err;
  for (const char *p = strstr(err, ERASE); p; p = strstr(p + 1, ERASE)) last = p + strlen(ERASE);
  return last;
}

Test(terminal, a_terminal_shows_the_progress_line_and_every_message_on_a_line_of_its_own)
{
  outcome o;
  KHOST_AS(&o, &on_a_terminal, xterm, SLOW_ENOUGH, "--case", COPY_CASES);
  cr_assert_eq(o.status, 0, "exit %d; stderr:\n%s", o.status, o.err);
  for (int done = 0; done < NCOPY_CASES; done++) {
    char want[64];
    snprintf(want, sizeof want, ERASE "%d/%d cases done, ", done, NCOPY_CASES);
    cr_expect_not_null(strstr(o.err, want), "no '%s' drawn:\n%s", want + strlen(ERASE), o.err);
  }
  cr_expect_not_null(strstr(o.err, "? left | copy_transpose_fp16_64x100"), "stderr:\n%s", o.err);
  cr_expect_not_null(strstr(o.err, "left | copy_transpose_fp32_128x333: reference (cpu) "), "stderr:\n%s",
                     o.err);
  cr_expect_not_null(strstr(o.err, ERASE "khost: copy_transpose_fp32_128x333 done"), "stderr:\n%s", o.err);
  expect_messages_on_lines_of_their_own(o.err);
  /* Erased at the end: the last line drawn is a message's, never the progress. */
  cr_expect_null(strstr(last_drawn(o.err), "cases done"), "the progress line was left:\n%s", o.err);
  cr_expect_null(strstr(o.out, "\033"), "the table (stdout, a file) has no terminal control:\n%s", o.out);
  cr_expect_eq(count_cases(o.out), NCOPY_CASES, "stdout:\n%s", o.out);
  free_outcome(&o);
}

/* A message in the middle of a case (a report another program removed, said as
 * the case ends) and a plugin's load failure (said before the run) each get a
 * line of their own. */
Test(terminal, messages_during_a_run_erase_the_line_first)
{
  char *entry = NULL;
  cr_assert(asprintf(&entry, "KHOST_TEST_REMOVE_PATH=%s", report_path()) >= 0);
  const char *envs[] = {"TERM=xterm", entry, NULL};
  outcome o;
  KHOST_AS(&o, &on_a_terminal, envs, SLOW_ENOUGH, "--case", COPY_CASES, "--plugin",
           "@fault_removes_report.so", "--plugin", "@not_elf.so", "--json", report_path());
  cr_expect_eq(o.status, 1, "exit %d; stderr:\n%s", o.status, o.err);
  cr_expect_not_null(strstr(o.err, "khost: plugin "), "the load failure is said:\n%s", o.err);
  cr_expect_not_null(strstr(o.err, "left | copy_transpose_fp16_64x100: fault_removes_report (cpu) "),
                     "stderr:\n%s", o.err);
  cr_expect_not_null(strstr(o.err, ERASE "khost: JSON report: "), "stderr:\n%s", o.err);
  expect_messages_on_lines_of_their_own(o.err);
  free_outcome(&o);
  free(entry);
}

/* The line is cut to the terminal's width less one column: a full line wraps on some terminals. */
Test(terminal, the_line_fits_a_narrow_terminal)
{
  static const launch narrow = {.terminal_columns = 40};
  outcome o;
  KHOST_AS(&o, &narrow, xterm, FAST, "--case", COPY_CASES);
  cr_assert_eq(o.status, 0, "exit %d; stderr:\n%s", o.status, o.err);
  int drawn = 0;
  for (const char *p = strstr(o.err, ERASE); p; p = strstr(p + 1, ERASE)) {
    const char *text = p + strlen(ERASE);
    size_t n = strcspn(text, "\r\n");
    if (strncmp(text, "khost: ", 7) == 0 || n == 0) continue;
    drawn++;
    cr_expect_leq(n, 39, "a line of %zu characters on a terminal of 40: %.*s", n, (int)n, text);
  }
  cr_expect_geq(drawn, NCOPY_CASES, "stderr:\n%s", o.err);
  free_outcome(&o);
}

static void expect_no_progress(const outcome *o, const char *how)
{
  cr_expect_null(strstr(o->err, "\033"), "%s: terminal control on stderr:\n%s", how, o->err);
  cr_expect_null(strstr(o->err, "cases done"), "%s: a progress line on stderr:\n%s", how, o->err);
}

/* Not a terminal: stderr is as it was, one line per finished case and nothing more. */
Test(terminal, a_file_or_pipe_gets_no_progress_line)
{
  outcome o;
  KHOST_ENV(&o, xterm, FAST, "--case", COPY_CASES);
  cr_assert_eq(o.status, 0, "exit %d; stderr:\n%s", o.status, o.err);
  expect_no_progress(&o, "stderr a file");
  cr_expect_not_null(strstr(o.err, "khost: copy_transpose_bf16_96x256 done\n"), "stderr:\n%s", o.err);
  free_outcome(&o);
}

/* --quiet: no progress line and no line per case, on a terminal too; a warning stays. */
Test(terminal, quiet_silences_progress_and_case_lines_but_not_warnings)
{
  outcome o;
  KHOST_AS(&o, &on_a_terminal, xterm, FAST, "--quiet", "--case", COPY_CASES, "--plugin", "@not_elf.so");
  cr_assert_eq(o.status, 0, "exit %d; stderr:\n%s", o.status, o.err);
  expect_no_progress(&o, "--quiet");
  cr_expect_null(strstr(o.err, " done"), "--quiet prints no line per case:\n%s", o.err);
  cr_expect_not_null(strstr(o.err, "khost: plugin "), "the load failure is still said:\n%s", o.err);
  cr_expect_eq(count_cases(o.out), NCOPY_CASES, "the table is whole:\n%s", o.out);
  free_outcome(&o);
}

/* A terminal whose TERM cannot erase a line (dumb, or none) gets no progress line. */
Test(terminal, a_dumb_terminal_gets_no_progress_line)
{
  static const char *const dumb[] = {"TERM=dumb", NULL};
  outcome o;
  KHOST_AS(&o, &on_a_terminal, dumb, FAST, "--case", COPY_CASES);
  cr_assert_eq(o.status, 0, "exit %d; stderr:\n%s", o.status, o.err);
  expect_no_progress(&o, "TERM=dumb");
  cr_expect_not_null(strstr(o.err, "khost: copy_transpose_bf16_96x256 done"), "stderr:\n%s", o.err);
  free_outcome(&o);
}

/* core/progress.c: the line's text (counts, times, the estimate, the cut to the
 * terminal's width), when it is wanted (a terminal, TERM, --quiet), and what is
 * written where: each drawing erases the line first, a message erases it before
 * it is printed, the end erases it for good, and a line that is off writes nothing. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <pty.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"
#include "support/child_stderr.h"

#define ERASE "\r\033[K"

static khost__progress_state state(int ncases, int done, double finished_s, double case_started)
{
  khost__progress_state s = {
      .ncases = ncases, .done = done, .finished_s = finished_s, .case_started = case_started};
  snprintf(s.case_name, sizeof s.case_name, "perf_large");
  snprintf(s.backend, sizeof s.backend, "cute");
  snprintf(s.device, sizeof s.device, "cuda");
  snprintf(s.phase, sizeof s.phase, "timing");
  return s;
}

static const char *format(const khost__progress_state *s, double now, int width)
{
  static char buf[512];
  khost__progress_format(s, now, width, buf, sizeof buf);
  return buf;
}

/* The counts and times of the line, with the estimate: the mean time of the
 * finished cases times the cases after the current one, plus what the mean
 * leaves of the current case. */
Test(progress, the_estimate_is_the_mean_case_time_over_what_is_left)
{
  static const struct {
    int ncases, done;
    double finished_s, case_started, now;
    const char *counts;
  } cases[] = {
      /* Two cases took 20 s (a mean of 10); the third has run 4 s of its 10, and one follows it. */
      {4, 2, 20, 20, 24, "2/4 cases done, 0:24 elapsed, about 0:16 left"},
      /* A case past the mean adds nothing of its own: never below the cases after it. */
      {3, 1, 10, 10, 30, "1/3 cases done, 0:30 elapsed, about 0:10 left"},
      {3, 3, 30, 20, 30, "3/3 cases done, 0:30 elapsed, about 0:00 left"},
      /* No estimate before a case has finished; hours when long. */
      {5, 0, 0, 0, 3725, "0/5 cases done, 1:02:05 elapsed, ? left"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    khost__progress_state s =
        state(cases[i].ncases, cases[i].done, cases[i].finished_s, cases[i].case_started);
    char want[256];
    snprintf(want, sizeof want, "%s | perf_large: cute (cuda) timing", cases[i].counts);
    cr_expect_str_eq(format(&s, cases[i].now, 200), want);
  }
}

/* khost's own work names no backend; a fini() names no device. */
Test(progress, only_what_is_known_is_named)
{
  khost__progress_state s = state(2, 0, 0, 0);
  s.backend[0] = s.device[0] = '\0';
  snprintf(s.phase, sizeof s.phase, "inputs");
  cr_expect_str_eq(format(&s, 1, 200), "0/2 cases done, 0:01 elapsed, ? left | perf_large: inputs");
  snprintf(s.backend, sizeof s.backend, "cute");
  snprintf(s.phase, sizeof s.phase, "fini");
  cr_expect_str_eq(format(&s, 1, 200), "0/2 cases done, 0:01 elapsed, ? left | perf_large: cute fini");
  s.phase[0] = s.backend[0] = '\0';
  cr_expect_str_eq(format(&s, 1, 200), "0/2 cases done, 0:01 elapsed, ? left | perf_large");
}

/* Cut to the width less one: a line as wide as the terminal wraps on some. */
Test(progress, the_line_is_cut_to_the_terminal_width)
{
  khost__progress_state s = state(4, 2, 20, 20);
  const char *line = format(&s, 24, 30);
  cr_expect_eq(strlen(line), 29, "'%s'", line);
  cr_expect_str_eq(line, "2/4 cases done, 0:24 elapsed,");
}

static int set_term(const char *value)
{
  return value ? setenv("TERM", value, 1) : unsetenv("TERM");
}

Test(progress, wanted_on_a_terminal_that_can_erase_a_line_unless_quiet)
{
  int master, slave, fds[2];
  cr_assert_eq(openpty(&master, &slave, NULL, NULL, NULL), 0);
  cr_assert_eq(pipe(fds), 0);
  set_term("xterm");
  cr_expect_eq(khost__progress_wanted(slave, 0), 1, "a terminal");
  cr_expect_eq(khost__progress_wanted(slave, 1), 0, "--quiet");
  cr_expect_eq(khost__progress_wanted(fds[1], 0), 0, "a pipe");
  set_term("dumb");
  cr_expect_eq(khost__progress_wanted(slave, 0), 0, "TERM=dumb cannot erase a line");
  set_term(NULL);
  cr_expect_eq(khost__progress_wanted(slave, 0), 0, "no TERM");
  close(master), close(slave), close(fds[0]), close(fds[1]);
}

/* A run on stderr (a pipe here, so that every byte can be read back in order). */
static void a_run(void *unused)
{
  (void)unused;
  khost__progress_start(STDERR_FILENO, 2);
  khost__progress_case("alpha");
  khost__progress_backend("ref", "cpu", "timing"); /* within 0.1 s of the last drawing: not drawn */
  khost__progress_say("a message %d", 7);
  khost__progress_backend("ref", "cpu", "timing"); /* the line is not shown: drawn at once */
  khost__progress_case_done();
  khost__progress_case("beta");
  nanosleep(&(struct timespec){0, 120 * 1000 * 1000}, NULL);  /* past the 0.1 s between drawings */
  khost__progress_backend("b\033[31m\xff", "cpu", "ph\nase"); /* bytes from a worker */
  khost__progress_end();
  khost__progress_say("after the end");
  khost__progress_case("gamma"); /* the line is off for good */
}

Test(progress, each_drawing_and_each_message_erases_the_line_first)
{
  char said[2048];
  int status = run_in_child(a_run, NULL, said, sizeof said);
  cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == CHILD_BODY_RETURNED, "status %d", status);
  const char *want = ERASE "0/2 cases done, 0:00 elapsed, ? left | alpha" ERASE "khost: a message 7\n" ERASE
                           "0/2 cases done, 0:00 elapsed, ? left | alpha: ref (cpu) timing" ERASE
                           "1/2 cases done, 0:00 elapsed, about 0:00 left | beta" ERASE
                           "1/2 cases done, 0:00 elapsed, about 0:00 left | beta: b?[31m? (cpu) ph?ase" ERASE
                           "khost: after the end\n";
  cr_expect_str_eq(said, want);
}

static void an_unshown_run(void *unused)
{
  (void)unused;
  khost__progress_start(-1, 2);
  khost__progress_case("alpha");
  khost__progress_backend("ref", "cpu", "timing");
  khost__progress_say("only this");
  khost__progress_clear();
  khost__progress_end();
}

Test(progress, a_line_that_is_off_writes_nothing_but_the_messages)
{
  char said[512];
  int status = run_in_child(an_unshown_run, NULL, said, sizeof said);
  cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == CHILD_BODY_RETURNED, "status %d", status);
  cr_expect_str_eq(said, "khost: only this\n");
}

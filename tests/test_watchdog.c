/* The --no-isolate watchdog (core/watchdog.c): khost ends, naming what was
 * running, once the worker's messages stop for --timeout; a worker that keeps
 * talking, or ends in time, is left alone. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "child.h"
#include "exit_status.h"
#include "support/child_stderr.h"
#include "watchdog.h"

static const khost_plugin watched = {.name = "watched"};
static khost__plugin plugins[1] = {{.desc = &watched}};
static const khost__registry reg = {.nplugins = 1, .plugins = plugins};
static const khost__slot slots[1] = {{.plugin = 0, .device_type = KHOST_DEVICE_CPU}};
static khost__options options = {.timeout_s = 0.3};
static const khost__worker_job job = {.o = &options, .reg = &reg, .nslots = 1, .slots = slots};

static void pause_s(double seconds)
{
  struct timespec t = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
  nanosleep(&t, NULL);
}

/* A temporary file for the worker's messages, as --no-isolate uses. */
static int message_file(void)
{
  FILE *f = tmpfile();
  cr_assert_not_null(f);
  int fd = dup(fileno(f));
  fclose(f);
  return fd;
}

static void announce(int fd, int slot, const char *phase)
{
  khost__begin_msg m = {.slot = slot};
  snprintf(m.phase, sizeof m.phase, "%s", phase);
  cr_assert_eq(khost__child_send(fd, KHOST__MSG_BEGIN, &m, sizeof m), KHOST__OK);
}

/* Starts the watchdog, announces slot 0's check, then hangs. */
static void hang_after_announcing(void *arg)
{
  (void)arg;
  int fd = message_file();
  khost__err err;
  khost__watchdog *w;
  if (khost__watchdog_start(&w, fd, &job, &err) != KHOST__OK) return;
  announce(fd, KHOST__NO_SLOT, "inputs");
  announce(fd, 0, "check");
  for (;;) pause();
}

Test(watchdog, silence_past_the_timeout_ends_the_process_naming_the_backend_and_phase)
{
  char said[1024];
  int status = run_in_child(hang_after_announcing, NULL, said, sizeof said);
  cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == KHOST__EXIT_FAILED, "status 0x%x", status);
  cr_expect_str_eq(said,
                   "khost: --no-isolate: silent for longer than --timeout 0.3 s during check of watched; a "
                   "call inside khost cannot be stopped, so khost ends here (isolated, the row would be a "
                   "TIMEOUT)\n");
}

/* Messages more often than the timeout keep it quiet, for as long as they come. */
Test(watchdog, a_worker_that_keeps_talking_is_left_alone)
{
  int fd = message_file();
  khost__err err;
  khost__watchdog *w;
  cr_assert_eq(khost__watchdog_start(&w, fd, &job, &err), KHOST__OK, "%s", err.msg);
  for (int i = 0; i < 10; i++) {
    announce(fd, 0, "timing");
    pause_s(0.1);
  }
  khost__watchdog_stop(w);
  pause_s(0.5); /* a watchdog still running would end this test's process here */
  close(fd);
}

/* Running the worker's units (core/worker/phases.c): phases once, consecutive
 * guards slot by slot on active slots, rows sent after each slot, and where a
 * failure stops the run. Fake units record their calls. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "worker/phases.h"

#define NSLOTS 3

static char trace[512];

static void note(const char *fmt, ...)
{
  size_t used = strlen(trace);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(trace + used, sizeof trace - used, fmt, ap);
  va_end(ap);
}

static khost__slot slots[NSLOTS];
static khost__worker_job job = {.nslots = NSLOTS, .slots = slots};
static khost__measurement rows[NSLOTS];
static uint8_t active[NSLOTS], done[NSLOTS], sent[NSLOTS];

static khost__worker fresh_worker(void)
{
  trace[0] = '\0';
  memset(done, 0, sizeof done);
  memset(sent, 0, sizeof sent);
  memset(active, 1, sizeof active);
  int fd = open("/dev/null", O_WRONLY);
  cr_assert_geq(fd, 0);
  return (khost__worker){.fd = fd, .job = &job, .rows = rows, .active = active, .done = done, .sent = sent};
}

/* A phase that notes its label and returns status. */
#define FAKE_PHASE(name, label, status)                                                                      \
  static int name(khost__worker *w)                                                                          \
  {                                                                                                          \
    note(label " ");                                                                                         \
    return status;                                                                                           \
  }

FAKE_PHASE(case_a, "A", KHOST__OK)
FAKE_PHASE(case_b, "B", KHOST__OK)
FAKE_PHASE(case_c, "C", KHOST__OK)
FAKE_PHASE(case_fails, "F", KHOST__E_FAIL)

static int guard_1(khost__worker *w, int s)
{
  note("1:%d ", s);
  return KHOST__OK;
}

static int guard_2(khost__worker *w, int s)
{
  note("2:%d ", s);
  return KHOST__OK;
}

/* Fails slot 0; on every slot, notes whether the slot before it was sent. */
static int guard_fails_slot_0(khost__worker *w, int s)
{
  note("f:%d(%d) ", s, s > 0 ? w->sent[s - 1] : -1);
  if (s == 0) khost__worker_settle(w, s, KHOST__ROW_FAIL, "wrong");
  return KHOST__OK;
}

static int guard_breaks_on_1(khost__worker *w, int s)
{
  note("b:%d ", s);
  return s == 1 ? KHOST__E_CUDA_BROKEN : KHOST__OK;
}

static const khost__phase a = {.whole = case_a}, b = {.whole = case_b}, fails = {.whole = case_fails},
                          closes = {.whole = case_c, .after_break = 1}, g1 = {.slot = guard_1},
                          g2 = {.slot = guard_2}, fails_0 = {.slot = guard_fails_slot_0},
                          breaks_1 = {.slot = guard_breaks_on_1};

static int run(khost__worker *w, const khost__phase *const *list, int n)
{
  int rc = khost__phases_run(w, list, n);
  close(w->fd);
  return rc;
}

Test(phases, phases_run_once_and_consecutive_guards_run_together_slot_by_slot)
{
  khost__worker w = fresh_worker();
  const khost__phase *list[] = {&a, &g1, &g2, &b, &g2};
  cr_expect_eq(run(&w, list, 5), KHOST__OK);
  cr_expect_str_eq(trace, "A 1:0 2:0 1:1 2:1 1:2 2:2 B 2:0 2:1 2:2 ");
}

Test(phases, guards_run_only_while_their_slot_is_active)
{
  khost__worker w = fresh_worker();
  active[1] = 0;
  const khost__phase *list[] = {&fails_0, &g2};
  cr_expect_eq(run(&w, list, 2), KHOST__OK);
  cr_expect_str_eq(trace, "f:0(-1) f:2(0) 2:2 ", "slot 1 never active, slot 0 failed in the first guard");
}

Test(phases, a_row_settled_by_a_guard_is_sent_before_the_next_slot)
{
  khost__worker w = fresh_worker();
  const khost__phase *list[] = {&fails_0, &g2};
  cr_expect_eq(run(&w, list, 2), KHOST__OK);
  cr_expect_str_eq(trace, "f:0(-1) f:1(1) 2:1 f:2(0) 2:2 ");
  cr_expect(done[0] && sent[0]);
  cr_expect(!done[1] && !sent[1] && active[1], "a slot still active is not final");
}

Test(phases, a_broken_context_stops_the_run_but_for_the_phases_that_run_after_a_break)
{
  khost__worker w = fresh_worker();
  const khost__phase *list[] = {&breaks_1, &g2, &a, &closes, &g1, &b};
  cr_expect_eq(run(&w, list, 6), KHOST__E_CUDA_BROKEN);
  cr_expect_str_eq(trace, "b:0 2:0 b:1 C ");
}

Test(phases, another_failure_stops_the_run_whole)
{
  khost__worker w = fresh_worker();
  const khost__phase *list[] = {&a, &fails, &g1, &closes, &b};
  cr_expect_eq(run(&w, list, 5), KHOST__E_FAIL);
  cr_expect_str_eq(trace, "A F ");
}

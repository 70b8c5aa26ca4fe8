/* The worker's shared helpers (core/worker/state.c): settling a slot, and
 * sending each final row once, flagged when the case's inputs were not dumped. */
#include <criterion/criterion.h>
#include <string.h>
#include <unistd.h>

#include "child.h"
#include "worker/state.h"

#define NSLOTS 3

static khost__slot slots[NSLOTS];
static khost__worker_job job = {.nslots = NSLOTS, .slots = slots};
static khost__measurement rows[NSLOTS];
static uint8_t active[NSLOTS] = {1, 1, 1}, done[NSLOTS], sent[NSLOTS];
static int fds[2];

static khost__worker worker(void)
{
  cr_assert_eq(pipe(fds), 0);
  return (khost__worker){
      .fd = fds[1], .job = &job, .rows = rows, .active = active, .done = done, .sent = sent};
}

/* The rows sent so far, in order; returns how many. */
static int received(khost__row_msg *got, int max)
{
  close(fds[1]);
  khost__child reader = {.pid = -1, .fd = fds[0]};
  uint32_t type, size;
  int n = 0;
  while (n < max && khost__child_recv(&reader, &type, &got[n], sizeof got[n], &size, 5) == 1)
    if (type == KHOST__MSG_ROW) n++;
  close(fds[0]);
  return n;
}

Test(state, settling_a_slot_makes_its_row_final_and_no_longer_active)
{
  khost__worker w = worker();
  khost__worker_settle(&w, 1, KHOST__ROW_ERROR, "init failed: %s", "no device");
  cr_expect_eq(rows[1].status, KHOST__ROW_ERROR);
  cr_expect_str_eq(rows[1].message, "init failed: no device");
  cr_expect(!active[1] && done[1]);
  cr_expect(active[0] && !done[0], "the other slots are untouched");
  close(fds[0]);
  close(fds[1]);
}

Test(state, each_final_row_is_sent_once_and_marked_when_the_inputs_were_not_dumped)
{
  khost__worker w = worker();
  w.inputs_undumped = 1;
  khost__worker_settle(&w, 2, KHOST__ROW_FAIL, "wrong");
  khost__worker_send_rows(&w);
  khost__worker_settle(&w, 0, KHOST__ROW_SKIP, "declined");
  khost__worker_send_rows(&w);
  khost__worker_send_rows(&w);
  khost__row_msg got[4];
  cr_assert_eq(received(got, 4), 2, "two final rows, each sent once");
  cr_expect_eq(got[0].slot, 2);
  cr_expect_str_eq(got[0].measured.message, "wrong");
  cr_expect_eq(got[0].measured.dump_incomplete, 1, "its check used the inputs that are missing");
  cr_expect_eq(got[1].slot, 0);
  cr_expect_eq(got[1].measured.dump_incomplete, 0, "a skipped row misses no inputs");
  cr_expect(sent[0] && !sent[1] && sent[2]);
}

#include "lanes.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "child.h"
#include "progress.h"

enum { MSG_ROW = 1, MSG_CASE = 2, MSG_END = 3 };

typedef struct row_msg {
  int32_t position; /* the case's place in the run's selection */
  khost__row row;
} row_msg;

typedef struct case_msg {
  int32_t position, have_device;
  khost__device_info device;
} case_msg;

typedef struct end_msg {
  int32_t rc, failed;
  char message[sizeof(khost__err)];
} end_msg;

typedef union lane_msg {
  row_msg row;
  case_msg done;
  end_msg end;
} lane_msg;

/* What a lane runs: its share of the cases, with its own options. */
typedef struct lane {
  khost__options o;
  khost__suite suite;
  const khost__registry *reg;
  int *positions; /* its cases' places among the run's cases, in its order */
  int fd, sent;   /* in the lane: the pipe, the cases sent so far */
  khost__child child;
  int open, ended; /* in the parent: its pipe is read; its end message came */
} lane;

/* A case's rows, kept until every case before it has been handed on. */
typedef struct held_case {
  khost__row *rows;
  int nrows, complete, have_device;
  khost__device_info device;
} held_case;

static int lane_case_done(void *ctx, const khost__row *rows, int n, const khost__device_info *device,
                          khost__err *err)
{
  lane *l = ctx;
  case_msg c = {.position = l->positions[l->sent++], .have_device = device != NULL};
  if (device) c.device = *device;
  for (int i = 0; i < n; i++) {
    row_msg m = {.position = c.position, .row = rows[i]};
    if (khost__child_send(l->fd, MSG_ROW, &m, sizeof m) != KHOST__OK)
      return khost__errorf(err, KHOST__E_IO, "a lane could not send its rows");
  }
  if (khost__child_send(l->fd, MSG_CASE, &c, sizeof c) != KHOST__OK)
    return khost__errorf(err, KHOST__E_IO, "a lane could not send its rows");
  return KHOST__OK;
}

static int lane_main(int fd, void *arg)
{
  lane *l = arg;
  khost__err err = {{0}};
  int failed = 0;
  /* The parent draws the one progress line; lanes drawing their own would interleave. */
  khost__progress_start(-1, 0);
  l->fd = fd;
  end_msg end = {.rc = khost__run_suite(&l->o, l->reg, &l->suite, lane_case_done, l, &failed, &err)};
  end.failed = failed;
  snprintf(end.message, sizeof end.message, "%s", err.msg);
  return khost__child_send(fd, MSG_END, &end, sizeof end) == KHOST__OK ? 0 : 1;
}

/* Lane k's share of suite, and its options: its ordinal, its threads. */
static int plan_lane(lane *l, int k, const khost__options *o, const khost__suite *suite,
                     const khost__devices *d, khost__err *err)
{
  l->o = *o;
  l->o.device = d->ordinals[k];
  l->o.threads = khost__devices_lane_threads(o->threads, d->count);
  snprintf(l->suite.path, sizeof l->suite.path, "%s", suite->path);
  /* Room for every case, whatever share khost__devices_lane_of gives the lane, so
   * that its rule stays in that one place; one more, as calloc(0) may be NULL. */
  size_t room = (size_t)suite->ncases + 1;
  l->suite.cases = calloc(room, sizeof *l->suite.cases);
  l->positions = calloc(room, sizeof *l->positions);
  if (!l->suite.cases || !l->positions) return khost__errorf(err, KHOST__E_NOMEM, "out of memory");
  /* Each case's place is kept as it is picked, so that the lane rule is
   * khost__devices_lane_of alone, never inverted here. */
  for (int p = 0; p < suite->ncases; p++)
    if (khost__devices_lane_of(p, d->count) == k) {
      l->positions[l->suite.ncases] = p;
      l->suite.cases[l->suite.ncases++] = suite->cases[p];
    }
  return KHOST__OK;
}

static int hold_row(held_case *h, const khost__row *row, khost__err *err)
{
  khost__row *grown = realloc(h->rows, (size_t)(h->nrows + 1) * sizeof *grown);
  if (!grown) return khost__errorf(err, KHOST__E_NOMEM, "out of memory");
  h->rows = grown;
  h->rows[h->nrows++] = *row;
  return KHOST__OK;
}

/* The run's state in the parent. */
typedef struct lanes_run {
  const khost__suite *suite;
  lane *lanes;
  int nlanes;
  held_case *held;
  int next; /* the first case not yet handed on */
  khost__case_done_fn done;
  void *ctx;
  int failed, rc;
  khost__err *err;
} lanes_run;

/* Hands on every complete case from run->next, in order. */
static void hand_on(lanes_run *run)
{
  while (run->rc == KHOST__OK && run->next < run->suite->ncases && run->held[run->next].complete) {
    held_case *h = &run->held[run->next];
    run->rc = run->done(run->ctx, h->rows, h->nrows, h->have_device ? &h->device : NULL, run->err);
    free(h->rows);
    h->rows = NULL;
    khost__progress_case_done();
    if (++run->next < run->suite->ncases) khost__progress_case(run->suite->cases[run->next].name);
  }
}

static int valid_position(const lanes_run *run, int32_t p)
{
  return p >= 0 && p < run->suite->ncases;
}

/* One message of lane l; 0 when it closed its pipe. */
static int take_message(lanes_run *run, lane *l)
{
  static lane_msg m; /* rows are large: not on the stack */
  uint32_t type, size;
  int got = khost__child_recv(&l->child, &type, &m, sizeof m, &size, 0);
  if (got != 1) return 0;
  if (type == MSG_ROW && valid_position(run, m.row.position) && run->rc == KHOST__OK)
    run->rc = hold_row(&run->held[m.row.position], &m.row.row, run->err);
  if (type == MSG_CASE && valid_position(run, m.done.position)) {
    held_case *h = &run->held[m.done.position];
    h->complete = 1;
    h->have_device = m.done.have_device;
    h->device = m.done.device;
    hand_on(run);
  }
  if (type == MSG_END) {
    l->ended = 1;
    run->failed |= m.end.failed;
    if (m.end.rc != KHOST__OK && run->rc == KHOST__OK) {
      run->rc = m.end.rc;
      snprintf(run->err->msg, sizeof run->err->msg, "%.*s", (int)sizeof m.end.message - 1, m.end.message);
    }
  }
  return 1;
}

static void finish_lane(lanes_run *run, lane *l)
{
  khost__child_end end;
  khost__child_finish(&l->child, 0, &end);
  l->open = 0;
  if (!l->ended && run->rc == KHOST__OK)
    run->rc = khost__errorf(run->err, KHOST__E_FAIL, "the lane of device %d %s before its last case",
                            l->o.device, end.how);
}

/* Reads every lane until all have ended. */
static void listen_all(lanes_run *run)
{
  struct pollfd fds[KHOST__DEVICES_MAX];
  int at[KHOST__DEVICES_MAX];
  for (;;) {
    int n = 0;
    for (int k = 0; k < run->nlanes; k++)
      if (run->lanes[k].open)
        fds[n] = (struct pollfd){.fd = run->lanes[k].child.fd, .events = POLLIN}, at[n++] = k;
    if (n == 0) return;
    if (poll(fds, (nfds_t)n, -1) < 0) {
      if (errno == EINTR) continue;
      for (int i = 0; i < n; i++) finish_lane(run, &run->lanes[at[i]]);
      return;
    }
    for (int i = 0; i < n; i++)
      if (fds[i].revents && !take_message(run, &run->lanes[at[i]])) finish_lane(run, &run->lanes[at[i]]);
  }
}

static void start_lanes(lanes_run *run, const khost__options *o, const khost__registry *reg,
                        const khost__devices *d)
{
  for (int k = 0; k < run->nlanes && run->rc == KHOST__OK; k++) {
    lane *l = &run->lanes[k];
    l->reg = reg;
    run->rc = plan_lane(l, k, o, run->suite, d, run->err);
    if (run->rc == KHOST__OK && l->suite.ncases > 0)
      run->rc = khost__child_start(&l->child, lane_main, l, run->err);
    l->open = run->rc == KHOST__OK && l->suite.ncases > 0;
  }
}

int khost__run_lanes(const khost__options *o, const khost__registry *reg, const khost__suite *suite,
                     const khost__devices *devices, khost__case_done_fn done, void *ctx, int *failed,
                     khost__err *err)
{
  lanes_run run = {.suite = suite, .nlanes = devices->count, .done = done, .ctx = ctx, .err = err};
  run.lanes = calloc((size_t)devices->count, sizeof *run.lanes);
  run.held = calloc((size_t)suite->ncases + 1, sizeof *run.held);
  if (!run.lanes || !run.held) run.rc = khost__errorf(err, KHOST__E_NOMEM, "out of memory");
  if (run.rc == KHOST__OK && suite->ncases > 0) khost__progress_case(suite->cases[0].name);
  if (run.rc == KHOST__OK) start_lanes(&run, o, reg, devices);
  /* Lanes that started run to their end, also after another failed: none is left behind. */
  listen_all(&run);
  for (int p = 0; run.held && p < suite->ncases; p++) free(run.held[p].rows);
  for (int k = 0; run.lanes && k < devices->count; k++)
    free(run.lanes[k].suite.cases), free(run.lanes[k].positions);
  free(run.held);
  free(run.lanes);
  *failed = run.failed;
  return run.rc;
}

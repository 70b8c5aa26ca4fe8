/* The worker process (core/worker.c) run as the parent runs it, on CPU
 * backends: what it announces and sends, in order, pins the phase list's
 * order, where rows are sent, and that a failed phase ends the case. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "child.h"
#include "cli.h"
#include "suite.h"
#include "worker.h"

#define CASE_NAME "copy_transpose_fp16_64x100"
#define MAX_LINES 64

typedef struct run {
  khost__options o;
  khost__registry reg;
  khost__suite suite;
  khost__slot slots[8];
  uint8_t pending[8];
  khost__device_info known;
  khost__worker_job job;
} run;

static void load(run *r, const char *path)
{
  khost__err err;
  cr_assert_eq(khost__registry_add_file(&r->reg, path, &err), KHOST__OK, "%s", err.msg);
  cr_assert_eq(r->reg.nfailures, 0, "%s: %s", path, r->reg.nfailures ? r->reg.failures[0].reason : "");
}

static void load_fixture(run *r, const char *name)
{
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.so", getenv("KHOST_FIXTURE_DIR"), name);
  load(r, path);
}

/* COPY_CASE of the smoke suite, with the oracle (the reference plugin, or the
 * fixture oracle) first and then the fixtures as CPU backends, all pending. */
static void prepare(run *r, const char *oracle, const char *const *fixtures, int n)
{
  static char *argv[] = {"khost", "--max-time", "0.002", "--warmup", "0", NULL};
  khost__err err;
  memset(r, 0, sizeof *r);
  cr_assert_eq(khost__cli_parse(5, argv, &r->o, &err), KHOST__OK, "%s", err.msg);
  char path[4096];
  snprintf(path, sizeof path, "%s/suites/smoke.ini", getenv("KHOST_SOURCE_ROOT"));
  cr_assert_eq(khost__suite_load(path, &r->suite, &err), KHOST__OK, "%s", err.msg);
  const khost__case *c = NULL;
  for (int i = 0; i < r->suite.ncases && !c; i++)
    if (!strcmp(r->suite.cases[i].name, CASE_NAME)) c = &r->suite.cases[i];
  cr_assert_not_null(c);
  if (oracle)
    load_fixture(r, oracle);
  else
    load(r, getenv("KHOST_REFERENCE_PLUGIN"));
  for (int i = 0; i < n; i++) load_fixture(r, fixtures[i]);
  for (int p = 0; p < r->reg.nplugins; p++) {
    r->slots[p] = (khost__slot){.plugin = p, .device_type = KHOST_DEVICE_CPU};
    r->pending[p] = 1;
  }
  r->job = (khost__worker_job){.o = &r->o,
                               .reg = &r->reg,
                               .c = c,
                               .nslots = r->reg.nplugins,
                               .slots = r->slots,
                               .pending = r->pending,
                               .oracle_plugin = 0,
                               .known = &r->known};
}

typedef union message {
  khost__begin_msg begin;
  khost__row_msg row;
} message;

/* A message as a line: "SLOT PHASE" for an announced phase (SLOT "-" for
 * khost's own work, "oracle" for the reference's) and "ROW SLOT STATUS" for a
 * row; a sample's phase is "timing" whatever the slot. 0 for other messages. */
static int describe(uint32_t type, const message *m, char *line, size_t size)
{
  if (type == KHOST__MSG_ROW)
    return snprintf(line, size, "ROW %d %s", m->row.slot, khost__row_status_name(m->row.measured.status)), 1;
  if (type != KHOST__MSG_BEGIN) return 0;
  if (!strcmp(m->begin.phase, "timing")) return snprintf(line, size, "timing"), 1;
  if (m->begin.slot == KHOST__NO_SLOT)
    snprintf(line, size, "- %s", m->begin.phase);
  else if (m->begin.slot == KHOST__ORACLE_SLOT)
    snprintf(line, size, "oracle %s", m->begin.phase);
  else
    snprintf(line, size, "%d %s", m->begin.slot, m->begin.phase);
  return 1;
}

/* Runs the worker in a child and writes what it said into lines, a run of
 * samples (the slots in turn) as one line "timing". Returns the number of
 * lines; *exit_status is the worker's. */
static int trace(run *r, char lines[][64], int *exit_status)
{
  khost__child child;
  khost__err err;
  cr_assert_eq(khost__child_start(&child, khost__worker_main, &r->job, &err), KHOST__OK, "%s", err.msg);
  message m;
  uint32_t type, size;
  char line[64];
  int n = 0;
  while (n < MAX_LINES && khost__child_recv(&child, &type, &m, sizeof m, &size, 60) == 1)
    if (describe(type, &m, line, sizeof line) &&
        (n == 0 || strcmp(line, "timing") || strcmp(lines[n - 1], line)))
      snprintf(lines[n++], 64, "%s", line);
  khost__child_end end;
  khost__child_finish(&child, 0, &end);
  cr_assert(end.exited, "the worker %s", end.how);
  *exit_status = end.exit_code;
  return n;
}

static void expect_lines(char lines[][64], int n, const char *const *expected, int nexpected)
{
  for (int i = 0; i < n && i < nexpected; i++) cr_expect_str_eq(lines[i], expected[i], "message %d", i);
  cr_expect_eq(n, nexpected, "%d messages, expected %d", n, nexpected);
}

static void release(run *r)
{
  khost__suite_free(&r->suite);
  khost__registry_free(&r->reg);
}

/* The reference passes; fault_no_write fails its first check, and its row goes
 * before the next backend starts; fault_lazy fails its first timed call (a
 * warm-up call, its outputs poisoned), and its row goes with the next slot's. */
Test(worker, the_phases_run_in_the_documented_order_and_rows_go_as_soon_as_final)
{
  static const char *const fixtures[] = {"fault_no_write", "fault_lazy"};
  static const char *const expected[] = {
      "- inputs",
      "oracle reference init",
      "oracle reference",
      "0 init",
      "0 prepare",
      "0 check",
      "1 init",
      "1 prepare",
      "1 check",
      "ROW 1 FAIL",
      "2 init",
      "2 prepare",
      "2 check",
      "0 warm-up",
      "2 warm-up",
      "timing",
      "0 timed check",
      "ROW 2 FAIL",
      "- fresh inputs 1/1",
      "oracle reference init",
      "oracle reference, trial 1/1",
      "0 fresh check 1/1",
      "- finish",
      "ROW 0 PASS",
  };
  run r;
  prepare(&r, NULL, fixtures, 2);
  char lines[MAX_LINES][64];
  int status, n = trace(&r, lines, &status);
  expect_lines(lines, n, expected, sizeof expected / sizeof expected[0]);
  cr_expect_eq(status, KHOST__WORKER_EXIT_DONE);
  release(&r);
}

/* An oracle that writes nothing fails the oracle phase: no backend's code runs
 * after it, and every row is an ERROR. */
Test(worker, a_failed_oracle_ends_the_case_before_any_backend_runs)
{
  static const char *const fixtures[] = {"fault_free"};
  static const char *const expected[] = {
      "- inputs", "oracle reference init", "oracle reference", "- finish", "ROW 0 ERROR", "ROW 1 ERROR",
  };
  run r;
  prepare(&r, "fault_no_write", fixtures, 1);
  char lines[MAX_LINES][64];
  int status, n = trace(&r, lines, &status);
  expect_lines(lines, n, expected, sizeof expected / sizeof expected[0]);
  cr_expect_eq(status, KHOST__WORKER_EXIT_DONE);
  release(&r);
}

/* The totals over a run's rows (report.h): rows per status, and per backend its
 * speedups' geometric mean and its wins, kept up to date row by row. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buffers.h" /* khost__hash_bytes */
#include "error.h"
#include "report.h"

/* A case's fastest timed PASS row so far: its median and its backend's slot
 * (-1 when that backend is past the first KHOST__SUMMARY_MAX_BACKENDS). */
struct khost__case_best {
  char name[sizeof(((khost__row_id *)0)->case_name)]; /* "" marks a free entry */
  double median;
  int slot;
};

void khost__summary_builder_init(khost__summary_builder *b)
{
  memset(b, 0, sizeof *b);
}

void khost__summary_builder_free(khost__summary_builder *b)
{
  free(b->cases);
  b->cases = NULL;
  b->ncases = b->capacity = 0;
}

/* Index of the row's backend (name and device) in s->backends, added if new;
 * -1 when there is no room. */
static int backend_slot(khost__summary *s, const khost__row *r)
{
  for (int i = 0; i < s->nbackends; i++)
    if (strcmp(s->backends[i].name, r->id.backend) == 0 && strcmp(s->backends[i].device, r->id.device) == 0)
      return i;
  if (s->nbackends == KHOST__SUMMARY_MAX_BACKENDS) return -1;
  khost__backend_summary *b = &s->backends[s->nbackends];
  snprintf(b->name, sizeof b->name, "%s", r->id.backend);
  snprintf(b->device, sizeof b->device, "%s", r->id.device);
  return s->nbackends++;
}

static int is_timed_pass(const khost__row *r)
{
  return r->measured.status == KHOST__ROW_PASS && r->measured.time.samples > 0 && r->measured.time.median > 0;
}

static int has_speedup(const khost__row *r)
{
  return r->measured.status == KHOST__ROW_PASS && r->derived.speedup > 0 && isfinite(r->derived.speedup);
}

/* The entry of the case named name in cases (capacity a power of two): its own,
 * or the free one where it goes. */
static struct khost__case_best *case_entry(struct khost__case_best *cases, size_t capacity, const char *name)
{
  size_t n = strnlen(name, sizeof cases->name - 1);
  size_t i = (size_t)khost__hash_bytes(name, n) & (capacity - 1);
  while (cases[i].name[0] && strncmp(cases[i].name, name, sizeof cases->name - 1) != 0)
    i = (i + 1) & (capacity - 1);
  return &cases[i];
}

/* Room for one more case: the table is kept at most half full, so a search ends soon. */
static int make_room(khost__summary_builder *b)
{
  if (2 * (b->ncases + 1) <= b->capacity) return KHOST__OK;
  size_t capacity = b->capacity ? 2 * b->capacity : 64;
  struct khost__case_best *grown = calloc(capacity, sizeof *grown);
  if (!grown) return KHOST__E_NOMEM;
  for (size_t i = 0; i < b->capacity; i++)
    if (b->cases[i].name[0]) *case_entry(grown, capacity, b->cases[i].name) = b->cases[i];
  free(b->cases);
  b->cases = grown;
  b->capacity = capacity;
  return KHOST__OK;
}

/* A case's win goes to its fastest timed PASS row, the first of equals. */
static void count_win(khost__summary_builder *b, const khost__row *r, int slot)
{
  struct khost__case_best *best = case_entry(b->cases, b->capacity, r->id.case_name);
  if (best->name[0] && !(r->measured.time.median < best->median)) return;
  if (!best->name[0]) {
    snprintf(best->name, sizeof best->name, "%.*s", (int)sizeof best->name - 1, r->id.case_name);
    b->ncases++;
  } else if (best->slot >= 0) {
    b->summary.backends[best->slot].wins--;
  }
  best->median = r->measured.time.median;
  best->slot = slot;
  if (slot >= 0) b->summary.backends[slot].wins++;
}

int khost__summary_builder_add(khost__summary_builder *b, const khost__row *r)
{
  khost__summary *s = &b->summary;
  if (is_timed_pass(r) && make_room(b) != KHOST__OK) return KHOST__E_NOMEM;
  s->nrows++;
  if ((unsigned)r->measured.status < KHOST__ROW_STATUS_COUNT) s->by_status[r->measured.status]++;
  int slot = backend_slot(s, r);
  if (slot < 0) s->rows_omitted++;
  if (slot >= 0 && has_speedup(r)) {
    khost__backend_summary *backend = &s->backends[slot];
    b->log_speedup_sum[slot] += log(r->derived.speedup);
    backend->speedup_cases++;
    backend->geomean_speedup = exp(b->log_speedup_sum[slot] / backend->speedup_cases);
  }
  if (is_timed_pass(r)) count_win(b, r, slot);
  return KHOST__OK;
}

int khost__summarize(const khost__row *rows, int nrows, khost__summary *out)
{
  khost__summary_builder b;
  int rc = KHOST__OK;
  khost__summary_builder_init(&b);
  for (int i = 0; i < nrows && rc == KHOST__OK; i++) rc = khost__summary_builder_add(&b, &rows[i]);
  *out = b.summary;
  khost__summary_builder_free(&b);
  return rc;
}

/* core/parallel_rows.c: every row taken once, by contiguous ranges, one per
 * worker, and the worker counts it promises. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <string.h>

#include "parallel_rows.h"

typedef struct tally {
  int taken[1000];
  int64_t first[KHOST__MAX_THREADS], last[KHOST__MAX_THREADS];
  int calls[KHOST__MAX_THREADS];
  pthread_mutex_t lock;
} tally;

static void take(void *arg, int worker, int64_t begin, int64_t end)
{
  tally *t = arg;
  pthread_mutex_lock(&t->lock);
  t->calls[worker]++;
  t->first[worker] = begin;
  t->last[worker] = end;
  for (int64_t r = begin; r < end; r++) t->taken[r]++;
  pthread_mutex_unlock(&t->lock);
}

Test(parallel_rows, takes_every_row_once_in_balanced_contiguous_ranges)
{
  static const struct {
    int64_t rows;
    int threads;
  } runs[] = {{1000, 7}, {5, 16}, {1, 1}, {999, 1}, {300, 0}};
  for (size_t k = 0; k < sizeof runs / sizeof *runs; k++) {
    static tally t;
    memset(&t, 0, sizeof t);
    pthread_mutex_init(&t.lock, NULL);
    int workers = khost__parallel_workers(runs[k].rows, runs[k].threads);
    khost__parallel_rows(runs[k].rows, runs[k].threads, take, &t);
    for (int64_t r = 0; r < runs[k].rows; r++)
      cr_expect_eq(t.taken[r], 1, "run %zu, row %lld", k, (long long)r);
    for (int w = 0; w < workers; w++) {
      int64_t size = t.last[w] - t.first[w];
      cr_expect_eq(t.calls[w], 1, "run %zu, worker %d", k, w);
      cr_expect(size == runs[k].rows / workers || size == runs[k].rows / workers + 1, "run %zu: %lld rows", k,
                (long long)size);
      if (w > 0) cr_expect_eq(t.first[w], t.last[w - 1], "run %zu: ranges not contiguous", k);
    }
    pthread_mutex_destroy(&t.lock);
  }
}

Test(parallel_rows, workers_are_between_one_and_the_rows_and_the_cap)
{
  cr_expect_eq(khost__parallel_workers(1000, 7), 7);
  cr_expect_eq(khost__parallel_workers(5, 16), 5);
  cr_expect_eq(khost__parallel_workers(0, 4), 1);
  cr_expect_eq(khost__parallel_workers(1000, -3), 1);
  cr_expect_eq(khost__parallel_workers(100000, 100000), KHOST__MAX_THREADS);
}

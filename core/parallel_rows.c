#include "parallel_rows.h"

#include <pthread.h>
#include <stdbool.h>

typedef struct range {
  khost__rows_fn fn;
  void *ctx;
  int worker;
  int64_t begin, end;
  pthread_t thread;
  bool started;
} range;

static void *run_range(void *arg)
{
  range *r = arg;
  r->fn(r->ctx, r->worker, r->begin, r->end);
  return NULL;
}

int khost__parallel_workers(int64_t nrows, int threads)
{
  int64_t n = threads < 1 ? 1 : threads;
  if (n > KHOST__MAX_THREADS) n = KHOST__MAX_THREADS;
  if (n > nrows) n = nrows < 1 ? 1 : nrows;
  return (int)n;
}

void khost__parallel_rows(int64_t nrows, int threads, khost__rows_fn fn, void *ctx)
{
  range ranges[KHOST__MAX_THREADS];
  int workers = khost__parallel_workers(nrows, threads);
  for (int w = 0; w < workers; w++) {
    ranges[w] = (range){
        .fn = fn, .ctx = ctx, .worker = w, .begin = nrows * w / workers, .end = nrows * (w + 1) / workers};
    if (w > 0) ranges[w].started = pthread_create(&ranges[w].thread, NULL, run_range, &ranges[w]) == 0;
  }
  for (int w = 0; w < workers; w++) {
    if (ranges[w].started)
      pthread_join(ranges[w].thread, NULL);
    else
      run_range(&ranges[w]);
  }
}

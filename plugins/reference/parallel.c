#include "parallel.h"

#include <stddef.h>

#include <pthread.h>
#include <stdbool.h>

/* The host filled num_threads when struct_size covers it. */
#define INPUT_THREADS_END (offsetof(khost_input, num_threads) + sizeof(int32_t))

int khost__reference_threads(const khost_input *in)
{
  if (in->struct_size < INPUT_THREADS_END || in->num_threads < 1) return 1;
  return in->num_threads;
}

typedef struct range_task {
  khost__reference_rows_fn fn;
  void *ctx;
  int worker;
  int64_t begin, end;
  pthread_t thread;
  bool started;
} range_task;

static void *run_task(void *arg)
{
  range_task *task = arg;
  task->fn(task->ctx, task->worker, task->begin, task->end);
  return NULL;
}

int khost__reference_workers(int64_t nrows, int threads)
{
  int64_t n = threads < 1 ? 1 : threads;
  if (n > KHOST__REFERENCE_MAX_THREADS) n = KHOST__REFERENCE_MAX_THREADS;
  if (n > nrows) n = nrows < 1 ? 1 : nrows;
  return (int)n;
}

void khost__reference_parallel(int64_t nrows, int threads, khost__reference_rows_fn fn, void *ctx)
{
  range_task tasks[KHOST__REFERENCE_MAX_THREADS];
  int workers = khost__reference_workers(nrows, threads);
  for (int w = 0; w < workers; w++) {
    /* Balanced split: range sizes differ by at most one row. */
    tasks[w] = (range_task){
        .fn = fn, .ctx = ctx, .worker = w, .begin = nrows * w / workers, .end = nrows * (w + 1) / workers};
    if (w > 0) tasks[w].started = pthread_create(&tasks[w].thread, NULL, run_task, &tasks[w]) == 0;
  }
  for (int w = 0; w < workers; w++) {
    if (tasks[w].started)
      pthread_join(tasks[w].thread, NULL);
    else
      run_task(&tasks[w]);
  }
}

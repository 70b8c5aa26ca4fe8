/* softmax_online on the CPU: per row, max, then s = sum_j exp(x_j - max) in double,
 * then out_j = exp(x_j - max) / s rounded once to the input dtype (nearest even).
 *
 * The op exists for the GPU kernels' single pass with the online update
 * (max' = max(max, x); s = s * exp(max - max') + exp(x - max')), which saves a
 * read of the row. The oracle has no memory-traffic goal, so it takes the plain
 * passes (the same value in exact arithmetic) and keeps each row's exponentials
 * in per-worker scratch instead of computing them twice.
 * A NaN in a row makes the whole row NaN, as the formula does. */
#include <math.h>
#include <stdlib.h>

#include "khost/ops/softmax_online.h"
#include "parallel.h"
#include "reference.h"

typedef struct softmax_job {
  khost__reference_rows rows;
  double *scratch; /* [workers][n], owned by run() */
} softmax_job;

static double row_max(const khost__reference_rows *rows, size_t base)
{
  double max = -INFINITY;
  for (int64_t j = 0; j < rows->call.n; j++) {
    double x = khost__reference_rows_load(rows, base + (size_t)j);
    if (x > max || isnan(x)) max = x;
  }
  return max;
}

static void softmax_rows(void *arg, int worker, int64_t begin, int64_t end)
{
  const softmax_job *job = arg;
  const khost__reference_rows *rows = &job->rows;
  double *exps = job->scratch + (size_t)worker * (size_t)rows->call.n;
  for (int64_t i = begin; i < end; i++) {
    size_t base = (size_t)(i * rows->call.n);
    double max = row_max(rows, base);
    double sum = 0.0;
    for (int64_t j = 0; j < rows->call.n; j++) {
      exps[j] = exp(khost__reference_rows_load(rows, base + (size_t)j) - max);
      sum += exps[j];
    }
    for (int64_t j = 0; j < rows->call.n; j++)
      khost__reference_rows_store(rows, base + (size_t)j, exps[j] / sum);
  }
}

static int run(const khost_input *in)
{
  softmax_job job;
  int status = khost__reference_rows_open(in, KHOST__ROWS_OUT_SAME, &job.rows);
  if (status != KHOST_STATUS_OK) return status;
  int threads = khost__reference_threads(in);
  size_t workers = (size_t)khost__parallel_workers(job.rows.call.m, threads);
  job.scratch = calloc(workers * (size_t)job.rows.call.n, sizeof *job.scratch);
  if (!job.scratch)
    return khost__input_fail(in, KHOST_STATUS_INTERNAL, "out of memory for %zu x %lld doubles", workers,
                             (long long)job.rows.call.n);
  khost__parallel_rows(job.rows.call.m, threads, softmax_rows, &job);
  free(job.scratch);
  return KHOST_STATUS_OK;
}

const khost_kernel khost__reference_softmax_online = {
    .struct_size = sizeof(khost_kernel),
    .op = "softmax_online",
    .device_type = KHOST_DEVICE_CPU,
    .run = run,
};

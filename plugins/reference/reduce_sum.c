/* reduce_sum on the CPU: out[i] = sum_j in[i][j], accumulated in double in index
 * order and rounded once to the input dtype with round-to-nearest-even. The
 * double sum is exact for fp16 rows up to 2^13 elements (fp16 values span 40
 * bits); otherwise its error is far below one output ulp unless the row cancels
 * almost completely, which the op's tolerance covers. */
#include "khost/ops/reduce_sum.h"
#include "parallel.h"
#include "reference.h"

static void reduce_rows(void *arg, int worker, int64_t begin, int64_t end)
{
  const khost__reference_rows *rows = arg;
  for (int64_t i = begin; i < end; i++) {
    size_t base = (size_t)(i * rows->call.n);
    double sum = 0.0;
    for (int64_t j = 0; j < rows->call.n; j++) sum += khost__reference_rows_load(rows, base + (size_t)j);
    khost__reference_rows_store(rows, (size_t)i, sum);
  }
}

static int run(const khost_input *in)
{
  khost__reference_rows rows;
  int status = khost__reference_rows_open(in, KHOST__ROWS_OUT_REDUCED, &rows);
  if (status != KHOST_STATUS_OK) return status;
  khost__parallel_rows(rows.call.m, khost__reference_threads(in), reduce_rows, &rows);
  return KHOST_STATUS_OK;
}

const khost_kernel khost__reference_reduce_sum = {
    .struct_size = sizeof(khost_kernel),
    .op = "reduce_sum",
    .device_type = KHOST_DEVICE_CPU,
    .run = run,
};

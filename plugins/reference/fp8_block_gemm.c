/* fp8_block_gemm on the CPU: the oracle the GPU kernels are checked against.
 *
 * What is exact: every e4m3 value is a multiple of 2^-9 below 2^8.81 with at most
 * 4 significant bits, so a product of two is a multiple of 2^-18 below 2^17.61,
 * and a block's sum of qk <= 2^16 products is a multiple of 2^-18 below 2^33.61:
 * under 2^52 units, so every partial sum, in any order, is exact in a double.
 * OpenBLAS's dgemm over the decoded codes therefore gives each block's code sum
 * P_b[i][j] exactly, whatever its kernel's order or blocking. A product of two
 * fp32 scales (24 significant bits each) is exact in a double too.
 *
 * What is not: y[i][j] = sum_b (sa * sb) * P_b, the blocks' terms, each rounded
 * once to a double and added in block order in double: a relative error of at
 * most (nb + 1) * 2^-53 of sum_b |(sa * sb) * P_b| (nb = k / qk). The result is
 * then rounded once to bf16 (nearest even, from the double, no fp32 step). Only a
 * y within that error of a bf16 rounding boundary (a midpoint of two bf16 values
 * 2^-8 |y| apart) can round the other way: with nb = 128 and the generator's
 * data, about one element in 10^11.
 *
 * Large cases: the call's threads split the rows; each takes its rows in panels
 * of 64, so that a panel's doubles stay in cache; b is decoded to doubles once
 * (n * k * 8 bytes). */
#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "formats.h"
#include "fp8_block_gemm.h"
#include "khost/ops/fp8_block_gemm.h"
#include "parallel.h"
#include "reference.h"

#define PANEL_ROWS 64 /* rows of a per step: a worker's sums stay in cache (2 * 512 B * n) */

/* The call, its decoded b and each worker's scratch. */
typedef struct gemm_job {
  const khost__fp8_gemm *g;
  double *b;           /* b decoded [n][k] */
  const double *table; /* e4m3 code -> value */
  double **scratch;    /* per worker: a [PANEL_ROWS][k], sums and y [PANEL_ROWS][n], sb of one block [n] */
} gemm_job;

static void decode_codes(const uint8_t *codes, int64_t count, const double *table, double *out)
{
  for (int64_t e = 0; e < count; e++) out[e] = table[codes[e]];
}

/* y += (sa * sb) * sums over the panel's rows: sa * sb is exact in a double. */
static void add_block(const khost__fp8_gemm *g, int64_t row0, int64_t rows, int64_t block,
                      const double *sb_of_col, const double *sums, double *y)
{
  int64_t kb = g->k / g->qk;
  for (int64_t r = 0; r < rows; r++) {
    double sa = g->sa[((row0 + r) / g->qm) * kb + block];
    for (int64_t j = 0; j < g->n; j++) y[r * g->n + j] += sa * sb_of_col[j] * sums[r * g->n + j];
  }
}

/* Rows [row0, row0 + rows): a's rows decoded, each block's code sums by a
 * single-threaded dgemm, added in block order, rounded once to bf16. */
static void gemm_panel(const gemm_job *job, double *scratch, int64_t row0, int64_t rows)
{
  const khost__fp8_gemm *g = job->g;
  int64_t kb = g->k / g->qk;
  double *a = scratch, *sums = a + PANEL_ROWS * g->k, *y = sums + PANEL_ROWS * g->n,
         *sb_of_col = y + PANEL_ROWS * g->n;
  decode_codes(g->a + row0 * g->k, rows * g->k, job->table, a);
  memset(y, 0, (size_t)(rows * g->n) * sizeof *y);
  for (int64_t block = 0; block < kb; block++) {
    int64_t k0 = block * g->qk;
    for (int64_t j = 0; j < g->n; j++) sb_of_col[j] = g->sb[(j / g->qn) * kb + block];
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (blasint)rows, (blasint)g->n, (blasint)g->qk, 1.0,
                a + k0, (blasint)g->k, job->b + k0, (blasint)g->k, 0.0, sums, (blasint)g->n);
    add_block(g, row0, rows, block, sb_of_col, sums, y);
  }
  for (int64_t e = 0; e < rows * g->n; e++) g->out[row0 * g->n + e] = khost__bf16_encode(y[e]);
}

static void gemm_rows(void *arg, int worker, int64_t begin, int64_t end)
{
  const gemm_job *job = arg;
  for (int64_t row0 = begin; row0 < end; row0 += PANEL_ROWS)
    gemm_panel(job, job->scratch[worker], row0, end - row0 < PANEL_ROWS ? end - row0 : PANEL_ROWS);
}

/* Each worker's scratch, or KHOST_STATUS_INTERNAL when memory runs out. */
static int alloc_scratch(const khost__fp8_gemm *g, int workers, double **scratch)
{
  size_t doubles = (size_t)(PANEL_ROWS * g->k + 2 * PANEL_ROWS * g->n + g->n);
  for (int w = 0; w < workers; w++)
    if (!(scratch[w] = malloc(doubles * sizeof(double)))) return KHOST_STATUS_INTERNAL;
  return KHOST_STATUS_OK;
}

/* OpenBLAS runs single-threaded inside each of the call's workers, which split
 * the rows: its own threads would spin beside them, and no order of a row's sums
 * changes with the split. */
static int run(const khost_input *in)
{
  khost__fp8_gemm g;
  int status = khost__fp8_gemm_open(in, KHOST_DEVICE_CPU, &g);
  if (status != KHOST_STATUS_OK) return status;
  int workers = khost__parallel_workers(g.m, khost__reference_threads(in));
  double table[256], *scratch[KHOST__MAX_THREADS] = {0};
  for (int v = 0; v < 256; v++) table[v] = khost__e4m3_decode((uint8_t)v);
  gemm_job job = {&g, malloc((size_t)(g.n * g.k) * sizeof(double)), table, scratch};
  if (!job.b || alloc_scratch(&g, workers, scratch) != KHOST_STATUS_OK) {
    status =
        khost__input_fail(in, KHOST_STATUS_INTERNAL, "out of memory for the decoded b (n*k = %lld doubles)",
                          (long long)(g.n * g.k));
    goto out;
  }
  openblas_set_num_threads(1);
  decode_codes(g.b, g.n * g.k, table, job.b);
  khost__parallel_rows(g.m, khost__reference_threads(in), gemm_rows, &job);
out:
  for (int w = 0; w < workers; w++) free(scratch[w]);
  free(job.b);
  return status;
}

const khost_kernel khost__reference_fp8_block_gemm = {
    .struct_size = sizeof(khost_kernel),
    .op = "fp8_block_gemm",
    .device_type = KHOST_DEVICE_CPU,
    .run = run,
};

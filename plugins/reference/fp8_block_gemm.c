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
 * Large cases: the rows are taken in panels so that the output's doubles stay
 * small; b is decoded to doubles once (n * k * 8 bytes). OpenBLAS runs with the
 * call's threads; the scaling pass splits the panel's rows among them too. */
#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "formats.h"
#include "fp8_block_gemm.h"
#include "khost/ops/fp8_block_gemm.h"
#include "parallel.h"
#include "reference.h"

#define PANEL_ROWS 256 /* rows of a per pass: its output doubles are 2 KiB * n */

typedef struct panel_job {
  const khost__fp8_gemm *g;
  int64_t row0, kb, block; /* the panel's first row, blocks along k, the block being added */
  const double *sums;      /* P_block for the panel [rows][n] */
  double *y;               /* the panel's sums so far [rows][n] */
} panel_job;

static void decode_codes(const uint8_t *codes, int64_t count, const double *table, double *out)
{
  for (int64_t e = 0; e < count; e++) out[e] = table[codes[e]];
}

/* y += (sa * sb) * P for rows [begin, end) of the panel. */
static void add_block(void *arg, int worker, int64_t begin, int64_t end)
{
  (void)worker;
  const panel_job *job = arg;
  const khost__fp8_gemm *g = job->g;
  for (int64_t r = begin; r < end; r++) {
    double sa = g->sa[((job->row0 + r) / g->qm) * job->kb + job->block];
    const double *p = job->sums + r * g->n;
    double *y = job->y + r * g->n;
    for (int64_t j = 0; j < g->n; j++) y[j] += sa * (double)g->sb[(j / g->qn) * job->kb + job->block] * p[j];
  }
}

static void store_rows(const khost__fp8_gemm *g, int64_t row0, int64_t rows, const double *y)
{
  for (int64_t e = 0; e < rows * g->n; e++) g->out[row0 * g->n + e] = khost__bf16_encode(y[e]);
}

/* One panel of rows [row0, row0 + rows): a's rows decoded, each block's code sums by
 * dgemm, added in block order. */
static void gemm_panel(const khost__fp8_gemm *g, const double *b, const double *table, int64_t row0,
                       int64_t rows, int threads, double *a, double *sums, double *y)
{
  panel_job job = {g, row0, g->k / g->qk, 0, sums, y};
  decode_codes(g->a + row0 * g->k, rows * g->k, table, a);
  memset(y, 0, (size_t)(rows * g->n) * sizeof *y);
  for (job.block = 0; job.block < job.kb; job.block++) {
    int64_t k0 = job.block * g->qk;
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (blasint)rows, (blasint)g->n, (blasint)g->qk, 1.0,
                a + k0, (blasint)g->k, b + k0, (blasint)g->k, 0.0, sums, (blasint)g->n);
    khost__reference_parallel(rows, threads, add_block, &job);
  }
  store_rows(g, row0, rows, y);
}

static int run(const khost_input *in)
{
  khost__fp8_gemm g;
  int status = khost__fp8_gemm_open(in, KHOST_DEVICE_CPU, &g);
  if (status != KHOST_STATUS_OK) return status;
  int threads = khost__reference_threads(in);
  int64_t panel = g.m < PANEL_ROWS ? g.m : PANEL_ROWS;
  double table[256];
  for (int v = 0; v < 256; v++) table[v] = khost__e4m3_decode((uint8_t)v);
  double *b = malloc((size_t)(g.n * g.k) * sizeof *b);
  double *a = malloc((size_t)(panel * g.k) * sizeof *a);
  double *sums = malloc((size_t)(panel * g.n) * sizeof *sums);
  double *y = malloc((size_t)(panel * g.n) * sizeof *y);
  if (!b || !a || !sums || !y) {
    status =
        khost__input_fail(in, KHOST_STATUS_INTERNAL, "out of memory for the decoded b (n*k = %lld doubles)",
                          (long long)(g.n * g.k));
    goto out;
  }
  openblas_set_num_threads(threads);
  decode_codes(g.b, g.n * g.k, table, b);
  for (int64_t row0 = 0; row0 < g.m; row0 += panel)
    gemm_panel(&g, b, table, row0, g.m - row0 < panel ? g.m - row0 : panel, threads, a, sums, y);
out:
  free(y);
  free(sums);
  free(a);
  free(b);
  return status;
}

const khost_kernel khost__reference_fp8_block_gemm = {
    .struct_size = sizeof(khost_kernel),
    .op = "fp8_block_gemm",
    .device_type = KHOST_DEVICE_CPU,
    .run = run,
};

/* nvfp4_gemv on the CPU, exact: the oracle the GPU kernels are checked against.
 *
 * Why the sum is exact: every e2m1 value is an integer multiple of 1/2 with
 * magnitude <= 6 and every finite e4m3 value an integer multiple of 2^-9 with
 * magnitude <= 448. With a = A/2, v = V/2, sfa = SA/2^9 and sfv = SV/2^9 the row is
 *   c = 2^-20 * sum_blocks SA*SV * sum_{16 j of the block} A_j*V_j
 * where the 16 products of a block share both scales. |A_j*V_j| <= 144, so a block
 * sums to at most 2304 in magnitude (12 bits); SA*SV < 2^35.7, so one block term
 * stays below 2^46.8. A segment of 16 blocks sums exactly in int64 (< 2^50.8), and
 * the row's segments in 128 bits: k < 2^31 gives under 2^27 blocks, below 2^74, so
 * the whole sum is exact for every k the op allows (int64 alone would overflow past
 * k = 2^20). Summing the same terms in double would be exact only while the terms'
 * exponent spread fits 53 bits, which extreme scale pairs over long rows can break;
 * integers are exact for every input and vectorise well.
 *
 * The sum is then rounded once to fp16 (RNE). Its conversion to double is exact
 * whenever the result is finite: a sum needing more than 53 bits is at least
 * 2^53 units = 2^33, far past fp16's largest finite value (65504), and becomes
 * +-inf whichever way the double rounded. A NaN scale (e4m3 0x7f/0xff) makes the
 * output NaN, as the fp64 formula would; an exact zero sum gives +0.
 *
 * Both this kernel and the CUDA one (cuda/nvfp4_gemv.cu) validate the call with
 * khost__gemv_open (plugins/common), so both accept and refuse the same calls. */
#include <math.h>
#include <stdlib.h>

#include "formats.h"
#include "khost/ops/nvfp4_gemv.h"
#include "nvfp4_gemv.h"
#include "parallel.h"
#include "reference.h"

enum {
  E2M1_UNIT_LOG2 = 1, /* e2m1 values in units of 2^-1 */
  E4M3_UNIT_LOG2 = 9, /* e4m3 values in units of 2^-9 */
  SUM_UNIT_LOG2 = 2 * E2M1_UNIT_LOG2 + 2 * E4M3_UNIT_LOG2,
  BLOCK = 16, /* elements sharing one scale */
  CHUNK = 256 /* elements decoded at a time (a multiple of BLOCK); its sum fits int64 */
};

/* A row's exact sum (see above); GCC and Clang provide the type on every 64-bit target. */
__extension__ typedef __int128 row_sum;

/* Decoded forms of the two formats, built from core/formats.c for each call. */
typedef struct gemv_tables {
  int8_t pair[256][2];    /* packed byte -> its two e2m1 values in halves, low nibble first */
  int64_t scale[256];     /* e4m3 code -> value in units of 2^-9; 0 for the NaN codes */
  uint8_t scale_nan[256]; /* 1 for the NaN codes */
} gemv_tables;

/* The vector side of every batch, decoded once before the rows are split. Owned by the call. */
typedef struct vector_side {
  int8_t *v;        /* [l][k] e2m1 values in halves */
  int64_t *sv;      /* [l][k/16] scales in units of 2^-9 */
  uint8_t *has_nan; /* [l] 1 when a scale of that batch's vector is NaN */
} vector_side;

typedef struct gemv_job {
  int64_t m, k;
  const uint8_t *a, *sfa;
  vector_side vec;
  const gemv_tables *tables;
  uint16_t *c;
} gemv_job;

static void build_tables(gemv_tables *t)
{
  for (int byte = 0; byte < 256; byte++) {
    t->pair[byte][0] = (int8_t)ldexpf(khost__e2m1_decode((uint8_t)(byte & 0xf)), E2M1_UNIT_LOG2);
    t->pair[byte][1] = (int8_t)ldexpf(khost__e2m1_decode((uint8_t)(byte >> 4)), E2M1_UNIT_LOG2);
    float scale = khost__e4m3_decode((uint8_t)byte);
    t->scale_nan[byte] = isnan(scale);
    t->scale[byte] = isnan(scale) ? 0 : (int64_t)ldexpf(scale, E4M3_UNIT_LOG2);
  }
}

static int decode_vector(const gemv_tables *t, const uint8_t *v, const uint8_t *sfv, int64_t k, int64_t l,
                         vector_side *out)
{
  int64_t blocks = k / BLOCK;
  out->v = malloc((size_t)(l * k));
  out->sv = malloc((size_t)(l * blocks) * sizeof *out->sv);
  out->has_nan = calloc((size_t)l, 1);
  if (!out->v || !out->sv || !out->has_nan) return KHOST_STATUS_INTERNAL;
  for (int64_t byte = 0; byte < l * k / 2; byte++) {
    out->v[2 * byte] = t->pair[v[byte]][0];
    out->v[2 * byte + 1] = t->pair[v[byte]][1];
  }
  for (int64_t s = 0; s < l * blocks; s++) {
    out->sv[s] = t->scale[sfv[s]];
    out->has_nan[s / blocks] |= t->scale_nan[sfv[s]];
  }
  return KHOST_STATUS_OK;
}

static void free_vector(vector_side *vec)
{
  free(vec->has_nan);
  free(vec->sv);
  free(vec->v);
}

/* Adds the blocks of a row segment of up to CHUNK elements to *sum. The segment's a
 * codes are decoded in one pass before any product is taken: decoding a block
 * right before its products makes the wide loads wait on the narrow stores. */
static void add_segment(const gemv_tables *t, const uint8_t *a, const uint8_t *sa, const int8_t *v,
                        const int64_t *sv, int64_t elements, row_sum *sum, uint8_t *has_nan)
{
  int64_t segment = 0;
  int8_t values[CHUNK];
  for (int64_t byte = 0; byte < elements / 2; byte++) {
    values[2 * byte] = t->pair[a[byte]][0];
    values[2 * byte + 1] = t->pair[a[byte]][1];
  }
  for (int64_t blk = 0; blk < elements / BLOCK; blk++) {
    int32_t block_sum = 0; /* units of 2^-2, exact */
    for (int j = 0; j < BLOCK; j++) block_sum += values[blk * BLOCK + j] * v[blk * BLOCK + j];
    segment += block_sum * t->scale[sa[blk]] * sv[blk];
    *has_nan |= t->scale_nan[sa[blk]];
  }
  *sum += segment;
}

static void gemv_rows(void *arg, int worker, int64_t begin, int64_t end)
{
  const gemv_job *job = arg;
  const gemv_tables *t = job->tables;
  int64_t blocks = job->k / BLOCK;
  for (int64_t row = begin; row < end; row++) { /* row = batch * m + i */
    int64_t batch = row / job->m;
    const uint8_t *a = job->a + row * (job->k / 2);
    const uint8_t *sa = job->sfa + row * blocks;
    const int8_t *v = job->vec.v + batch * job->k;
    const int64_t *sv = job->vec.sv + batch * blocks;
    row_sum sum = 0;
    uint8_t has_nan = job->vec.has_nan[batch];
    for (int64_t j = 0; j < job->k; j += CHUNK) {
      int64_t elements = job->k - j < CHUNK ? job->k - j : CHUNK;
      add_segment(t, a + j / 2, sa + j / BLOCK, v + j, sv + j / BLOCK, elements, &sum, &has_nan);
    }
    job->c[row] = khost__fp16_encode(has_nan ? (double)NAN : ldexp((double)sum, -SUM_UNIT_LOG2));
  }
}

static int run(const khost_input *in)
{
  khost__gemv gemv;
  int status = khost__gemv_open(in, KHOST_DEVICE_CPU, INT64_MAX, &gemv);
  if (status != KHOST_STATUS_OK) return status;

  gemv_tables tables;
  build_tables(&tables);
  gemv_job job = {
      .m = gemv.m,
      .k = gemv.k,
      .a = gemv.a,
      .sfa = gemv.sfa,
      .tables = &tables,
      .c = gemv.c,
  };
  status = decode_vector(&tables, gemv.v, gemv.sfv, gemv.k, gemv.l, &job.vec);
  if (status != KHOST_STATUS_OK) {
    status = khost__input_fail(in, status, "out of memory decoding the vector (l*k = %lld)",
                               (long long)(gemv.l * gemv.k));
    goto out;
  }
  khost__parallel_rows(gemv.l * gemv.m, khost__reference_threads(in), gemv_rows, &job);
out:
  free_vector(&job.vec);
  return status;
}

const khost_kernel khost__reference_nvfp4_gemv = {
    .struct_size = sizeof(khost_kernel),
    .op = "nvfp4_gemv",
    .device_type = KHOST_DEVICE_CPU,
    .run = run,
};

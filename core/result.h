/* One row of the comparison: what one backend did on one case. Plain values,
 * fixed size, so that a worker process can send its part through a pipe as bytes. */
#ifndef KHOST_RESULT_H
#define KHOST_RESULT_H

#include <stdarg.h>
#include <stdint.h>

#include "khost/plugin.h"

typedef enum {
  KHOST__ROW_PASS,
  KHOST__ROW_FAIL,    /* wrong answer (or a guard tripped by a wrong write) */
  KHOST__ROW_SKIP,    /* declined by supports(), or its device is absent; reason given */
  KHOST__ROW_ERROR,   /* kernel returned an error, mutated inputs, used another stream, ... */
  KHOST__ROW_CRASH,   /* the worker died by a signal or exit() during this backend's call */
  KHOST__ROW_TIMEOUT, /* the worker exceeded --timeout during this backend's call */
  KHOST__ROW_STATUS_COUNT
} khost__row_status;

#define KHOST__MAX_MISMATCHES 5
#define KHOST__VARIANT_SIZE   64 /* bytes of an implementation's name, NUL included */

/* A mismatch at a flat output index, with the op's own coordinates rendered. */
typedef struct khost__mismatch {
  uint64_t index;
  char where[96]; /* "c[batch=3, row=17]" */
  double got, expected;
} khost__mismatch;

/* Error statistics of one output against the reference. */
typedef struct khost__check_stats {
  uint64_t count; /* elements compared */
  uint64_t
      mismatches; /* elements failing |got-ref| > atol + rtol*|ref| (+ the op's bound) or NaN/Inf status */
  uint64_t unwritten; /* elements still holding the poison pattern */
  double max_abs, max_rel, mean_abs;
  double max_mixed; /* the largest |got-ref| / (|ref| + 1e-8) where |ref| > 1e-6, else |got-ref| */
  int nshown;
  khost__mismatch shown[KHOST__MAX_MISMATCHES];
} khost__check_stats;

/* Timing summary of one row (seconds). samples == 0 when not timed. */
typedef struct khost__timing {
  uint32_t samples;
  double median, mean, min, max, stddev;
  double noise;       /* relative standard error of the mean, in percent; NaN (as stddev) for one sample */
  double sm_mhz;      /* median SM clock of the kept samples; 0 when unknown (CPU) */
  uint32_t throttled; /* samples discarded for an SM clock under the --throttle floor */
  double sm_mhz_min;  /* the lowest SM clock of the kept samples; 0 when unknown */
} khost__timing;

/* Which case and backend the row is about, with what follows from the case alone:
 * the op's counts and the tolerances in force. The parent's (runner.c): being the
 * same for every backend of the case and known before any worker starts, they
 * come from the catalog, not from the worker (which checks against the same case). */
typedef struct khost__row_id {
  char case_name[64];
  char op[32];
  char params[128];                        /* the case's parameters as "m=128 k=4096 l=1" */
  char backend[KHOST_PLUGIN_NAME_MAX + 1]; /* plugin name */
  char device[8];                          /* "cpu" or "cuda" */
  double flops, bytes;                     /* the op's counts for this case */
  double atol, rtol;
  int case_index;        /* the case's place among its suite file's cases, from 0 */
  int device_ordinal;    /* the CUDA ordinal the case's worker was given (--device, or its --devices entry) */
  char device_name[128]; /* a cuda row's GPU ("NVIDIA H100 80GB HBM3"), "" otherwise */
  char device_uuid[48];  /* a cuda row's GPU, as nvidia-smi -L prints it, "" otherwise */
} khost__row_id;

/* What the worker measured: the only part of a row that crosses the pipe. */
typedef struct khost__measurement {
  khost__row_status status;
  char message[512];                 /* reason for SKIP/ERROR/CRASH/TIMEOUT/FAIL, else empty */
  char variant[KHOST__VARIANT_SIZE]; /* the implementation the kernel named (describe()), else empty;
                                        the parent keeps the one its phase messages announce */
  khost__check_stats check;
  khost__timing time;
  double call_overhead_s; /* the kernel's call_overhead(), 0 when it gives none */
  int dump_incomplete;    /* --dump could not write a file of this row: its outputs, or the case's inputs */
  int graph_not_applied;  /* --graph N was asked, but the kernel cannot be captured: timed call by call */
} khost__measurement;

/* What the parent (runner.c) derives once the case is over, from the measurement,
 * the case's counts, the measured peak and the case's baseline row. */
typedef struct khost__derived {
  double gbps, tflops;  /* from the median; 0 when not timed */
  double peak_fraction; /* of the measured peak bandwidth (GPU), 0 when unknown */
  double speedup;       /* baseline median / this median; 0 when not comparable */
  int is_baseline;
} khost__derived;

/* One row of the comparison: what one backend did on one case, in three parts
 * with one owner each. */
typedef struct khost__row {
  khost__row_id id;
  khost__measurement measured;
  khost__derived derived;
} khost__row;

const char *khost__row_status_name(khost__row_status s); /* "PASS", ... */

/* 1 for a status that fails the run (exit status 1): all but PASS and SKIP. */
int khost__row_status_fails(khost__row_status s);

/* Settles a measurement: its status, and its message from fmt (truncated to the
 * message's size). The worker's phases and the parent's blame both settle rows
 * this way; each keeps its own record of which rows are settled. */
void khost__measurement_settle(khost__measurement *m, khost__row_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void khost__measurement_vsettle(khost__measurement *m, khost__row_status status, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

#endif

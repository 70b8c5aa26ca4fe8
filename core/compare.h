/* Two runs compared row by row: each row timed in both, by its medians and the
 * noise of both, and each row that passed in the base run and does not pass in
 * the other (docs/REPORTS.md, "Comparing two runs"). `khost compare` prints it,
 * `khost report RUN BASE` draws it. */
#ifndef KHOST_COMPARE_H
#define KHOST_COMPARE_H

#include "error.h"
#include "report_read.h"

typedef struct khost__compare_options {
  double min_us;        /* rows whose shorter median is under this many microseconds are left out */
  double tolerance_pct; /* a difference larger than this (and than the noise) is a change */
} khost__compare_options;

typedef enum { KHOST__SAME, KHOST__FAST, KHOST__SLOW } khost__verdict;

/* A row's identity in both runs. Strings are borrowed from the reports. */
typedef struct khost__row_key {
  const char *case_name, *backend, *device;
} khost__row_key;

/* One row timed in both runs. */
typedef struct khost__compared {
  khost__row_key key;
  const json_t *base_row, *run_row;       /* borrowed */
  double base_s, run_s;                   /* the medians */
  double diff_pct;                        /* 100 * (run - base) / base */
  double limit_pct;                       /* the larger of the tolerance and twice the larger noise_pct */
  khost__verdict verdict;                 /* SAME within limit_pct, else SLOW or FAST */
  int beyond_tolerance;                   /* |diff_pct| > tolerance, whatever the noise */
  const char *base_variant, *run_variant; /* both set only when the kernel named two variants */
  double base_mhz, run_mhz;               /* both set (not 0) only when the SM clock moved by over 1% */
  const char *base_timer, *run_timer;     /* both set only when another timer made each median */
  double base_sol, run_sol;               /* each run's sol_fraction (%sol), 0 when it has none */
} khost__compared;

/* A row that passed in the base run and, in the other, did not pass or is missing. */
typedef struct khost__lost {
  khost__row_key key;
  const char *status;  /* the run's status, or "missing" */
  const char *message; /* the run's message; "" when missing */
} khost__lost;

/* Owned by the caller; khost__comparison_free releases it. Both lists are in
 * the order of their keys (case, backend, device; byte order). */
typedef struct khost__comparison {
  khost__compared *rows;
  int nrows;
  khost__lost *lost;
  int nlost;
  int beyond;       /* rows with beyond_tolerance */
  double worst_pct; /* the largest |diff_pct|, 0 when none */
} khost__comparison;

/* Compares run against base (both borrowed, and borrowed by out). A key found
 * twice in one report is its last row. KHOST__E_NOMEM leaves out empty. */
int khost__compare(const khost__report_doc *run, const khost__report_doc *base,
                   const khost__compare_options *o, khost__comparison *out, khost__err *err);

void khost__comparison_free(khost__comparison *c);

/* "SAME", "FAST" or "SLOW". */
const char *khost__verdict_name(khost__verdict v);

#endif

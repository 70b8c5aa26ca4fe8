/* What every reporter (table, JSON, CSV) shares: the description of the run and
 * machine printed above the rows, the summary computed from the rows (summary.c),
 * and the rendering of durations (result.c, next to the row it reads). */
#ifndef KHOST_REPORT_H
#define KHOST_REPORT_H

#include <stddef.h>

#include "cuda.h"
#include "devices.h"
#include "error.h"
#include "result.h"

/* One device of a run, as it measured itself. Plain value; zero numbers and
 * empty names mean unknown (a CPU lane of --devices, a GPU that did not come up). */
typedef struct khost__run_device {
  char name[128];         /* as khost__run_info's device: "NAME (sm_XY)" */
  khost__device_info gpu; /* as its worker sent it: ordinal, uuid, its own peak_gbps and empty_call_s */
} khost__run_device;

/* The run and the machine it ran on. Plain value owned by the caller; empty
 * strings and zero numbers mean "unknown" and are left out of the reports. */
typedef struct khost__run_info {
  char khost_version[32];
  char host[128];
  char cpu[128];
  int ncpus;
  char device[128]; /* GPU name, "" when the run has no GPU */
  int sm_count;
  size_t l2_bytes;
  int sm_clock_mhz, mem_clock_mhz;
  double peak_gbps;              /* measured device copy bandwidth, 0 when not measured */
  int cuda_driver, cuda_runtime; /* CUDA versions as 1000 * major + 10 * minor, 0 when unknown */
  char suite[4096];              /* the suite file's path, whole (as khost__suite holds it) */
  char command[1024];
  char date[32];                    /* ISO 8601 */
  double empty_call_s;              /* an empty kernel timed as the run's calls are, 0 when not measured */
  char timer[8];                    /* --timer: what times the CUDA samples, "events" or "cupti" */
  double peak_tflops[KHOST__PEAKS]; /* measured matrix peaks by input type (core/matrix_peak.h), 0: none */
  char baseline[288];           /* what speedups are relative to: --baseline NAME[:DEV], else the reference */
  int shard_index, shard_count; /* --shard I/N; shard_count 0 when the run is not a shard */
  int shard_cases, selected_cases; /* of a shard: the cases it ran, of the selection it is a part of */
  int merged_shards;               /* khost merge: the shard reports merged; 0 for a run's own report */
  /* Every device of the run: the GPU a plain run brought up (none without one),
   * each entry of --devices in its order, a merge's shards' devices. The
   * single-device fields above (device .. empty_call_s) repeat the first that
   * came up, for readers of reports from before --devices. */
  int ndevices;
  khost__run_device devices[KHOST__DEVICES_MAX];
} khost__run_info;

#define KHOST__SUMMARY_MAX_BACKENDS 64

/* One backend (plugin and device) across all cases. */
typedef struct khost__backend_summary {
  char name[64];
  char device[8];         /* a plugin's CPU and CUDA kernels are summarised apart */
  int speedup_cases;      /* PASS rows with a speedup */
  double geomean_speedup; /* over those rows; 0 when there is none */
  int wins;               /* cases where this backend was the fastest PASS */
} khost__backend_summary;

/* Totals over a set of rows. Plain value. */
typedef struct khost__summary {
  int nrows;
  int by_status[KHOST__ROW_STATUS_COUNT];
  int nbackends;
  khost__backend_summary backends[KHOST__SUMMARY_MAX_BACKENDS]; /* in order of first appearance */
  int rows_omitted; /* rows of backends beyond the first KHOST__SUMMARY_MAX_BACKENDS: in by_status only */
} khost__summary;

/* A summary built one row at a time, for a report that grows row by row and must
 * not go over every row again for each new one. Owned by the caller: init, add,
 * free. */
typedef struct khost__summary_builder {
  khost__summary summary; /* the totals of the rows added so far */
  double log_speedup_sum[KHOST__SUMMARY_MAX_BACKENDS];
  struct khost__case_best *cases; /* each case's fastest timed PASS row so far, by case name */
  size_t ncases, capacity;
} khost__summary_builder;

void khost__summary_builder_init(khost__summary_builder *b);

/* Adds row (borrowed) to b->summary, at a cost that does not grow with the rows
 * added before. Cases are told apart by case_name, so rows of one case need not
 * be adjacent. A speedup counts only on a PASS row: a fast wrong answer is no
 * speedup. KHOST__E_NOMEM leaves b as it was. */
int khost__summary_builder_add(khost__summary_builder *b, const khost__row *row);

void khost__summary_builder_free(khost__summary_builder *b);

/* Fills out from rows (borrowed), as adding each to a builder does: 0, or
 * KHOST__E_NOMEM. */
int khost__summarize(const khost__row *rows, int nrows, khost__summary *out);

/* 1 when no row before rows[i] belongs to its case: the row that opens the case. */
int khost__row_opens_case(const khost__row *rows, int i);

/* Writes seconds as "812.50 ns", "12.34 us", "1.50 ms" or "2.00 s" into buf
 * (caller-owned, truncated to size); "-" when not positive or not finite. */
void khost__format_seconds(double seconds, char *buf, size_t size);

#endif

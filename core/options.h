/* What the command line asked for. Filled by khost__cli_parse; strings point
 * into argv (or are static defaults) and live as long as argv. */
#ifndef KHOST_OPTIONS_H
#define KHOST_OPTIONS_H

#include <sys/types.h>

#include "devices.h"
#include "shard.h"

#define KHOST__MAX_PATHS 32

/* --timer: what measures a CUDA sample. */
typedef enum {
  KHOST__TIMER_EVENTS, /* CUDA events around the calls (the default) */
  KHOST__TIMER_CUPTI,  /* the span of the calls' kernels, copies and memsets in CUPTI's records */
} khost__timer_kind;

/* The timer's name as --timer takes it and the reports write it. */
static inline const char *khost__timer_name(khost__timer_kind t)
{
  return t == KHOST__TIMER_CUPTI ? "cupti" : "events";
}

typedef struct khost__options {
  const char *suite;     /* name or path; "smoke" by default */
  const char *ops;       /* --op: comma-separated filter or NULL */
  const char *cases;     /* --case: comma-separated filter or NULL */
  const char *backends;  /* --backends: comma-separated plugin names or NULL (all) */
  const char *baseline;  /* --baseline NAME[:cpu|cuda] or NULL (reference, on the GPU when there is one) */
  const char *reference; /* --reference: the oracle plugin, "reference" */
  const char *json, *csv, *junit, *dump;
  const char *plugin_dirs[KHOST__MAX_PATHS];
  int nplugin_dirs;
  const char *plugin_files[KHOST__MAX_PATHS];
  int nplugin_files;
  int list, strict, help, version;
  int quiet;               /* no progress line, no per-case lines on stderr */
  int hot;                 /* time back-to-back calls instead of flushing L2 first */
  int graph_calls;         /* --graph N: time N calls captured in one CUDA graph (0: off) */
  int no_isolate;          /* run in-process (debugging) */
  int no_blocking_kernel;  /* time without holding the stream (for profilers) */
  khost__timer_kind timer; /* --timer: events or cupti */
  int device;              /* CUDA ordinal */
  int device_given;        /* --device was on the command line (it and --devices exclude each other) */
  int spread;              /* --devices was given: the cases go over devices (lanes.h) */
  khost__devices devices;  /* --devices, as given ("all" resolved when the run starts) */
  khost__shard shard;      /* --shard: the part of the selected cases this process runs (count 0: all) */
  int threads;             /* CPU kernels' threads */
  int min_samples;
  int trials; /* --trials: checks on fresh inputs after timing, each from its own seed (1) */
  double warmup_s, min_time_s, max_noise_pct, max_time_s, timeout_s;
  double throttle_pct;      /* --throttle: samples under this % of the rated SM clock are discarded */
  const char *command_line; /* for reports; static buffer owned by cli.c */
  mode_t report_mode;       /* a new report file's: 0666 less the umask khost started with */
} khost__options;

#endif

/* NVTX ranges, so that Nsight Systems shows khost's phases and Nsight Compute
 * (ncu --nvtx --nvtx-include) selects one backend's calls. The worker's phase
 * (what it announces to the parent) is a start/end range named
 * "khost/<case>/<backend>/<phase>"; every plugin call inside it is four nested
 * push/pop ranges, khost, <case>, <backend>, <phase>, whose path ncu writes the
 * same way: --nvtx-include "khost/perf_large/cute/timing/" profiles cute's timed
 * calls on perf_large and nothing of khost's own (flush, blocker, stamps).
 * NVTX3 is header-only and costs a branch when no tool is attached; a build
 * without its header names nothing. One thread: the worker's. */
#ifndef KHOST_NVTX_H
#define KHOST_NVTX_H

#include <stddef.h>

/* The backend of khost's own phases (inputs, dump, finish). */
#define KHOST__NVTX_SELF "khost"

/* The path "khost/<case>/<backend>/<phase>" into buf (n bytes, truncated to fit):
 * a '/' inside a part becomes '|', so that the path has exactly four parts
 * ("fresh check 1/2" is "fresh check 1|2"). */
void khost__nvtx_path(char *buf, size_t n, const char *case_name, const char *backend, const char *phase);

/* Ends the phase range open, if any, and opens this one; the parts are copied
 * and name the ranges of the calls made until the next phase. */
void khost__nvtx_phase(const char *case_name, const char *backend, const char *phase);

/* Ends the phase range open, if any. */
void khost__nvtx_phase_end(void);

/* Around one plugin call: pushes the current phase's four ranges, pops them. */
void khost__nvtx_call_begin(void);
void khost__nvtx_call_end(void);

#endif

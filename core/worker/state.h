/* A worker's state, shared by its phases (the files of core/worker/): the job, each
 * slot's row, prepared call, timer and flags, the case's data, the device and
 * which plugins are ready; with the helpers every phase uses. */
#ifndef KHOST_WORKER_STATE_H
#define KHOST_WORKER_STATE_H

#include <stdint.h>

#include "call.h"
#include "casedata.h"
#include "timing.h"
#include "worker.h"

typedef struct khost__worker {
  int fd; /* the pipe to the parent */
  const khost__worker_job *job;
  /* One each per slot (job->nslots): */
  khost__measurement *rows; /* the worker's part of the slot's row */
  uint8_t *active;          /* the slot passed so far and is still being measured */
  uint8_t *done;            /* its row is final */
  uint8_t *sent;            /* its final row went to the parent */
  khost__call *calls;       /* prepared by pass 1, kept until the case ends */
  khost__timer *timers;     /* from sampling to the timing summary, else NULL */
  khost__case_data data;    /* the inputs and expected outputs, from the oracle phase on */
  int inputs_undumped;      /* --dump files of the case's inputs or reference not written */
  int cuda_ready;
  khost__device_info device; /* valid when cuda_ready */
  char cuda_why[512];        /* why CUDA is not usable, when it is not */
  /* One each per registry plugin: */
  uint8_t *plugin_ready; /* 0 init() not called yet, 1 ready, 2 failed */
  char (*plugin_why)[512];
} khost__worker;

/* Tells the parent that the worker is about to run phase: slot's code, the
 * oracle's (KHOST__ORACLE_SLOT) or khost's own (KHOST__NO_SLOT). The parent
 * blames a crash or a timeout on the last phase announced. */
void khost__worker_announce(const khost__worker *w, int slot, const char *phase);

/* Tells the parent that plugin p's fini() is about to run: if the worker ends
 * before it announces anything else, that fini() did not return. */
void khost__worker_announce_fini(const khost__worker *w, int p);

/* Slot s's row is final, with status and the message from fmt. */
void khost__worker_settle(khost__worker *w, int s, khost__row_status status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Calls plugin p's init() the first time; 1 when the plugin is usable. */
int khost__worker_plugin_ready(khost__worker *w, int p);

/* After a backend's call that did not end in a passing check: the next backend
 * must see the generated inputs, not this one's damage. */
void khost__worker_restore_inputs(khost__worker *w);

/* Waits for the whole device after a call into CUDA slot s's plugin, so that a
 * fault of work the call put on another stream is blamed on this backend, not on
 * a later read of its output. 0, or an error after which the context may be
 * unusable (a sticky error). 0 at once for a CPU slot. */
int khost__worker_sync(const khost__worker *w, int s, khost__err *err);

/* Sends every final row not sent yet. */
void khost__worker_send_rows(khost__worker *w);

/* 1 when some slot is still active. */
int khost__worker_any_active(const khost__worker *w);

/* Frees the timers and their samples, if any. */
void khost__worker_free_timers(khost__worker *w);

#endif

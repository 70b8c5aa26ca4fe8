/* The worker: a child process that runs one case on a list of backends
 * (correctness, timing, fresh-input re-check) and sends each row back. The
 * parent (runner.c) attributes a crash or timeout to the backend the worker
 * announced last and starts another worker for the rest. */
#ifndef KHOST_WORKER_H
#define KHOST_WORKER_H

#include <stdint.h>

#include "catalog.h"
#include "cuda.h"
#include "loader.h"
#include "options.h"
#include "result.h"

/* One backend of a case: a plugin's kernel for the case's op on one device. */
typedef struct khost__slot {
  int plugin; /* index in the registry */
  int device_type;
} khost__slot;

#define KHOST__ORACLE_SLOT (-1)
/* Announced while the worker runs khost's own code (inputs, dumps, the end), no plugin's. */
#define KHOST__NO_SLOT (-2)
/* Announced while a plugin's fini() runs, once every row is final: the plugin
 * is named by the message, not by a slot. */
#define KHOST__FINI_SLOT (-3)

/* What a worker is asked to do. Everything is borrowed from the parent. */
typedef struct khost__worker_job {
  const khost__options *o;
  const khost__registry *reg;
  const khost__case *c;
  int nslots;
  const khost__slot *slots;
  const uint8_t *pending; /* nslots flags: run slot i when set */
  int oracle_plugin;      /* registry index of the reference plugin */
  /* What an earlier worker measured: peak_gbps and empty_call_s (0: measure it and send it). */
  const khost__device_info *known;
  /* One flag per registry plugin: its fini() failed in an earlier worker (crashed,
   * exited or hung), so this one does not call it. NULL: none did. */
  const uint8_t *fini_failed;
} khost__worker_job;

/* Messages from worker to parent. */
enum { KHOST__MSG_DEVICE = 1, KHOST__MSG_BEGIN = 2, KHOST__MSG_ROW = 3 };

/* KHOST__MSG_BEGIN: the worker is about to call into slot's code. */
typedef struct khost__begin_msg {
  int32_t slot;   /* KHOST__ORACLE_SLOT for the reference */
  int32_t plugin; /* with KHOST__FINI_SLOT: the registry index of the plugin whose fini() runs */
  char phase[32];
  char variant[KHOST__VARIANT_SIZE]; /* what the slot's kernel named once prepared, so a crash row keeps it */
} khost__begin_msg;

/* KHOST__MSG_ROW: what the worker measured on one slot, final. The row's identity
 * and derived numbers are the parent's. */
typedef struct khost__row_msg {
  int32_t slot;
  khost__measurement measured;
} khost__row_msg;

/* Any message from the worker, as the parent reads it. */
typedef union khost__worker_msg {
  khost__begin_msg begin;
  khost__row_msg row;
  khost__device_info device;
} khost__worker_msg;

/* The worker process's exit statuses, read by runner.c: khost__worker_main
 * converts its internal status to one of these. */
enum {
  KHOST__WORKER_EXIT_DONE = 0,   /* every row it could settle was sent */
  KHOST__WORKER_EXIT_FAILED = 1, /* it could not start (out of memory) */
  /* It stopped early because its CUDA context is broken (a sticky error); rows
   * it did not send are to be run again. */
  KHOST__WORKER_EXIT_RESTART = 75
};

/* The child body (khost__child_fn): job is a khost__worker_job; returns a KHOST__WORKER_EXIT_ status. */
int khost__worker_main(int fd, void *job);

#endif

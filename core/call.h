/* One kernel bound to one case's data: its output buffers (guarded, on the
 * kernel's device), its pointer tables (guarded, on the kernel's device, each
 * entry the address of a chunk of the arena the call reads or writes), its
 * workspace and the khost_input it is called with. */
#ifndef KHOST_CALL_H
#define KHOST_CALL_H

#include "casedata.h"
#include "result.h"

/* Everything a kernel is handed as read-only: the khost_input, its tensors,
 * their names, shapes and strides, the parameters and their names, and the
 * op's name. Each call has its own, so that a plugin that writes through one
 * of these const pointers damages its own call only, and the copy the view
 * was built as tells that it did and what it changed. */
typedef struct khost__call_view {
  khost_input input;
  khost_tensor tensors[2 * KHOST__MAX_TENSORS];
  khost_param params[KHOST__MAX_PARAMS];
  int64_t shapes[2 * KHOST__MAX_TENSORS][KHOST_MAX_DIMS];
  int64_t strides[2 * KHOST__MAX_TENSORS][KHOST_MAX_DIMS];
  char op[KHOST__NAME_MAX];
  char param_names[KHOST__MAX_PARAMS][KHOST__NAME_MAX];
  char tensor_names[2 * KHOST__MAX_TENSORS][KHOST__NAME_MAX];
} khost__call_view;

typedef struct khost__call {
  const khost_kernel *kernel;
  khost__case_data *data;                  /* borrowed */
  khost__buffer out[KHOST__MAX_TENSORS];   /* an arena output: its whole image */
  khost__buffer table[KHOST__MAX_TENSORS]; /* for each input that is a pointer table */
  khost__buffer workspace;
  khost__call_view view;             /* what the kernel is handed: view.input */
  khost__call_view built;            /* the view as built, compared with it after each call into the plugin */
  char error[1024];                  /* the plugin's error sink */
  char variant[KHOST__VARIANT_SIZE]; /* what describe() named, else empty */
  double call_overhead_s;            /* what call_overhead() gave, else 0 */
} khost__call;

/* Binds kernel to d: builds the input, asks supports(), the workspace size and
 * the implementation's name, allocates outputs and workspace. KHOST__E_DECLINED
 * when declined (reason in err), KHOST__E_MUTATED when one of the plugin's
 * functions wrote to what it was handed as read-only. Release with
 * khost__call_free. */
int khost__call_prepare(khost__call *k, const khost_kernel *kernel, khost__case_data *d, int num_threads,
                        int device_id, khost__err *err);

/* 1 when the kernel sets KHOST_KERNEL_NOT_CAPTURABLE: khost never captures its
 * calls in a CUDA graph. */
int khost__call_not_capturable(const khost__call *k);

/* Fills every output with the poison pattern. */
int khost__call_poison(khost__call *k, khost__err *err);

/* Calls the kernel once; returns its khost_status (message in k->error). */
int khost__call_run(khost__call *k);

/* After a finished call: the guards of output t and, for an arena, its gaps
 * (KHOST__E_GUARD naming the chunk a write outside every chunk follows), then, when
 * they are untouched, khost__call_read_output's copy of it into dst. */
int khost__call_read_checked_output(const khost__call *k, int t, void *dst, khost__err *err);

/* After a finished call: guards of outputs and inputs, gaps of arenas, input
 * hashes, pointer tables, and the outputs against d->ref. Fills stats; returns KHOST__OK, KHOST__E_GUARD or
 * KHOST__E_MUTATED with the reason in err, or another error of the host.
 * Mismatches alone are not an error: the caller reads stats. */
int khost__call_check(khost__call *k, khost__check_stats *stats, khost__err *err);

/* What a finished call may have damaged besides its outputs: the workspace's
 * guards (KHOST__E_GUARD), what it was handed as read-only (KHOST__E_MUTATED;
 * restored), its pointer tables (KHOST__E_GUARD for a guard band,
 * KHOST__E_MUTATED for an entry; restored) and the inputs (KHOST__E_MUTATED). */
int khost__call_check_side_effects(khost__call *k, khost__err *err);

/* Host copy of output t (nbytes of the output spec) into dst; an arena's
 * chunks gathered in the spec's order. */
int khost__call_read_output(const khost__call *k, int t, void *dst, khost__err *err);

/* True when no output of k holds an element: a call with nothing to write (a
 * case of nb = 0) may enqueue no work at all. */
int khost__call_writes_nothing(const khost__call *k);

/* Frees k's outputs, tables and workspace and zeroes k; the case data it points to stays. */
void khost__call_free(khost__call *k);

#endif

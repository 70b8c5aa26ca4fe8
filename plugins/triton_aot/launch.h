/* Launching a compiled variant: its module is loaded into the calling thread's
 * current context on first use and cached for the process. */
#ifndef KHOST_TRITON_LAUNCH_H
#define KHOST_TRITON_LAUNCH_H

#include <stddef.h>

#include "khost/plugin.h"
#include "select.h"
#include "variant.h"

/* Enqueues variant v on stream (a CUstream; NULL is the legacy default stream) with
 * grid[0..2] programs of v->num_warps warps, in clusters of v->cluster programs along
 * x (grid[0] must be a multiple of it). args points at the kernel's parameter
 * values in order; `expected` spells their kinds as in variant.h and must equal
 * v->args (a mismatch is KHOST_STATUS_INTERNAL, caught before any launch). An empty
 * grid launches nothing. Driver failures are KHOST_STATUS_DEVICE_ERROR with
 * "file:line: CUDA_ERROR_NAME: text" in err. */
int khost__triton_launch(const khost__triton_variant *v, const char *expected, void *const *args,
                         const unsigned int grid[3], void *stream, char *err, size_t err_size);

/* KHOST_STATUS_INVALID_ARGUMENT, with a message in in->error, when variant v needs
 * `bytes` of scratch and the call's workspace is missing, smaller or not 16-byte
 * aligned; 0 otherwise. */
int khost__triton_check_workspace(const khost_input *in, const khost__triton_variant *v, size_t bytes);

/* Stores the facts of the current context's device that rules read in *out. */
int khost__triton_device_facts(khost__triton_device *out, char *err, size_t err_size);

/* khost__triton_select for *s, with the current device's facts stored in s->device
 * first when ask_device is nonzero (for the rules that read them; supports() never asks). */
int khost__triton_select_on_device(const khost__triton_rule *rule, khost__triton_shape *s, int ask_device,
                                   const khost__triton_variant **out, char *err, size_t err_size);

/* Unloads the modules loaded in the current context, forgets all others (their
 * contexts release them), and unloads the driver. For the plugin's fini. */
void khost__triton_release(void);

#endif

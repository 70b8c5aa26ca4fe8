/* The kernel slots of the python plugin. khost calls a kernel's run(),
 * supports() and describe() with the khost_input alone, which does not say
 * which backend's kernel it is; so each slot has functions of its own (made by
 * a macro in slots.c) that call the Python kernel of their slot. A run of khost
 * can hold at most KHOST__PYTHON_SLOTS Python kernels, over all modules. */
#ifndef KHOST_PYTHON_SLOTS_H
#define KHOST_PYTHON_SLOTS_H

#include "call.h"
#include "khost/plugin.h"

#define KHOST__PYTHON_SLOTS 100

/* Slot i's Python kernel, filled when a module is loaded. */
extern khost__python_kernel khost__python_kernels[KHOST__PYTHON_SLOTS];

/* Slot i's khost_kernel: its op and device still to fill, its functions set. */
khost_kernel khost__python_slot_kernel(int i);

#endif

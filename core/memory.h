/* The host memory a worker may still take, checked before each large
 * allocation: with the kernel's memory overcommitted, an allocation too large
 * succeeds and the process is killed (SIGKILL, by the out-of-memory killer)
 * only when it writes the memory, with no word of what it needed. */
#ifndef KHOST_MEMORY_H
#define KHOST_MEMORY_H

#include <stddef.h>

#include "error.h"

/* Bytes this process can still take without swapping or meeting a limit: the
 * least of MemAvailable (/proc/meminfo), the room left under each memory
 * limit of its cgroup and the cgroups above it (v2 memory.max, v1
 * memory.limit_in_bytes; usage minus the inactive file cache, which the kernel
 * reclaims first), and the room left under RLIMIT_AS and RLIMIT_DATA.
 * SIZE_MAX when none of them can be read. */
size_t khost__memory_available(void);

/* KHOST__OK when needed <= available; else KHOST__E_NOMEM with "not enough
 * WHERE memory for WHAT: 12.0 GiB needed, 7.6 GiB available" in err. */
int khost__memory_fits(size_t needed, size_t available, const char *where, const char *what, khost__err *err);

/* khost__memory_fits for host memory, against khost__memory_available(). */
int khost__memory_check(size_t needed, const char *what, khost__err *err);

#endif

/* How many CUDA devices this host shows, asked in a child process: the
 * parent must never initialise CUDA, since it forks workers after (style.md). */
#ifndef KHOST_DEVICE_COUNT_H
#define KHOST_DEVICE_COUNT_H

#include <stddef.h>

#include "error.h"

/* *count gets the visible devices; 0 with the reason in why (n bytes) when
 * there is none, or the child could not answer within timeout_s (it is then
 * killed). KHOST__E_IO when no child could be started. */
int khost__device_count(double timeout_s, int *count, char *why, size_t n, khost__err *err);

#endif

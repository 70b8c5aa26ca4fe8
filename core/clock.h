/* The host's one wall clock: monotonic, in seconds. */
#ifndef KHOST_CLOCK_H
#define KHOST_CLOCK_H

double khost__now_s(void);

#endif

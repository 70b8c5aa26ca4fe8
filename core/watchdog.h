/* --timeout under --no-isolate. The worker runs inside khost there, where a
 * hung call cannot be killed without killing khost: a thread watches the file
 * the worker writes its messages to and, once it has not grown for --timeout
 * seconds, names the backend and phase announced last and ends khost (exit
 * status 1), as a crash there does. Only time khost runs counts: a khost
 * stopped in a debugger is not silent. */
#ifndef KHOST_WATCHDOG_H
#define KHOST_WATCHDOG_H

#include "error.h"
#include "worker.h"

typedef struct khost__watchdog khost__watchdog;

/* Starts watching fd, the worker's message file, for job->o->timeout_s. job
 * (borrowed until khost__watchdog_stop) names the backends in the message. */
int khost__watchdog_start(khost__watchdog **watchdog, int fd, const khost__worker_job *job, khost__err *err);

/* Stops the thread and frees the watchdog. */
void khost__watchdog_stop(khost__watchdog *watchdog);

#endif

/* A process that must die of a given signal, as a crashing plugin or child
 * does, whatever handler is installed for it: under the sanitizer build, ASan's
 * handler would catch a SIGSEGV and abort instead (signal 6). The test then
 * observes the signal it names, in every build and under any ASAN_OPTIONS. */
#ifndef KHOST_TEST_DIE_OF_SIGNAL_H
#define KHOST_TEST_DIE_OF_SIGNAL_H

#include <signal.h>

static inline void die_of_signal(int sig)
{
  signal(sig, SIG_DFL);
  raise(sig);
}

#endif

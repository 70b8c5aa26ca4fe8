/* The fork guard: once plugin code has run, only the process that claimed the
 * guard goes on running khost's code. A plugin may fork to exec a helper (or
 * to _exit), but a copy that returned into khost would run the rest of the
 * worker a second time, speak on its pipe and get innocent rows blamed, or,
 * under --no-isolate, run all of khost again: it is ended as plugin code
 * returns into khost, before it does anything. */
#ifndef KHOST_FORK_GUARD_H
#define KHOST_FORK_GUARD_H

/* This process runs khost's code from now on: a worker, the probe child, or
 * khost itself under --no-isolate. A process forked from it does not. */
void khost__fork_guard_claim(void);

/* What plugin code runs now (plugin name and phase), for the message of a copy
 * the guard ends. The strings are copied. */
void khost__fork_guard_note(const char *plugin, const char *phase);

/* 1 in the process that claimed the guard, or where none was claimed; 0 in a
 * process forked from it. */
int khost__fork_guard_owner(void);

/* Called where plugin code returns into khost, timed calls included: in a copy
 * fork() made of the process that claimed the guard, writes one line to stderr
 * and _exit()s. It reads a flag that fork() sets in the copy (an atfork
 * handler), so it makes no system call inside a timed region. */
void khost__fork_guard_check(void);

/* Called before a message to the parent: ends any process but the one that
 * claimed the guard, also a copy made without fork()'s handlers (_Fork, clone). */
void khost__fork_guard_check_owner(void);

#endif

/* File descriptors 0, 1 and 2. A file opened takes the lowest free number, so
 * while one of them is closed (khost started with >&- or 2>&-, or a plugin
 * closed it) the next report khost opens would take its place and receive the
 * table, the progress lines or a plugin's output. khost therefore keeps all
 * three open, and writes its own standard output through a copy of fd 1 made
 * before any plugin loads, which no plugin's close() or dup2() can move. */
#ifndef KHOST_STANDARD_FDS_H
#define KHOST_STANDARD_FDS_H

#include <stdio.h>

/* At the start of main, before any plugin loads: opens /dev/null on each of fds
 * 0-2 that is closed, then keeps a copy of each (close-on-exec). 0, or -1 with
 * errno. */
int khost__standard_fds_keep(void);

/* After plugin code ran in this process (loading, --no-isolate): reopens each
 * of fds 0-2 that is closed now on the copy kept at the start, so that no file
 * khost opens next can take its number. Nothing to do before a keep. */
void khost__standard_fds_restore(void);

/* Where khost prints once plugins are loaded (the table, --list): a stream on
 * the copy of fd 1 kept at the start, wherever fd 1 points now. stdout is
 * flushed first, so that what it holds comes out before. stdout until kept. */
FILE *khost__standard_output(void);

#endif

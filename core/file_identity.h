/* Which file a path names, so that two paths the user gave can be compared as
 * files and not as strings ("r.json" and "./r.json", or a link and its target). */
#ifndef KHOST_FILE_IDENTITY_H
#define KHOST_FILE_IDENTITY_H

#include "error.h"

/* 1 when a and b name the same file: one device and inode where the path
 * exists, one folder (device and inode) and name where it does not exist yet;
 * when a folder is missing too, the same string. */
int khost__same_file(const char *a, const char *b);

/* An output file named by a flag ("--json"); path NULL when not given. */
typedef struct khost__output_flag {
  const char *flag, *path;
} khost__output_flag;

/* KHOST__E_CONFIG when two of the n outputs name one file (khost__same_file),
 * or one names an input (inputs[0..ninputs)): one would replace the other.
 * The message names both flags, or the flag and the input, and the path. */
int khost__outputs_distinct(const khost__output_flag *outputs, int n, const char *const *inputs, int ninputs,
                            khost__err *err);

#endif

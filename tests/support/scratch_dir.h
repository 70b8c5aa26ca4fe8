/* Test support: a folder of one test's own under /tmp, made by scratch_dir_make
 * and removed with the files in it by scratch_dir_remove (a TestSuite's .init
 * and .fini), and paths in it. */
#ifndef KHOST_TEST_SCRATCH_DIR_H
#define KHOST_TEST_SCRATCH_DIR_H

#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char scratch_dir[64];

static inline void scratch_dir_make(void)
{
  snprintf(scratch_dir, sizeof scratch_dir, "/tmp/khost-test-XXXXXX");
  cr_assert_not_null(mkdtemp(scratch_dir));
}

/* name inside the folder, in a buffer of the caller's. */
static inline const char *scratch_dir_path(char *buf, size_t size, const char *name)
{
  snprintf(buf, size, "%s/%s", scratch_dir, name);
  return buf;
}

static inline void scratch_dir_remove(void)
{
  DIR *d = opendir(scratch_dir);
  for (struct dirent *e; d && (e = readdir(d));) {
    char entry[sizeof scratch_dir + 260];
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
      unlink(scratch_dir_path(entry, sizeof entry, e->d_name));
  }
  if (d) closedir(d);
  rmdir(scratch_dir);
}

/* The names in the folder but those given (NULL-terminated). */
static inline int scratch_dir_others(const char *const *known)
{
  int n = 0;
  DIR *d = opendir(scratch_dir);
  for (struct dirent *e; d && (e = readdir(d));) {
    int ok = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
    for (int i = 0; known[i] && !ok; i++) ok = !strcmp(e->d_name, known[i]);
    n += !ok;
  }
  if (d) closedir(d);
  return n;
}

#endif

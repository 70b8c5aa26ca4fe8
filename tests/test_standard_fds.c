/* fds 0-2: kept open from the start, reopened where they were when a plugin
 * closes one, and khost's own output out of any plugin's reach. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "standard_fds.h"

/* A fresh temporary file on fd `at`; its name into name. */
static void file_on(int at, char *name)
{
  strcpy(name, "/tmp/khost-fds-XXXXXX");
  int fd = mkstemp(name);
  cr_assert_geq(fd, 0);
  cr_assert_eq(dup2(fd, at), at);
  close(fd);
}

static int same_file(int fd, const char *path)
{
  struct stat a, b;
  return fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino &&
         a.st_rdev == b.st_rdev;
}

static char *read_text(const char *path)
{
  static char text[256];
  FILE *f = fopen(path, "r");
  size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
  if (f) fclose(f);
  text[n] = '\0';
  return text;
}

Test(standard_fds, a_closed_fd_is_kept_on_dev_null_so_that_no_file_takes_its_number)
{
  close(1);
  cr_assert_eq(khost__standard_fds_keep(), 0);
  cr_expect(same_file(1, "/dev/null"), "fd 1 on /dev/null");
  int next = open("/dev/zero", O_RDONLY);
  cr_expect_gt(next, 2, "a file opened next takes fd %d", next);
}

Test(standard_fds, an_fd_a_plugin_closes_is_reopened_where_it_was)
{
  char err_file[32];
  file_on(2, err_file);
  cr_assert_eq(khost__standard_fds_keep(), 0);
  close(2);
  khost__standard_fds_restore();
  cr_expect(same_file(2, err_file), "fd 2 back on the file it was on at the start");
  unlink(err_file);
}

Test(standard_fds, khost_output_goes_where_fd_1_was_at_the_start)
{
  char out_file[32], taker[32];
  file_on(1, out_file);
  cr_assert_eq(khost__standard_fds_keep(), 0);
  /* A plugin moves fd 1 onto a file of its own. */
  file_on(1, taker);
  FILE *out = khost__standard_output();
  fputs("the table\n", out);
  cr_assert_eq(fflush(out), 0);
  cr_expect_str_eq(read_text(out_file), "the table\n");
  cr_expect_str_eq(read_text(taker), "");
  unlink(out_file);
  unlink(taker);
}

/* Tests for core/report_file.c: a new report is made under a unique name in its
 * folder and renamed into place, with the mode asked for; it then changes in
 * place, never shrinking, and a failed write puts back what was there. */
#include <criterion/criterion.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report_file.h"
#include "support/scratch_dir.h"

static char path[128];

static void make_dir(void)
{
  scratch_dir_make();
  scratch_dir_path(path, sizeof path, "r.json");
}

TestSuite(report_file, .init = make_dir, .fini = scratch_dir_remove);

static void open_ok(khost__report_file *f, mode_t mode)
{
  khost__err err = {{0}};
  cr_assert_eq(khost__report_file_open(f, "test report", path, mode, &err), KHOST__OK, "%s", err.msg);
}

static void publish_ok(khost__report_file *f, const char *text)
{
  khost__err err = {{0}};
  struct iovec part = {(void *)text, strlen(text)};
  cr_assert_eq(khost__report_file_publish(f, &part, 1, &err), KHOST__OK, "%s", err.msg);
}

static char *contents(void)
{
  static char text[4096];
  FILE *in = fopen(path, "r");
  cr_assert_not_null(in);
  size_t n = fread(text, 1, sizeof text - 1, in);
  text[n] = '\0';
  fclose(in);
  return text;
}

/* The names in the folder besides r.json. */
static int others(void)
{
  return scratch_dir_others((const char *const[]){"r.json", NULL});
}

Test(report_file, publish_replaces_the_file_whole_and_leaves_nothing_else)
{
  khost__report_file f;
  open_ok(&f, 0640);
  cr_expect_eq(access(path, F_OK), -1, "open creates nothing");
  publish_ok(&f, "first\n");
  struct stat one, two;
  cr_assert_eq(stat(path, &one), 0);
  publish_ok(&f, "second\n");
  cr_assert_eq(stat(path, &two), 0);
  cr_expect_str_eq(contents(), "second\n");
  cr_expect_neq(one.st_ino, two.st_ino, "a new file, renamed over the old one");
  cr_expect_eq(two.st_mode & 0777, 0640, "mode %o", (unsigned)(two.st_mode & 0777));
  cr_expect_eq(others(), 0, "no temporary file stays");
  khost__report_file_close(&f);
}

/* Two writers of one path (two runs) each get a file of their own: the one
 * renamed last holds the path, and the other learns it lost it. */
Test(report_file, two_writers_of_one_path_never_share_a_file)
{
  khost__report_file a, b;
  khost__err err = {{0}};
  open_ok(&a, 0644);
  open_ok(&b, 0644);
  publish_ok(&a, "a\n");
  publish_ok(&b, "b\n");
  cr_expect_eq(khost__report_file_write_at(&a, 0, "A\n", 2, &err), KHOST__E_IO);
  cr_expect_not_null(strstr(err.msg, "test report: "), "%s", err.msg);
  cr_expect_not_null(strstr(err.msg, "was removed or replaced by another program"), "%s", err.msg);
  cr_expect_eq(khost__report_file_write_at(&b, 0, "B\n", 2, &err), KHOST__OK, "%s", err.msg);
  cr_expect_str_eq(contents(), "B\n");
  cr_expect_eq(others(), 0);
  khost__report_file_close(&a);
  khost__report_file_close(&b);
}

Test(report_file, a_shorter_write_is_padded_so_the_file_never_shrinks)
{
  khost__report_file f;
  khost__err err = {{0}};
  open_ok(&f, 0644);
  publish_ok(&f, "{\"rows\": [1, 2, 3]}\n");
  cr_assert_eq(khost__report_file_write_at(&f, 10, "]}\n", 3, &err), KHOST__OK, "%s", err.msg);
  cr_expect_str_eq(contents(), "{\"rows\": []}\n       ");
  cr_assert_eq(khost__report_file_write_at(&f, 10, "4, 5, 6, 7]}\n", 13, &err), KHOST__OK, "%s", err.msg);
  cr_expect_str_eq(contents(), "{\"rows\": [4, 5, 6, 7]}\n");
  khost__report_file_close(&f);
}

/* A write that fails (the file size limit here, a full disk elsewhere) takes
 * nothing away: the bytes that were there are put back. */
Test(report_file, a_failed_write_puts_back_what_was_there)
{
  khost__report_file f;
  khost__err err = {{0}};
  open_ok(&f, 0644);
  publish_ok(&f, "{\"rows\": []}\n");
  signal(SIGXFSZ, SIG_IGN);
  struct rlimit limit = {20, 20};
  cr_assert_eq(setrlimit(RLIMIT_FSIZE, &limit), 0);
  const char *longer = "1, 2, 3, 4, 5, 6, 7, 8, 9]}\n";
  cr_expect_eq(khost__report_file_write_at(&f, 10, longer, strlen(longer), &err), KHOST__E_IO);
  cr_expect_not_null(strstr(err.msg, "File too large"), "%s", err.msg);
  cr_expect_null(strstr(err.msg, "could not be put back"), "%s", err.msg);
  cr_expect_str_eq(contents(), "{\"rows\": []}\n");
  khost__report_file_close(&f);
}

Test(report_file, a_folder_is_refused_and_a_pipe_is_a_stream)
{
  khost__report_file f;
  khost__err err = {{0}};
  cr_expect_eq(khost__report_file_open(&f, "test report", scratch_dir, 0644, &err), KHOST__E_CONFIG);
  cr_expect_not_null(strstr(err.msg, "is a folder"), "%s", err.msg);
  cr_assert_eq(mkfifo(path, 0600), 0);
  open_ok(&f, 0644);
  cr_expect(f.stream);
  khost__report_file_close(&f);
}

/* A pipe or device that khost may not write is refused before anything runs. */
Test(report_file, a_stream_khost_may_not_write_is_refused)
{
  khost__report_file f;
  khost__err err = {{0}};
  cr_assert_eq(mkfifo(path, 0400), 0);
  if (access(path, W_OK) == 0) cr_skip_test("running as a user who may write anything");
  cr_expect_eq(khost__report_file_open(&f, "test report", path, 0644, &err), KHOST__E_CONFIG);
  cr_expect_not_null(strstr(err.msg, "cannot write"), "%s", err.msg);
}

/* A writer of two lines, then (ctx non-NULL) a failure with ctx as its message. */
static int two_lines(FILE *out, const void *ctx, khost__err *err)
{
  fputs("line 1\n", out);
  fputs("line 2\n", out);
  return ctx ? khost__errorf(err, KHOST__E_IO, "%s", (const char *)ctx) : KHOST__OK;
}

/* The JUnit and HTML reports' way out: the writer's whole document, or, when the
 * writer fails, its status and nothing new at the path. */
Test(report_file, a_written_document_is_published_whole_or_not_at_all)
{
  khost__report_file f;
  khost__err err = {{0}};
  open_ok(&f, 0644);
  cr_assert_eq(khost__report_file_publish_written(&f, two_lines, NULL, &err), KHOST__OK, "%s", err.msg);
  cr_expect_str_eq(contents(), "line 1\nline 2\n");
  cr_expect_eq(khost__report_file_publish_written(&f, two_lines, "writer failed", &err), KHOST__E_IO);
  cr_expect_str_eq(err.msg, "writer failed");
  cr_expect_str_eq(contents(), "line 1\nline 2\n", "the file stays as last published");
  cr_expect_eq(others(), 0, "no temporary file stays");
  khost__report_file_close(&f);
}

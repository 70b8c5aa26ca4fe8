/* Tests for core/junit.c: one test case per row, named op/case and
 * backend:device; FAIL a <failure>, ERROR, CRASH and TIMEOUT an <error>, SKIP a
 * <skipped>, each with the row's message; the counts; XML escaping, and
 * characters XML 1.0 does not allow even escaped; the error test case of a run
 * that did not finish; the file written whole at the start and at the end; a
 * pipe written once; paths refused. tests/e2e/junit.c reads the reports of
 * real runs with an XML parser. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "junit.h"
#include "support/drain_fifo.h"
#include "support/scratch_dir.h"

TestSuite(junit, .init = scratch_dir_make, .fini = scratch_dir_remove);

static khost__run_info sample_info(void)
{
  return (khost__run_info){.khost_version = "0.1.0",
                           .host = "gpu-box",
                           .device = "NVIDIA H200 (sm_90)",
                           .suite = "/src/suites/smoke.ini",
                           .command = "khost --junit r.xml",
                           .date = "2026-11-27T12:37:55Z"};
}

static khost__row sample_row(const char *case_name, const char *backend, khost__row_status status,
                             const char *message)
{
  khost__row r = {.id = {.op = "copy_transpose", .device = "cuda"}, .measured = {.status = status}};
  snprintf(r.id.case_name, sizeof r.id.case_name, "%s", case_name);
  snprintf(r.id.backend, sizeof r.id.backend, "%s", backend);
  snprintf(r.measured.message, sizeof r.measured.message, "%s", message);
  return r;
}

/* The document for rows, in memory; the caller frees it. */
static char *document(const khost__row *rows, int nrows, int finished)
{
  char *text = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&text, &size);
  khost__run_info info = sample_info();
  khost__err err = {{0}};
  cr_assert_eq(khost__junit_write(f, &info, rows, nrows, finished, &err), KHOST__OK, "%s", err.msg);
  cr_assert_eq(fclose(f), 0);
  return text;
}

static void expect_has(const char *text, const char *part)
{
  cr_expect_not_null(strstr(text, part), "lacks\n%s\nin\n%s", part, text);
}

Test(junit, each_status_is_its_element_with_the_row_s_message)
{
  const khost__row rows[] = {
      sample_row("c1", "cute", KHOST__ROW_PASS, ""),
      sample_row("c1", "triton_aot", KHOST__ROW_FAIL,
                 "3 of 64 elements out of tolerance\nc[0]: got 1, expected 2"),
      sample_row("c1", "bad", KHOST__ROW_CRASH, "killed by signal 11"),
      sample_row("c1", "slow", KHOST__ROW_TIMEOUT, "silent for longer than --timeout 60 s"),
      sample_row("c1", "oops", KHOST__ROW_ERROR, "kernel returned status 4"),
      sample_row("c1", "old", KHOST__ROW_SKIP, "no CUDA device"),
  };
  char *text = document(rows, 6, 1);
  expect_has(text, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                   "<testsuites name=\"khost\" tests=\"6\" failures=\"1\" errors=\"3\" skipped=\"1\">\n"
                   "  <testsuite name=\"smoke\" tests=\"6\" failures=\"1\" errors=\"3\" skipped=\"1\" "
                   "timestamp=\"2026-11-27T12:37:55\" hostname=\"gpu-box\">\n");
  expect_has(text, "      <property name=\"device\" value=\"NVIDIA H200 (sm_90)\"/>\n");
  expect_has(text, "    <testcase classname=\"copy_transpose/c1\" name=\"cute:cuda\"/>\n");
  expect_has(text,
             "    <testcase classname=\"copy_transpose/c1\" name=\"triton_aot:cuda\">\n"
             "      <failure type=\"FAIL\" message=\"3 of 64 elements out of tolerance\">3 of 64 elements "
             "out of tolerance\nc[0]: got 1, expected 2</failure>\n    </testcase>\n");
  expect_has(text, "<error type=\"CRASH\" message=\"killed by signal 11\">killed by signal 11</error>");
  expect_has(text, "<error type=\"TIMEOUT\" message=\"silent for longer than --timeout 60 s\">");
  expect_has(text, "<error type=\"ERROR\" message=\"kernel returned status 4\">");
  expect_has(text, "      <skipped message=\"no CUDA device\"/>\n");
  cr_expect_null(strstr(text, "UNFINISHED"), "a finished run has no error of its own:\n%s", text);
  const char *end = "  </testsuite>\n</testsuites>\n";
  cr_expect_str_eq(text + strlen(text) - strlen(end), end, "%s", text);
  free(text);
}

/* Markup is escaped; bytes XML 1.0 cannot hold even as references (controls,
 * U+FFFE, bytes that are not UTF-8) become '?'; other UTF-8 stays. */
Test(junit, text_is_escaped_and_what_xml_cannot_hold_becomes_a_question_mark)
{
  const khost__row rows[] = {
      sample_row("c&<1>", "b", KHOST__ROW_ERROR,
                 "a<b & \"c\" > d\x01\x1b[0m \xef\xbf\xbe \xff caf\xc3\xa9\r"),
  };
  char *text = document(rows, 1, 1);
  expect_has(text, "classname=\"copy_transpose/c&amp;&lt;1&gt;\"");
  expect_has(text, "message=\"a&lt;b &amp; &quot;c&quot; &gt; d??[0m ? ? caf\xc3\xa9&#13;\">"
                   "a&lt;b &amp; &quot;c&quot; &gt; d??[0m ? ? caf\xc3\xa9&#13;</error>");
  free(text);
}

/* A line feed in an attribute is a character reference (a literal one would be
 * read as a space); the message attribute holds the first line only. */
Test(junit, the_message_attribute_is_the_first_line)
{
  const khost__row rows[] = {sample_row("c", "b", KHOST__ROW_SKIP, "declined\nthe shape is odd")};
  char *text = document(rows, 1, 1);
  expect_has(text, "<skipped message=\"declined\"/>");
  free(text);
  khost__run_info info = sample_info();
  snprintf(info.command, sizeof info.command, "khost\n--junit");
  char *out = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&out, &size);
  khost__err err;
  cr_assert_eq(khost__junit_write(f, &info, NULL, 0, 1, &err), KHOST__OK);
  fclose(f);
  expect_has(out, "<property name=\"command\" value=\"khost&#10;--junit\"/>");
  free(out);
}

/* A text field that crossed a pipe may lack its NUL: it is cut at its size. */
Test(junit, a_field_without_its_nul_is_cut_at_its_size)
{
  khost__row row = sample_row("c", "b", KHOST__ROW_PASS, "");
  memset(row.id.device, 'x', sizeof row.id.device);
  char *text = document(&row, 1, 1);
  expect_has(text, "name=\"b:xxxxxxxx\"/>");
  free(text);
}

/* A run that did not finish adds an error test case, and counts it. */
Test(junit, an_unfinished_run_adds_an_error_saying_so)
{
  const khost__row rows[] = {sample_row("c1", "cute", KHOST__ROW_PASS, "")};
  char *text = document(rows, 1, 0);
  expect_has(text, "<testsuites name=\"khost\" tests=\"2\" failures=\"0\" errors=\"1\" skipped=\"0\">");
  expect_has(text, "    <testcase classname=\"copy_transpose/c1\" name=\"cute:cuda\"/>\n"
                   "    <testcase classname=\"khost\" name=\"run\">\n"
                   "      <error type=\"UNFINISHED\" message=\"the run did not finish: ");
  free(text);
}

static char *file_text(const char *p)
{
  FILE *f = fopen(p, "r");
  cr_assert_not_null(f, "%s is missing", p);
  char *text = calloc(1, 1 << 16);
  fread(text, 1, (1 << 16) - 1, f);
  fclose(f);
  return text;
}

/* The file says the run has not finished from the start, and holds the rows once it ends. */
Test(junit, the_file_is_written_whole_at_the_start_and_at_the_end)
{
  char path[192];
  scratch_dir_path(path, sizeof path, "report.xml");
  khost__run_info info = sample_info();
  khost__junit_writer *w = NULL;
  khost__err err = {{0}};
  cr_assert_eq(khost__junit_open(path, &info, 0640, &w, &err), KHOST__OK, "%s", err.msg);
  char *text = file_text(path);
  expect_has(text, "tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\"");
  expect_has(text, "<testcase classname=\"khost\" name=\"run\">");
  free(text);
  struct stat st;
  cr_expect(stat(path, &st) == 0 && (st.st_mode & 0777) == 0640, "mode %o", (unsigned)st.st_mode);
  const khost__row rows[] = {sample_row("c1", "cute", KHOST__ROW_FAIL, "wrong")};
  cr_assert_eq(khost__junit_end(w, &info, rows, 1, 1, &err), KHOST__OK, "%s", err.msg);
  khost__junit_free(w);
  text = file_text(path);
  expect_has(text, "tests=\"1\" failures=\"1\" errors=\"0\" skipped=\"0\"");
  cr_expect_null(strstr(text, "UNFINISHED"), "%s", text);
  free(text);
}

/* Written once, at the end: a pipe cannot be rewritten, and its reader would get the start's document too. */
Test(junit, a_pipe_gets_one_document_at_the_end, .timeout = 20)
{
  const khost__row rows[] = {sample_row("c1", "cute", KHOST__ROW_PASS, "")};
  khost__run_info info = sample_info();
  khost__junit_writer *w = NULL;
  khost__err err = {{0}};
  fifo_copy pipe;
  fifo_copy_start(&pipe, scratch_dir, "pipe.xml");
  cr_assert_eq(khost__junit_open(pipe.fifo, &info, 0644, &w, &err), KHOST__OK, "%s", err.msg);
  cr_assert_eq(khost__junit_end(w, &info, rows, 1, 1, &err), KHOST__OK, "%s", err.msg);
  khost__junit_free(w);
  fifo_copy_wait(&pipe);
  char *text = file_text(pipe.copy);
  cr_expect_eq(strstr(text, "<?xml") - text, 0, "one document:\n%s", text);
  cr_expect_null(strstr(text + 1, "<?xml"), "one document, not the start's too:\n%s", text);
  expect_has(text, "<testcase classname=\"copy_transpose/c1\" name=\"cute:cuda\"/>");
  free(text);
}

Test(junit, a_folder_or_a_missing_folder_is_refused)
{
  khost__run_info info = sample_info();
  khost__junit_writer *w = NULL;
  khost__err err = {{0}};
  cr_expect_eq(khost__junit_open(scratch_dir, &info, 0644, &w, &err), KHOST__E_CONFIG);
  cr_expect_not_null(strstr(err.msg, "JUnit report: "), "%s", err.msg);
  cr_expect_not_null(strstr(err.msg, " is a folder"), "%s", err.msg);
  cr_expect_eq(khost__junit_open("/nonexistent-dir/r.xml", &info, 0644, &w, &err), KHOST__E_IO);
  cr_expect_null(w);
  cr_expect_not_null(strstr(err.msg, "JUnit report: cannot create /nonexistent-dir/r.xml"), "%s", err.msg);
}

Test(junit, a_failed_write_is_an_error)
{
  FILE *f = fopen("/dev/full", "w");
  if (!f) cr_skip_test("/dev/full is not available");
  khost__run_info info = sample_info();
  khost__err err = {{0}};
  cr_expect_eq(khost__junit_write(f, &info, NULL, 0, 1, &err), KHOST__E_IO);
  cr_expect_not_null(strstr(err.msg, "JUnit report: write failed"), "%s", err.msg);
  fclose(f);
}

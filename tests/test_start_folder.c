/* The start folder: a relative path is opened from where khost started, not
 * from wherever the process is now, and still reads as the user gave it. */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "start_folder.h"
#include "support/start_elsewhere.h"

static char made[] = "/tmp/khost-start-XXXXXX";

static void make_folder(void)
{
  cr_assert_not_null(mkdtemp(made));
}

static void remove_folder(void)
{
  rmdir(made);
}

TestSuite(start_folder, .init = make_folder, .fini = remove_folder);

Test(start_folder, a_relative_path_is_opened_from_the_start_folder_after_a_chdir)
{
  char real[PATH_MAX], out[PATH_MAX], expected[PATH_MAX + 16];
  cr_assert_not_null(realpath(made, real));
  start_elsewhere(made);
  snprintf(expected, sizeof expected, "%s/r/x.json", real);
  const char *opened = khost__start_folder_path("r/x.json", out, sizeof out);
  cr_expect_str_eq(opened, expected);
  cr_expect_str_eq(opened + khost__start_folder_added(opened, "r/x.json"), "r/x.json", "as the user gave it");
}

Test(start_folder, absolute_and_empty_paths_are_used_as_given)
{
  char out[PATH_MAX];
  start_elsewhere(made);
  const char *path = "/etc/hosts";
  cr_expect_eq(khost__start_folder_path(path, out, sizeof out), path);
  cr_expect_eq(khost__start_folder_added(path, path), 0);
  cr_expect_str_eq(khost__start_folder_path("", out, sizeof out), "");
}

Test(start_folder, the_root_folder_adds_one_slash)
{
  char out[PATH_MAX];
  start_elsewhere("/");
  cr_expect_str_eq(khost__start_folder_path("etc/hosts", out, sizeof out), "/etc/hosts");
}

/* Either way the path leads where it did before: relative to the current folder. */
Test(start_folder, a_path_is_left_as_given_before_a_note_or_when_it_would_not_fit)
{
  char small[8];
  const char *path = "r.json";
  cr_expect_eq(khost__start_folder_path(path, small, sizeof small), path, "nothing noted yet");
  start_elsewhere(made);
  cr_expect_eq(khost__start_folder_path(path, small, sizeof small), path, "too long for out");
}

Test(start_folder, a_removed_start_folder_is_not_noted)
{
  char out[PATH_MAX];
  cr_assert_eq(chdir(made), 0);
  cr_assert_eq(rmdir(made), 0);
  khost__start_folder_note();
  cr_expect_str_eq(khost__start_folder_path("r.json", out, sizeof out), "r.json");
}

/* Folders named on the command line: each refusal names the flag, the folder and why. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "folder.h"
#include "support/start_elsewhere.h"

Test(folder, a_folder_with_the_access_asked_for_is_accepted)
{
  khost__err err = {{0}};
  cr_expect_eq(khost__folder_check("--plugin-dir", "/tmp", R_OK | X_OK, &err), KHOST__OK, "%s", err.msg);
}

Test(folder, a_missing_path_or_a_file_is_refused_with_flag_and_reason)
{
  khost__err err = {{0}};
  cr_expect_eq(khost__folder_check("--dump", "/no/such/folder", W_OK, &err), KHOST__E_CONFIG);
  cr_expect_str_eq(err.msg, "--dump /no/such/folder: No such file or directory");
  cr_expect_eq(khost__folder_check("--plugin-dir", "/etc/passwd", R_OK, &err), KHOST__E_CONFIG);
  cr_expect_str_eq(err.msg, "--plugin-dir /etc/passwd: not a folder");
}

Test(folder, a_relative_folder_is_checked_in_the_start_folder)
{
  char start[] = "/tmp/khost-folder-XXXXXX", sub[64];
  khost__err err = {{0}};
  cr_assert_not_null(mkdtemp(start));
  snprintf(sub, sizeof sub, "%s/dumps", start);
  cr_assert_eq(mkdir(sub, 0755), 0);
  start_elsewhere(start);
  cr_expect_eq(khost__folder_check("--dump", "dumps", W_OK | X_OK, &err), KHOST__OK, "%s", err.msg);
  cr_expect_eq(khost__folder_check("--dump", "gone", W_OK, &err), KHOST__E_CONFIG);
  cr_expect_str_eq(err.msg, "--dump gone: No such file or directory", "named as given");
  rmdir(sub);
  rmdir(start);
}

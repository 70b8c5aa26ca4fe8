/* Folders named on the command line: each refusal names the flag, the folder and why. */
#include <criterion/criterion.h>
#include <string.h>
#include <unistd.h>

#include "folder.h"

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

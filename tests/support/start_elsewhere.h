/* Test support: khost as a plugin's chdir() leaves it, in another folder than
 * the one it started in. */
#ifndef KHOST_TEST_START_ELSEWHERE_H
#define KHOST_TEST_START_ELSEWHERE_H

#include <criterion/criterion.h>
#include <unistd.h>

#include "start_folder.h"

/* Notes folder as the start folder, as khost does as it starts, then moves to
 * "/", as a plugin may. */
static inline void start_elsewhere(const char *folder)
{
  cr_assert_eq(chdir(folder), 0, "chdir %s", folder);
  khost__start_folder_note();
  cr_assert_eq(chdir("/"), 0);
}

#endif

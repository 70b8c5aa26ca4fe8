/* The command line's comma-separated name lists. */
#include <criterion/criterion.h>
#include <string.h>

#include "list.h"

Test(list, names_are_trimmed_and_empty_items_skipped)
{
  const char *csv = " cute,, triton_aot\t, ,reference ", *want[] = {"cute", "triton_aot", "reference"};
  char item[32];
  for (size_t i = 0; i < 3; i++) {
    cr_assert(khost__list_next(&csv, item, sizeof item), "item %zu missing", i);
    cr_expect_str_eq(item, want[i]);
  }
  cr_expect_not(khost__list_next(&csv, item, sizeof item), "no fourth name");
  const char *blank = " , \t,";
  cr_expect_not(khost__list_next(&blank, item, sizeof item), "a list of blanks names nothing");
}

Test(list, has_matches_whole_names_only)
{
  cr_expect(khost__list_has("cute, triton_aot", "triton_aot"));
  cr_expect_not(khost__list_has("cute, triton_aot", "triton"), "a prefix is not the name");
  cr_expect_not(khost__list_has("cute_x", "cute"));
  cr_expect_not(khost__list_has(NULL, "cute"), "no list holds nothing");
}

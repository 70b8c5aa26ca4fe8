/* Tests for core/file_identity.c: two paths are compared as the files they name. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "file_identity.h"

static char dir[64];

static void make_dir(void)
{
  snprintf(dir, sizeof dir, "/tmp/khost-identity-XXXXXX");
  cr_assert_not_null(mkdtemp(dir));
}

static void remove_dir(void)
{
  const char *names[] = {"a", "b", "link", "hard"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    char p[128];
    snprintf(p, sizeof p, "%s/%s", dir, names[i]);
    unlink(p);
  }
  rmdir(dir);
}

TestSuite(file_identity, .init = make_dir, .fini = remove_dir);

static const char *at(const char *fmt)
{
  static char buf[4][256];
  static int next;
  char *p = buf[next++ % 4];
  snprintf(p, sizeof buf[0], fmt, dir);
  return p;
}

Test(file_identity, a_file_that_does_not_exist_yet_is_its_folder_and_name)
{
  cr_expect(khost__same_file(at("%s/a"), at("%s/./a")));
  cr_expect(khost__same_file(at("%s/a"), at("%s//a")));
  char up[256];
  snprintf(up, sizeof up, "%s/../%s/a", dir, strrchr(dir, '/') + 1);
  cr_expect(khost__same_file(at("%s/a"), up), "%s", up);
  cr_expect_not(khost__same_file(at("%s/a"), at("%s/b")));
}

Test(file_identity, existing_files_are_their_device_and_inode)
{
  FILE *f = fopen(at("%s/a"), "w");
  cr_assert(f && fclose(f) == 0);
  cr_assert_eq(symlink(at("%s/a"), at("%s/link")), 0);
  cr_assert_eq(link(at("%s/a"), at("%s/hard")), 0);
  cr_expect(khost__same_file(at("%s/a"), at("%s/link")), "a link names its target");
  cr_expect(khost__same_file(at("%s/hard"), at("%s/./a")), "a hard link is the same file");
  cr_expect_not(khost__same_file(at("%s/a"), at("%s/b")), "b does not exist");
  cr_expect(khost__same_file(dir, at("%s/")), "a folder with a trailing slash");
}

Test(file_identity, a_path_in_a_missing_folder_is_compared_as_written)
{
  cr_expect(khost__same_file("/no/such/folder/x", "/no/such/folder/x"));
  cr_expect_not(khost__same_file("/no/such/folder/x", "/no/such/folder/./x"));
}

/* A folder yet to be made names the same as a file yet to be made in its place. */
Test(file_identity, a_name_with_a_trailing_slash_is_the_same_name)
{
  cr_expect(khost__same_file(at("%s/a"), at("%s/a/")));
}

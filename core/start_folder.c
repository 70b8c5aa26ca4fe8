#include "start_folder.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Empty until noted. */
static char start[PATH_MAX];

void khost__start_folder_note(void)
{
  if (!getcwd(start, sizeof start)) start[0] = '\0';
}

const char *khost__start_folder_path(const char *path, char *out, size_t n)
{
  if (!path[0] || path[0] == '/' || !start[0]) return path;
  /* The root folder is "/": no second slash after it. */
  const char *slash = strcmp(start, "/") ? "/" : "";
  if ((size_t)snprintf(out, n, "%s%s%s", start, slash, path) >= n) return path;
  return out;
}

size_t khost__start_folder_added(const char *opened, const char *path)
{
  return strlen(opened) - strlen(path);
}

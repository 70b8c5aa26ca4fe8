#include "file_identity.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct identity {
  dev_t dev;
  ino_t ino;
  char *name; /* "" for a path that exists; else its last part, in the folder dev and ino name */
} identity;

/* 0 when neither the path nor its folder can be found (or out of memory). */
static int identify(const char *path, identity *id)
{
  struct stat st;
  id->name = NULL;
  if (stat(path, &st) == 0) {
    id->dev = st.st_dev;
    id->ino = st.st_ino;
    return (id->name = strdup("")) != NULL;
  }
  size_t n = strlen(path);
  while (n > 1 && path[n - 1] == '/') n--; /* "out/" names the folder "out" */
  const char *slash = memrchr(path, '/', n), *name = slash ? slash + 1 : path;
  char *folder = slash == path ? strdup("/") : slash ? strndup(path, (size_t)(slash - path)) : strdup(".");
  int found = folder && stat(folder, &st) == 0;
  free(folder);
  if (!found) return 0;
  id->dev = st.st_dev;
  id->ino = st.st_ino;
  return (id->name = strndup(name, n - (size_t)(name - path))) != NULL;
}

int khost__same_file(const char *a, const char *b)
{
  identity x, y;
  int known = identify(a, &x) & identify(b, &y);
  int same = known ? x.dev == y.dev && x.ino == y.ino && strcmp(x.name, y.name) == 0 : strcmp(a, b) == 0;
  free(x.name);
  free(y.name);
  return same;
}

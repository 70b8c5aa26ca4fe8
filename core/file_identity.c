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

int khost__outputs_distinct(const khost__output_flag *outputs, int n, const char *const *inputs, int ninputs,
                            khost__err *err)
{
  for (int i = 0; i < n; i++) {
    for (int k = 0; outputs[i].path && k < ninputs; k++)
      if (khost__same_file(outputs[i].path, inputs[k]))
        return khost__errorf(err, KHOST__E_CONFIG, "%s names the report it reads, '%s'", outputs[i].flag,
                             outputs[i].path);
    for (int j = i + 1; outputs[i].path && j < n; j++)
      if (outputs[j].path && khost__same_file(outputs[i].path, outputs[j].path))
        return khost__errorf(err, KHOST__E_CONFIG, "%s and %s name the same file '%s'", outputs[i].flag,
                             outputs[j].flag, outputs[i].path);
  }
  return KHOST__OK;
}

#include "folder.h"

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "start_folder.h"

int khost__folder_check(const char *flag, const char *dir, int mode, khost__err *err)
{
  struct stat st;
  char buf[PATH_MAX];
  const char *at = khost__start_folder_path(dir, buf, sizeof buf);
  if (stat(at, &st) != 0) return khost__errorf(err, KHOST__E_CONFIG, "%s %s: %s", flag, dir, strerror(errno));
  if (!S_ISDIR(st.st_mode)) return khost__errorf(err, KHOST__E_CONFIG, "%s %s: not a folder", flag, dir);
  if (access(at, mode) != 0)
    return khost__errorf(err, KHOST__E_CONFIG, "%s %s: %s access refused: %s", flag, dir,
                         mode & W_OK ? "write" : "read", strerror(errno));
  return KHOST__OK;
}

#include "standard_fds.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

static int copies[3] = {-1, -1, -1};
static FILE *output;

static int is_closed(int fd)
{
  return fcntl(fd, F_GETFD) == -1 && errno == EBADF;
}

int khost__standard_fds_keep(void)
{
  /* In order: with the lower ones open, /dev/null takes exactly the number closed. */
  for (int fd = 0; fd < 3; fd++)
    if (is_closed(fd) && open("/dev/null", O_RDWR) != fd) return -1;
  for (int fd = 0; fd < 3; fd++)
    if ((copies[fd] = fcntl(fd, F_DUPFD_CLOEXEC, 3)) < 0) return -1;
  output = fdopen(copies[1], "w");
  return output ? 0 : -1;
}

void khost__standard_fds_restore(void)
{
  for (int fd = 0; fd < 3; fd++)
    if (copies[fd] >= 0 && is_closed(fd)) dup2(copies[fd], fd);
}

FILE *khost__standard_output(void)
{
  if (!output) return stdout;
  /* What went to stdout before (a plugin's printf under --no-isolate) stays before. */
  fflush(stdout);
  return output;
}

#include "report_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "start_folder.h"

int khost__report_file_open(khost__report_file *f, const char *label, const char *path, mode_t mode,
                            khost__err *err)
{
  struct stat st;
  char buf[PATH_MAX];
  const char *at = khost__start_folder_path(path, buf, sizeof buf);
  int exists = stat(at, &st) == 0;
  memset(f, 0, sizeof *f);
  f->label = label;
  f->mode = mode;
  f->fd = -1;
  if (exists && S_ISDIR(st.st_mode))
    return khost__errorf(err, KHOST__E_CONFIG, "%s: %s is a folder", label, path);
  f->stream = exists && !S_ISREG(st.st_mode);
  if (f->stream && access(at, W_OK) != 0)
    return khost__errorf(err, KHOST__E_CONFIG, "%s: cannot write %s: %s", label, path, strerror(errno));
  if (!(f->path = strdup(path)) || !(f->opened = strdup(at))) {
    khost__report_file_close(f);
    return khost__errorf(err, KHOST__E_NOMEM, "%s %s: out of memory", label, path);
  }
  return KHOST__OK;
}

/* Writes the parts in order: at the file's offset (at NULL: a pipe or device)
 * or from *at on. 0, or -1 with errno; a short write of a regular file only
 * comes before an error, which the next write says. */
static int write_parts(int fd, const struct iovec *parts, int nparts, off_t *at)
{
  for (int i = 0; i < nparts; i++) {
    const char *p = parts[i].iov_base;
    size_t left = parts[i].iov_len;
    while (left > 0) {
      ssize_t n = at ? pwrite(fd, p, left, *at) : write(fd, p, left);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return -1;
      p += n;
      left -= (size_t)n;
      if (at) *at += n;
    }
  }
  return 0;
}

static size_t total_size(const struct iovec *parts, int nparts)
{
  size_t size = 0;
  for (int i = 0; i < nparts; i++) size += parts[i].iov_len;
  return size;
}

/* The file publish wrote last has lost its name: whatever is written to it now reaches nobody. */
static int check_still_there(const khost__report_file *f, khost__err *err)
{
  struct stat st;
  if (f->fd < 0 || (fstat(f->fd, &st) == 0 && st.st_nlink > 0)) return KHOST__OK;
  return khost__errorf(err, KHOST__E_IO, "%s: %s was removed or replaced by another program during the run",
                       f->label, f->path);
}

/* A unique name beside the report: ".NAME.XXXXXX" in its folder, for mkstemp. */
static char *temporary_template(const char *path)
{
  const char *slash = strrchr(path, '/');
  int folder = slash ? (int)(slash - path + 1) : 0;
  char *name = NULL;
  return asprintf(&name, "%.*s.%s.XXXXXX", folder, path, path + folder) < 0 ? NULL : name;
}

static int publish_file(khost__report_file *f, const struct iovec *parts, int nparts, khost__err *err)
{
  int rc = check_still_there(f, err);
  char *tmp = rc == KHOST__OK ? temporary_template(f->opened) : NULL;
  if (rc == KHOST__OK && !tmp)
    rc = khost__errorf(err, KHOST__E_NOMEM, "%s %s: out of memory", f->label, f->path);
  if (rc != KHOST__OK) return rc;
  /* Created exclusively: a link someone left at the name is an error, never followed. */
  int fd = mkostemp(tmp, O_CLOEXEC);
  if (fd < 0) {
    rc = khost__errorf(err, KHOST__E_IO, "%s: cannot create %s: %s", f->label, f->path, strerror(errno));
    goto out;
  }
  if (fchmod(fd, f->mode) != 0 || write_parts(fd, parts, nparts, NULL) != 0) {
    rc = khost__errorf(err, KHOST__E_IO, "%s: cannot write %s: %s", f->label, f->path, strerror(errno));
  } else if (rename(tmp, f->opened) != 0) {
    rc = khost__errorf(err, KHOST__E_IO, "%s: cannot replace %s: %s", f->label, f->path, strerror(errno));
  }
  if (rc != KHOST__OK) {
    unlink(tmp);
    close(fd);
    goto out;
  }
  if (f->fd >= 0) close(f->fd);
  f->fd = fd;
  f->size = total_size(parts, nparts);
out:
  free(tmp);
  return rc;
}

static int publish_stream(khost__report_file *f, const struct iovec *parts, int nparts, khost__err *err)
{
  int fd = open(f->opened, O_WRONLY | O_TRUNC | O_CLOEXEC);
  int failed = fd < 0 || write_parts(fd, parts, nparts, NULL) != 0;
  int saved = errno;
  if (fd >= 0 && close(fd) != 0 && !failed) failed = 1, saved = errno;
  if (failed)
    return khost__errorf(err, KHOST__E_IO, "%s: cannot write %s: %s", f->label, f->path, strerror(saved));
  return KHOST__OK;
}

int khost__report_file_publish(khost__report_file *f, const struct iovec *parts, int nparts, khost__err *err)
{
  return f->stream ? publish_stream(f, parts, nparts, err) : publish_file(f, parts, nparts, err);
}

int khost__report_file_publish_written(khost__report_file *f, khost__report_writer write, const void *ctx,
                                       khost__err *err)
{
  char *text = NULL;
  size_t size = 0;
  FILE *mem = open_memstream(&text, &size);
  if (!mem) return khost__errorf(err, KHOST__E_NOMEM, "%s %s: out of memory", f->label, f->path);
  int rc = write(mem, ctx, err);
  if (fclose(mem) != 0 && rc == KHOST__OK)
    rc = khost__errorf(err, KHOST__E_NOMEM, "%s %s: out of memory", f->label, f->path);
  if (rc == KHOST__OK) rc = khost__report_file_publish(f, &(struct iovec){text, size}, 1, err);
  free(text);
  return rc;
}

/* Writes size bytes of data at offset at: 0, or -1 with errno. */
static int write_at(int fd, const char *data, size_t size, size_t at)
{
  off_t offset = (off_t)at;
  return write_parts(fd, &(struct iovec){(void *)data, size}, 1, &offset);
}

int khost__report_file_write_at(khost__report_file *f, size_t at, const char *data, size_t size,
                                khost__err *err)
{
  size_t old_size = f->size - at, next_size = size > old_size ? size : old_size;
  int rc = check_still_there(f, err);
  if (rc != KHOST__OK) return rc;
  char *old = malloc(old_size + 1), *next = malloc(next_size + 1);
  if (!old || !next) {
    rc = khost__errorf(err, KHOST__E_NOMEM, "%s %s: out of memory", f->label, f->path);
    goto out;
  }
  if (pread(f->fd, old, old_size, (off_t)at) != (ssize_t)old_size) {
    rc = khost__errorf(err, KHOST__E_IO, "%s: cannot read back %s", f->label, f->path);
    goto out;
  }
  memcpy(next, data, size);
  memset(next + size, ' ', next_size - size);
  if (write_at(f->fd, next, next_size, at) != 0) {
    int saved = errno;
    /* What the file held before goes back, so that it stays the complete report it was. */
    int restored = write_at(f->fd, old, old_size, at) == 0 && ftruncate(f->fd, (off_t)f->size) == 0;
    rc = khost__errorf(err, KHOST__E_IO, "%s: cannot write %s: %s%s", f->label, f->path, strerror(saved),
                       restored ? "" : " (and what it held could not be put back)");
    goto out;
  }
  f->size = at + next_size;
out:
  free(old);
  free(next);
  return rc;
}

void khost__report_file_close(khost__report_file *f)
{
  if (f->fd >= 0) close(f->fd);
  f->fd = -1;
  free(f->path);
  free(f->opened);
  f->path = f->opened = NULL;
}

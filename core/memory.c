#include "memory.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static size_t least(size_t a, size_t b)
{
  return a < b ? a : b;
}

/* limit - used, 0 when used is over it. */
static size_t room(uint64_t limit, uint64_t used)
{
  return used >= limit ? 0 : (size_t)(limit - used);
}

/* The number after "key" on a line of the file (a "key: N kB" line of
 * /proc/meminfo, a "key N" line of memory.stat), times scale; 0 when there is
 * no such line. */
static int read_keyed(const char *path, const char *key, uint64_t scale, uint64_t *value)
{
  FILE *f = fopen(path, "r");
  char line[256];
  size_t n = strlen(key);
  int found = 0;
  while (f && !found && fgets(line, sizeof line, f))
    found = !strncmp(line, key, n) && (line[n] == ' ' || line[n] == ':') &&
            sscanf(line + n + 1, "%" SCNu64, value) == 1;
  if (f) fclose(f);
  if (found) *value *= scale;
  return found;
}

/* The file's first number; 0 when it holds none ("max": no limit) or cannot be read. */
static int read_number(const char *path, uint64_t *value)
{
  FILE *f = fopen(path, "r");
  int found = f && fscanf(f, "%" SCNu64, value) == 1;
  if (f) fclose(f);
  return found;
}

/* The files of one cgroup version's memory controller. */
typedef struct cgroup_memory {
  const char *mount;         /* where the hierarchy is mounted */
  const char *limit, *usage; /* the files of the limit and of what is charged */
  const char *inactive_file; /* the key of reclaimable file cache in memory.stat */
} cgroup_memory;

/* The room under the limit of folder dir (a cgroup's, below mount) and of each
 * folder above it: a limit set on a parent binds its children too. Folders
 * that do not exist are passed over (in a container the path may name the host's
 * hierarchy while the mount shows only the container's part of it). */
static size_t cgroup_room(const cgroup_memory *m, char *dir)
{
  size_t best = SIZE_MAX;
  for (;;) {
    char path[4096];
    uint64_t limit, used, inactive = 0;
    snprintf(path, sizeof path, "%s%s/%s", m->mount, dir, m->limit);
    int known = read_number(path, &limit);
    snprintf(path, sizeof path, "%s%s/%s", m->mount, dir, m->usage);
    known = known && read_number(path, &used);
    snprintf(path, sizeof path, "%s%s/memory.stat", m->mount, dir);
    if (known && read_keyed(path, m->inactive_file, 1, &inactive)) used -= inactive < used ? inactive : used;
    if (known) best = least(best, room(limit, used));
    char *slash = strrchr(dir, '/');
    if (!slash) return best;
    *slash = '\0';
  }
}

/* The room under this process's cgroup limits, from /proc/self/cgroup: the
 * v2 line "0::PATH", or the v1 line "N:...memory...:PATH". */
static size_t cgroups_room(void)
{
  static const cgroup_memory v2 = {"/sys/fs/cgroup", "memory.max", "memory.current", "inactive_file"};
  static const cgroup_memory v1 = {"/sys/fs/cgroup/memory", "memory.limit_in_bytes", "memory.usage_in_bytes",
                                   "total_inactive_file"};
  FILE *f = fopen("/proc/self/cgroup", "r");
  char line[4096];
  size_t best = SIZE_MAX;
  while (f && fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = '\0';
    char *controllers = strchr(line, ':'), *dir = controllers ? strchr(controllers + 1, ':') : NULL;
    if (!dir) continue;
    *dir++ = '\0';
    controllers++;
    if (!strcmp(dir, "/")) dir[0] = '\0';
    if (!controllers[0])
      best = least(best, cgroup_room(&v2, dir));
    else if (strstr(controllers, "memory"))
      best = least(best, cgroup_room(&v1, dir));
  }
  if (f) fclose(f);
  return best;
}

/* The room under a resource limit, given what the process already uses of it. */
static size_t rlimit_room(int resource, uint64_t used)
{
  struct rlimit r;
  if (getrlimit(resource, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return SIZE_MAX;
  return room(r.rlim_cur, used);
}

/* RLIMIT_AS bounds the whole address space, RLIMIT_DATA its data part: the
 * first and sixth numbers of /proc/self/statm, in pages. */
static size_t rlimits_room(void)
{
  uint64_t size = 0, resident, shared, text, lib, data = 0;
  FILE *f = fopen("/proc/self/statm", "r");
  int read = f && fscanf(f, "%" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64, &size,
                         &resident, &shared, &text, &lib, &data) == 6;
  if (f) fclose(f);
  if (!read) return SIZE_MAX;
  uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
  return least(rlimit_room(RLIMIT_AS, size * page), rlimit_room(RLIMIT_DATA, data * page));
}

size_t khost__memory_available(void)
{
  uint64_t available;
  size_t best = read_keyed("/proc/meminfo", "MemAvailable", 1024, &available) ? room(available, 0) : SIZE_MAX;
  return least(least(best, cgroups_room()), rlimits_room());
}

/* "12.0 GiB", "512.0 MiB", "4.0 KiB" or "100 bytes". */
static void format_bytes(size_t bytes, char *buf, size_t n)
{
  static const char *const units[] = {"KiB", "MiB", "GiB", "TiB"};
  double value = (double)bytes;
  int unit = -1;
  while (value >= 1024 && unit < 3) value /= 1024, unit++;
  if (unit < 0)
    snprintf(buf, n, "%zu bytes", bytes);
  else
    snprintf(buf, n, "%.1f %s", value, units[unit]);
}

int khost__memory_fits(size_t needed, size_t available, const char *where, const char *what, khost__err *err)
{
  if (needed <= available) return KHOST__OK;
  char need[32], have[32];
  format_bytes(needed, need, sizeof need);
  format_bytes(available, have, sizeof have);
  return khost__errorf(err, KHOST__E_NOMEM, "not enough %s memory for %s: %s needed, %s available", where,
                       what, need, have);
}

int khost__memory_check(size_t needed, const char *what, khost__err *err)
{
  return khost__memory_fits(needed, khost__memory_available(), "host", what, err);
}

#include "dump.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h> /* W_OK, X_OK */

#include "folder.h"
#include "npy.h"
#include "progress.h"
#include "start_folder.h"

/* path is found from the start folder (start_folder.h). */
static int make_dir(const char *path)
{
  char at[PATH_MAX];
  return mkdir(khost__start_folder_path(path, at, sizeof at), 0777) == 0 || errno == EEXIST ? 0 : -1;
}

/* DIR/<case>/<prefix><tensor>.npy into path; -1 when the folder cannot be made. */
static int dump_path(const khost__options *o, const khost__case_data *d, const char *prefix,
                     const char *tensor, char *path, size_t n)
{
  int too_long = (size_t)snprintf(path, n, "%s/%s", o->dump, d->c->name) >= n;
  if (too_long || make_dir(path) != 0) {
    khost__progress_say("--dump: cannot create %s/%s: %s", o->dump, d->c->name,
                        too_long ? "path too long" : strerror(errno));
    return -1;
  }
  if ((size_t)snprintf(path, n, "%s/%s/%s%s.npy", o->dump, d->c->name, prefix, tensor) >= n) {
    khost__progress_say("--dump: path too long for %s/%s/%s%s.npy", o->dump, d->c->name, prefix, tensor);
    return -1;
  }
  return 0;
}

/* 1 when the file could not be written (said on stderr), else 0. */
static int write_one(const khost__options *o, const khost__case_data *d, const char *prefix,
                     const khost__tensor_spec *spec, const void *data)
{
  char path[4096];
  khost__err err;
  if (dump_path(o, d, prefix, spec->name, path, sizeof path) != 0) return 1;
  if (khost__npy_write_tensor(path, spec, data, &err) == KHOST__OK) return 0;
  khost__progress_say("--dump: %s: %s", path, err.msg);
  return 1;
}

int khost__dump_prepare(const khost__options *o, khost__err *err)
{
  if (!o->dump) return KHOST__OK;
  if (make_dir(o->dump) != 0)
    return khost__errorf(err, KHOST__E_CONFIG, "--dump %s: cannot create the folder: %s", o->dump,
                         strerror(errno));
  return khost__folder_check("--dump", o->dump, W_OK | X_OK, err);
}

/* Input t as generated: an arena's chunks gathered in its spec's order, a
 * table's entries as offsets into its arena (addresses exist per call only). */
static int write_input(const khost__options *o, const khost__case_data *d, int t)
{
  const khost__tensor_spec *s = &d->set.inputs[t];
  if (!s->chunk_dims) return write_one(o, d, "", s, d->pristine[t]);
  void *packed = malloc(s->nbytes ? s->nbytes : 1);
  if (!packed) {
    khost__progress_say("--dump: %s/%s/%s.npy: out of memory", o->dump, d->c->name, s->name);
    return 1;
  }
  khost__arena_gather(&d->arena[t], d->pristine[t], packed);
  int failed = write_one(o, d, "", s, packed);
  free(packed);
  return failed;
}

int khost__dump_inputs(const khost__options *o, const khost__case_data *d)
{
  int failed = 0;
  if (!o->dump) return 0;
  for (int t = 0; t < d->set.ninputs; t++) failed += write_input(o, d, t);
  for (int t = 0; t < d->set.noutputs; t++)
    failed += write_one(o, d, "reference.", &d->set.outputs[t], d->ref[t]);
  return failed;
}

int khost__dump_outputs(const khost__options *o, const khost__case_data *d, const khost__call *call,
                        const char *backend)
{
  int failed = 0;
  if (!o->dump) return 0;
  char prefix[160];
  snprintf(prefix, sizeof prefix, "%s.%s.", backend,
           call->kernel->device_type == KHOST_DEVICE_CUDA ? "cuda" : "cpu");
  for (int t = 0; t < d->set.noutputs; t++) {
    khost__err err;
    void *host = malloc(d->set.outputs[t].nbytes ? d->set.outputs[t].nbytes : 1);
    int rc = host ? khost__call_read_output(call, t, host, &err)
                  : khost__errorf(&err, KHOST__E_NOMEM, "out of memory copying the output");
    if (rc == KHOST__OK) {
      failed += write_one(o, d, prefix, &d->set.outputs[t], host);
    } else {
      khost__progress_say("--dump: %s/%s/%s%s.npy: %s", o->dump, d->c->name, prefix, d->set.outputs[t].name,
                          err.msg);
      failed++;
    }
    free(host);
  }
  return failed;
}

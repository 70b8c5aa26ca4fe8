#include "dump.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "npy.h"

static int make_dir(const char *path)
{
  return mkdir(path, 0777) == 0 || errno == EEXIST ? 0 : -1;
}

/* DIR/<case>/<prefix><tensor>.npy into path; -1 when the folder cannot be made. */
static int dump_path(const khost__options *o, const khost__case_data *d, const char *prefix,
                     const char *tensor, char *path, size_t n)
{
  snprintf(path, n, "%s/%s", o->dump, d->c->name);
  if (make_dir(o->dump) != 0 || make_dir(path) != 0) {
    fprintf(stderr, "khost: --dump: cannot create %s: %s\n", path, strerror(errno));
    return -1;
  }
  snprintf(path, n, "%s/%s/%s%s.npy", o->dump, d->c->name, prefix, tensor);
  return 0;
}

static void write_one(const khost__options *o, const khost__case_data *d, const char *prefix,
                      const khost__tensor_spec *spec, const void *data)
{
  char path[4096];
  khost__err err;
  if (dump_path(o, d, prefix, spec->name, path, sizeof path) != 0) return;
  if (khost__npy_write_tensor(path, spec, data, &err) != KHOST__OK)
    fprintf(stderr, "khost: --dump: %s: %s\n", path, err.msg);
}

void khost__dump_inputs(const khost__options *o, const khost__case_data *d)
{
  if (!o->dump) return;
  for (int t = 0; t < d->set.ninputs; t++) write_one(o, d, "", &d->set.inputs[t], d->in[0][t].data);
  for (int t = 0; t < d->set.noutputs; t++) write_one(o, d, "reference.", &d->set.outputs[t], d->ref[t]);
}

void khost__dump_outputs(const khost__options *o, const khost__case_data *d, const khost__call *call,
                         const char *backend)
{
  if (!o->dump) return;
  char prefix[160];
  snprintf(prefix, sizeof prefix, "%s.%s.", backend,
           call->kernel->device_type == KHOST_DEVICE_CUDA ? "cuda" : "cpu");
  for (int t = 0; t < d->set.noutputs; t++) {
    void *host = malloc(d->set.outputs[t].nbytes);
    khost__err err;
    if (host && khost__call_read_output(call, t, host, &err) == KHOST__OK)
      write_one(o, d, prefix, &d->set.outputs[t], host);
    free(host);
  }
}

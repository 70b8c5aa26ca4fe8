#include "call.h"

#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cuda.h"
#include "loader.h"

static void describe_tensor(khost_tensor *t, const khost__tensor_spec *s, void *data, int device_type,
                            int device_id, const int64_t *shape, const int64_t *strides)
{
  memset(t, 0, sizeof *t);
  t->struct_size = sizeof *t;
  t->name = s->name;
  t->data = data;
  t->device_type = device_type;
  t->device_id = device_type == KHOST_DEVICE_CUDA ? device_id : 0;
  t->dtype = khost__dtype_abi(s->dtype);
  t->ndim = s->ndim;
  t->shape = shape;
  t->strides = strides;
  t->nbytes = s->nbytes;
}

static void build_input(khost__call *k, int device_type, int device_id, int num_threads)
{
  khost__case_data *d = k->data;
  int slot = khost__device_slot(device_type);
  for (int t = 0; t < d->set.ninputs; t++)
    describe_tensor(&k->tensors[t], &d->set.inputs[t], d->in[slot][t].data, device_type, device_id,
                    d->shapes[t], d->strides[t]);
  for (int t = 0; t < d->set.noutputs; t++) {
    int i = d->set.ninputs + t;
    describe_tensor(&k->tensors[i], &d->set.outputs[t], k->out[t].data, device_type, device_id, d->shapes[i],
                    d->strides[i]);
  }
  khost_input *in = &k->input;
  memset(in, 0, sizeof *in);
  in->struct_size = sizeof *in;
  in->op = d->c->op->name;
  in->nparams = d->nparams;
  in->params = d->params;
  in->ninputs = d->set.ninputs;
  in->inputs = k->tensors;
  in->noutputs = d->set.noutputs;
  in->outputs = k->tensors + d->set.ninputs;
  in->error = k->error;
  in->error_size = sizeof k->error;
  in->num_threads = num_threads;
}

/* The plugin's message after a call: it may have filled the buffer without a
 * terminating NUL. */
static const char *plugin_message(khost__call *k)
{
  k->error[sizeof k->error - 1] = '\0';
  return k->error;
}

static int ask_plugin(khost__call *k, size_t *workspace, khost__err *err)
{
  khost_supports_fn supports = khost__kernel_supports(k->kernel);
  k->error[0] = '\0';
  int rc = supports ? supports(&k->input) : KHOST_STATUS_OK;
  const char *said = plugin_message(k);
  if (rc == KHOST_STATUS_UNSUPPORTED)
    return khost__errorf(err, KHOST__E_DECLINED, "declined: %s", said[0] ? said : "(no reason given)");
  if (rc != KHOST_STATUS_OK)
    return khost__errorf(err, KHOST__E_FAIL, "supports() returned status %d: %s", rc, said);
  khost_workspace_fn query = khost__kernel_workspace(k->kernel);
  *workspace = 0;
  if (query && (rc = query(&k->input, workspace)) != KHOST_STATUS_OK)
    return khost__errorf(err, KHOST__E_FAIL, "workspace_size() returned status %d: %s", rc,
                         plugin_message(k));
  if (*workspace > KHOST__MAX_TENSOR_BYTES)
    return khost__errorf(err, KHOST__E_FAIL,
                         "workspace_size() asked for %zu bytes, more than the %zu khost allows", *workspace,
                         KHOST__MAX_TENSOR_BYTES);
  khost_describe_fn describe = khost__kernel_describe(k->kernel);
  if (describe && (rc = describe(&k->input, k->variant, sizeof k->variant)) != KHOST_STATUS_OK)
    return khost__errorf(err, KHOST__E_FAIL, "describe() returned status %d: %s", rc, plugin_message(k));
  /* A plugin that filled the whole buffer may have left it unterminated. */
  k->variant[sizeof k->variant - 1] = '\0';
  return KHOST__OK;
}

int khost__call_prepare(khost__call *k, const khost_kernel *kernel, khost__case_data *d, int num_threads,
                        int device_id, khost__err *err)
{
  memset(k, 0, sizeof *k);
  k->kernel = kernel;
  k->data = d;
  int device = kernel->device_type;
  int rc = device == KHOST_DEVICE_CUDA ? khost__case_data_upload(d, err) : KHOST__OK;
  for (int t = 0; t < d->set.noutputs && rc == KHOST__OK; t++)
    rc = khost__buffer_alloc(&k->out[t], device, d->set.outputs[t].nbytes, err);
  if (rc != KHOST__OK) goto fail;
  build_input(k, device, device_id, num_threads);
  if (device == KHOST_DEVICE_CUDA) k->input.stream = khost__cuda_stream();
  size_t workspace = 0;
  if ((rc = ask_plugin(k, &workspace, err)) != KHOST__OK) goto fail;
  if (workspace && (rc = khost__buffer_alloc(&k->workspace, device, workspace, err)) != KHOST__OK) goto fail;
  k->input.workspace = k->workspace.data;
  k->input.workspace_bytes = workspace;
  return KHOST__OK;
fail:
  khost__call_free(k);
  return rc;
}

int khost__call_poison(khost__call *k, khost__err *err)
{
  for (int t = 0; t < k->data->set.noutputs; t++) {
    int rc = khost__buffer_poison(&k->out[t], err);
    if (rc != KHOST__OK) return rc;
  }
  return KHOST__OK;
}

int khost__call_run(khost__call *k)
{
  k->error[0] = '\0';
  int rc = k->kernel->run(&k->input);
  plugin_message(k);
  return rc;
}

int khost__call_read_output(const khost__call *k, int t, void *dst, khost__err *err)
{
  return khost__buffer_read(&k->out[t], dst, err);
}

static int check_outputs(khost__call *k, khost__check_stats *stats, khost__err *err)
{
  const khost__case_data *d = k->data;
  memset(stats, 0, sizeof *stats);
  for (int t = 0; t < d->set.noutputs; t++) {
    const khost__tensor_spec *spec = &d->set.outputs[t];
    int rc = khost__buffer_check_guards(&k->out[t], spec->name, err);
    if (rc != KHOST__OK) return rc == KHOST__E_FAIL ? KHOST__E_GUARD : rc;
    void *got = malloc(spec->nbytes);
    if (!got) return khost__errorf(err, KHOST__E_NOMEM, "out of memory reading output %s", spec->name);
    rc = khost__call_read_output(k, t, got, err);
    khost__check_stats one;
    if (rc == KHOST__OK) {
      khost__check_output(spec, got, d->ref[t], d->c->atol, d->c->rtol, &one);
      khost__check_merge(stats, &one);
    }
    free(got);
    if (rc != KHOST__OK) return rc;
  }
  return KHOST__OK;
}

int khost__call_check_side_effects(khost__call *k, khost__err *err)
{
  int rc = k->workspace.base ? khost__buffer_check_guards(&k->workspace, "workspace", err) : KHOST__OK;
  if (rc != KHOST__OK) return rc == KHOST__E_FAIL ? KHOST__E_GUARD : rc;
  rc = khost__case_data_check_inputs(k->data, k->kernel->device_type, err);
  return rc == KHOST__E_FAIL ? KHOST__E_MUTATED : rc;
}

int khost__call_check(khost__call *k, khost__check_stats *stats, khost__err *err)
{
  int rc = check_outputs(k, stats, err);
  return rc == KHOST__OK ? khost__call_check_side_effects(k, err) : rc;
}

void khost__call_free(khost__call *k)
{
  khost__buffer_free(&k->workspace);
  for (int t = KHOST__MAX_TENSORS - 1; t >= 0; t--) khost__buffer_free(&k->out[t]);
  memset(k, 0, sizeof *k);
}

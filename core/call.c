#include "call.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cuda.h"
#include "fork_guard.h"
#include "nvtx.h"
#include "loader.h"
#include "memory.h"

static void describe_tensor(khost_tensor *t, const khost__tensor_spec *s, const char *name, void *data,
                            int device_type, int device_id, const int64_t *shape, const int64_t *strides)
{
  t->struct_size = sizeof *t;
  t->name = name;
  t->data = data;
  t->device_type = device_type;
  t->device_id = device_type == KHOST_DEVICE_CUDA ? device_id : 0;
  t->dtype = khost__dtype_abi(s->dtype);
  t->ndim = s->ndim;
  t->shape = shape;
  t->strides = strides;
  t->nbytes = s->nbytes;
}

/* Tensor t of the call: the inputs, then the outputs. */
static const khost__tensor_spec *tensor_spec(const khost__case_data *d, int t)
{
  return t < d->set.ninputs ? &d->set.inputs[t] : &d->set.outputs[t - d->set.ninputs];
}

/* Every string and array the input points to is the view's own copy. Zeroed
 * first, so that two views built alike compare equal byte for byte. */
static void build_view(khost__call *k, int device_type, int device_id, int num_threads)
{
  khost__case_data *d = k->data;
  khost__call_view *v = &k->view;
  memset(v, 0, sizeof *v);
  int slot = khost__device_slot(device_type);
  for (int t = 0; t < d->set.ninputs + d->set.noutputs; t++) {
    void *data = t < d->set.ninputs ? d->in[slot][t].data : k->out[t - d->set.ninputs].data;
    memcpy(v->shapes[t], d->shapes[t], sizeof v->shapes[t]);
    memcpy(v->strides[t], d->strides[t], sizeof v->strides[t]);
    snprintf(v->tensor_names[t], sizeof v->tensor_names[t], "%s", tensor_spec(d, t)->name);
    describe_tensor(&v->tensors[t], tensor_spec(d, t), v->tensor_names[t], data, device_type, device_id,
                    v->shapes[t], v->strides[t]);
  }
  for (int p = 0; p < d->nparams; p++) {
    snprintf(v->param_names[p], sizeof v->param_names[p], "%s", d->params[p].name);
    v->params[p].name = v->param_names[p];
    v->params[p].value = d->params[p].value;
  }
  snprintf(v->op, sizeof v->op, "%s", d->c->op->name);
  khost_input *in = &v->input;
  in->struct_size = sizeof *in;
  in->op = v->op;
  in->nparams = d->nparams;
  in->params = v->params;
  in->ninputs = d->set.ninputs;
  in->inputs = v->tensors;
  in->noutputs = d->set.noutputs;
  in->outputs = v->tensors + d->set.ninputs;
  in->error = k->error;
  in->error_size = sizeof k->error;
  in->num_threads = num_threads;
}

/* The first part of the view that differs from the view as built, named into
 * buf; NULL when none does. */
static const char *changed_part(const khost__call *k, char *buf, size_t n)
{
  const khost__call_view *v = &k->view, *b = &k->built;
  const khost__case_data *d = k->data;
  if (!memcmp(v, b, sizeof *v)) return NULL;
  for (int p = 0; p < d->nparams; p++)
    if (memcmp(&v->params[p], &b->params[p], sizeof v->params[p]) ||
        memcmp(v->param_names[p], b->param_names[p], sizeof v->param_names[p]))
      return snprintf(buf, n, "parameter '%s'", d->params[p].name), buf;
  for (int t = 0; t < d->set.ninputs + d->set.noutputs; t++) {
    const char *name = tensor_spec(d, t)->name;
    if (memcmp(v->tensor_names[t], b->tensor_names[t], sizeof v->tensor_names[t]))
      return snprintf(buf, n, "the name of tensor '%s'", name), buf;
    if (memcmp(v->shapes[t], b->shapes[t], sizeof v->shapes[t]))
      return snprintf(buf, n, "the shape of tensor '%s'", name), buf;
    if (memcmp(v->strides[t], b->strides[t], sizeof v->strides[t]))
      return snprintf(buf, n, "the strides of tensor '%s'", name), buf;
    if (memcmp(&v->tensors[t], &b->tensors[t], sizeof v->tensors[t]))
      return snprintf(buf, n, "the khost_tensor of '%s'", name), buf;
  }
  if (memcmp(v->op, b->op, sizeof v->op)) return "the op's name";
  return "the khost_input";
}

/* After a call into the plugin (fn): a write to what it was handed as read-only
 * is named in err, and undone so that it cannot reach a later call. */
static int check_view(khost__call *k, const char *fn, khost__err *err)
{
  char part[128];
  const char *changed = changed_part(k, part, sizeof part);
  if (!changed) return KHOST__OK;
  memcpy(&k->view, &k->built, sizeof k->view);
  return khost__errorf(err, KHOST__E_MUTATED, "%s wrote to what khost passed it as read-only: %s", fn,
                       changed);
}

/* The plugin's message after a call: it may have filled the buffer without a
 * terminating NUL. */
static const char *plugin_message(khost__call *k)
{
  k->error[sizeof k->error - 1] = '\0';
  return k->error;
}

/* A plugin function returned: a process it forked is ended, and what it was
 * handed as read-only is checked. */
static int returned(khost__call *k, const char *fn, khost__err *err)
{
  khost__fork_guard_check();
  return check_view(k, fn, err);
}

static int ask_plugin(khost__call *k, size_t *workspace, khost__err *err)
{
  const khost_input *in = &k->view.input;
  khost_supports_fn supports = khost__kernel_supports(k->kernel);
  k->error[0] = '\0';
  int rc = supports ? supports(in) : KHOST_STATUS_OK;
  int changed = supports ? returned(k, "supports()", err) : KHOST__OK;
  if (changed != KHOST__OK) return changed;
  const char *said = plugin_message(k);
  if (rc == KHOST_STATUS_UNSUPPORTED)
    return khost__errorf(err, KHOST__E_DECLINED, "declined: %s", said[0] ? said : "(no reason given)");
  if (rc != KHOST_STATUS_OK)
    return khost__errorf(err, KHOST__E_FAIL, "supports() returned status %d: %s", rc, said);
  khost_workspace_fn query = khost__kernel_workspace(k->kernel);
  *workspace = 0;
  rc = query ? query(in, workspace) : KHOST_STATUS_OK;
  if (query && (changed = returned(k, "workspace_size()", err)) != KHOST__OK) return changed;
  if (rc != KHOST_STATUS_OK)
    return khost__errorf(err, KHOST__E_FAIL, "workspace_size() returned status %d: %s", rc,
                         plugin_message(k));
  if (*workspace > KHOST__MAX_TENSOR_BYTES)
    return khost__errorf(err, KHOST__E_FAIL,
                         "workspace_size() asked for %zu bytes, more than the %zu khost allows", *workspace,
                         KHOST__MAX_TENSOR_BYTES);
  khost_describe_fn describe = khost__kernel_describe(k->kernel);
  rc = describe ? describe(in, k->variant, sizeof k->variant) : KHOST_STATUS_OK;
  if (describe && (changed = returned(k, "describe()", err)) != KHOST__OK) return changed;
  if (rc != KHOST_STATUS_OK)
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
    rc = khost__buffer_alloc(&k->out[t], device, d->set.outputs[t].nbytes, d->set.outputs[t].name, err);
  if (rc != KHOST__OK) goto fail;
  build_view(k, device, device_id, num_threads);
  if (device == KHOST_DEVICE_CUDA) k->view.input.stream = khost__cuda_stream();
  memcpy(&k->built, &k->view, sizeof k->built);
  size_t workspace = 0;
  if ((rc = ask_plugin(k, &workspace, err)) != KHOST__OK) goto fail;
  if (workspace &&
      (rc = khost__buffer_alloc(&k->workspace, device, workspace, "the workspace", err)) != KHOST__OK)
    goto fail;
  k->view.input.workspace = k->workspace.data;
  k->view.input.workspace_bytes = workspace;
  memcpy(&k->built, &k->view, sizeof k->built);
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
  khost__nvtx_call_begin();
  int rc = k->kernel->run(&k->view.input);
  khost__fork_guard_check();
  khost__nvtx_call_end();
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
    if ((rc = khost__memory_check(spec->nbytes, spec->name, err)) != KHOST__OK) return rc;
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
  if ((rc = check_view(k, "run()", err)) != KHOST__OK) return rc;
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

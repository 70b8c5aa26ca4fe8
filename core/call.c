#include "call.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cuda.h"
#include "fork_guard.h"
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
  t->ndim = s->chunk_dims ? 1 : s->ndim; /* an arena: one flat run, gaps included */
  t->shape = shape;
  t->strides = strides;
  t->nbytes = khost__tensor_storage_bytes(s);
}

/* What tensor t of the call is at: an input's copy on the call's device (a
 * table's the call's own), an output's buffer. */
static void *tensor_data(const khost__call *k, int slot, int t)
{
  const khost__case_data *d = k->data;
  if (t >= d->set.ninputs) return k->out[t - d->set.ninputs].data;
  return d->set.inputs[t].table_of >= 0 ? k->table[t].data : d->in[slot][t].data;
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
    void *data = tensor_data(k, slot, t);
    memcpy(v->shapes[t], d->shapes[t], sizeof v->shapes[t]);
    memcpy(v->strides[t], d->strides[t], sizeof v->strides[t]);
    snprintf(v->tensor_names[t], sizeof v->tensor_names[t], "%s", khost__case_data_tensor(d, t)->name);
    describe_tensor(&v->tensors[t], khost__case_data_tensor(d, t), v->tensor_names[t], data, device_type,
                    device_id, v->shapes[t], v->strides[t]);
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
    const char *name = khost__case_data_tensor(d, t)->name;
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
  return KHOST__OK;
}

/* What the plugin says of the prepared call: describe()'s variant and
 * call_overhead()'s seconds. */
static int ask_about_call(khost__call *k, khost__err *err)
{
  const khost_input *in = &k->view.input;
  khost_describe_fn describe = khost__kernel_describe(k->kernel);
  int changed, rc = describe ? describe(in, k->variant, sizeof k->variant) : KHOST_STATUS_OK;
  if (describe && (changed = returned(k, "describe()", err)) != KHOST__OK) return changed;
  if (rc != KHOST_STATUS_OK)
    return khost__errorf(err, KHOST__E_FAIL, "describe() returned status %d: %s", rc, plugin_message(k));
  /* A plugin that filled the whole buffer may have left it unterminated. */
  k->variant[sizeof k->variant - 1] = '\0';
  khost_call_overhead_fn overhead = khost__kernel_call_overhead(k->kernel);
  double seconds = 0;
  rc = overhead ? overhead(in, &seconds) : KHOST_STATUS_OK;
  if (overhead && (changed = returned(k, "call_overhead()", err)) != KHOST__OK) return changed;
  if (rc != KHOST_STATUS_OK)
    return khost__errorf(err, KHOST__E_FAIL, "call_overhead() returned status %d: %s", rc, plugin_message(k));
  if (!(seconds >= 0 && seconds < 1e3)) /* NaN fails both */
    return khost__errorf(err, KHOST__E_FAIL, "call_overhead() gave %g s, not a time from 0 to 1000 s",
                         seconds);
  k->call_overhead_s = seconds;
  return KHOST__OK;
}

/* Table t's entries on the call's device: its arena's offsets from the arena's
 * address there, which only the call knows (an output's buffer is its own). */
static uint64_t *table_entries(const khost__call *k, int t, khost__err *err)
{
  const khost__case_data *d = k->data;
  const khost__arena *a = &d->arena[d->set.inputs[t].table_of];
  uint64_t *entries = malloc((a->chunks ? a->chunks : 1) * sizeof *entries);
  if (!entries) {
    khost__errorf(err, KHOST__E_NOMEM, "out of memory for the table %s", d->set.inputs[t].name);
    return NULL;
  }
  uintptr_t base =
      (uintptr_t)tensor_data(k, khost__device_slot(k->kernel->device_type), d->set.inputs[t].table_of);
  for (size_t i = 0; i < a->chunks; i++) entries[i] = (uint64_t)base + a->offset[i];
  return entries;
}

/* Writes table t's entries into its buffer (after a kernel changed them, too). */
static int fill_table(khost__call *k, int t, khost__err *err)
{
  uint64_t *entries = table_entries(k, t, err);
  if (!entries) return KHOST__E_NOMEM;
  int rc = khost__buffer_reset_guards(&k->table[t], err);
  if (rc == KHOST__OK) rc = khost__buffer_write(&k->table[t], entries, err);
  free(entries);
  return rc;
}

static int make_table(khost__call *k, int t, khost__err *err)
{
  const khost__tensor_spec *s = &k->data->set.inputs[t];
  int rc = khost__buffer_alloc(&k->table[t], k->kernel->device_type, s->nbytes, s->name, err);
  return rc == KHOST__OK ? fill_table(k, t, err) : rc;
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
    rc = khost__buffer_alloc(&k->out[t], device, khost__tensor_storage_bytes(&d->set.outputs[t]),
                             d->set.outputs[t].name, err);
  for (int t = 0; t < d->set.ninputs && rc == KHOST__OK; t++)
    if (d->set.inputs[t].table_of >= 0) rc = make_table(k, t, err);
  if (rc != KHOST__OK) goto fail;
  build_view(k, device, device_id, num_threads);
  if (device == KHOST_DEVICE_CUDA) k->view.input.stream = khost__cuda_stream();
  memcpy(&k->built, &k->view, sizeof k->built);
  size_t workspace = 0;
  if ((rc = ask_plugin(k, &workspace, err)) != KHOST__OK || (rc = ask_about_call(k, err)) != KHOST__OK)
    goto fail;
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

int khost__call_not_capturable(const khost__call *k)
{
  return (khost__kernel_flags(k->kernel) & KHOST_KERNEL_NOT_CAPTURABLE) != 0;
}

int khost__call_run(khost__call *k)
{
  k->error[0] = '\0';
  int rc = k->kernel->run(&k->view.input);
  khost__fork_guard_check();
  plugin_message(k);
  return rc;
}

/* Output t's storage read into a new host block (*out, the caller frees it). */
static int read_storage(const khost__call *k, int t, void **out, khost__err *err)
{
  const khost__buffer *b = &k->out[t];
  const char *name = k->data->set.outputs[t].name;
  int rc = khost__memory_check(b->nbytes, name, err);
  if (rc != KHOST__OK) return rc;
  if (!(*out = malloc(b->nbytes ? b->nbytes : 1)))
    return khost__errorf(err, KHOST__E_NOMEM, "out of memory reading output %s", name);
  rc = khost__buffer_read(b, *out, err);
  if (rc != KHOST__OK) free(*out), *out = NULL;
  return rc;
}

int khost__call_read_output(const khost__call *k, int t, void *dst, khost__err *err)
{
  const khost__case_data *d = k->data;
  if (!d->set.outputs[t].chunk_dims) return khost__buffer_read(&k->out[t], dst, err);
  void *image = NULL;
  int rc = read_storage(k, t, &image, err);
  if (rc == KHOST__OK) khost__arena_gather(&d->arena[d->set.ninputs + t], image, dst);
  free(image);
  return rc;
}

int khost__call_read_checked_output(const khost__call *k, int t, void *dst, khost__err *err)
{
  const khost__case_data *d = k->data;
  const khost__tensor_spec *spec = &d->set.outputs[t];
  int rc = khost__buffer_check_guards(&k->out[t], spec->name, err);
  if (rc != KHOST__OK) return rc == KHOST__E_FAIL ? KHOST__E_GUARD : rc;
  if (!spec->chunk_dims) return khost__buffer_read(&k->out[t], dst, err);
  /* One read of the arena serves both the gaps and the chunks: it can be a GiB. */
  void *image = NULL;
  if ((rc = read_storage(k, t, &image, err)) != KHOST__OK) return rc;
  const khost__arena *a = &d->arena[d->set.ninputs + t];
  size_t at = khost__arena_gap_written(a, image);
  if (at == SIZE_MAX) khost__arena_gather(a, image, dst);
  free(image);
  if (at == SIZE_MAX) return KHOST__OK;
  char where[256];
  khost__arena_locate(a, spec, at, where, sizeof where);
  return khost__errorf(err, KHOST__E_GUARD, "%s: written outside every chunk, at byte %zu of the arena (%s)",
                       spec->name, at, where);
}

static int check_outputs(khost__call *k, khost__check_stats *stats, khost__err *err)
{
  const khost__case_data *d = k->data;
  memset(stats, 0, sizeof *stats);
  for (int t = 0; t < d->set.noutputs; t++) {
    const khost__tensor_spec *spec = &d->set.outputs[t];
    int rc = khost__memory_check(spec->nbytes, spec->name, err);
    if (rc != KHOST__OK) return rc;
    void *got = malloc(spec->nbytes ? spec->nbytes : 1);
    if (!got) return khost__errorf(err, KHOST__E_NOMEM, "out of memory reading output %s", spec->name);
    rc = khost__call_read_checked_output(k, t, got, err);
    khost__check_stats one;
    if (rc == KHOST__OK) {
      khost__check_output(spec, got, d->ref[t], d->c->atol, d->c->rtol, d->bound[t], &one);
      khost__check_merge(stats, &one);
    }
    free(got);
    if (rc != KHOST__OK) return rc;
  }
  return KHOST__OK;
}

/* Table t's entries against those the call made: KHOST__E_MUTATED naming the
 * first changed entry. */
static int compare_entries(const khost__call *k, int t, khost__err *err)
{
  const khost__tensor_spec *s = &k->data->set.inputs[t];
  uint64_t *want = table_entries(k, t, err), *got = malloc(s->nbytes ? s->nbytes : 1);
  int rc = want && got ? khost__buffer_read(&k->table[t], got, err)
                       : khost__errorf(err, KHOST__E_NOMEM, "out of memory checking the table %s", s->name);
  size_t i = 0, n = s->nbytes / sizeof *got;
  while (rc == KHOST__OK && i < n && got[i] == want[i]) i++;
  if (rc == KHOST__OK && i < n)
    rc = khost__errorf(err, KHOST__E_MUTATED, "the kernel modified its input '%s' (entry %zu)", s->name, i);
  free(want);
  free(got);
  return rc;
}

/* Each table as the call made it. A table is the call's own buffer, made for
 * it as its outputs are, so a write past its ends is an out-of-bounds write
 * (KHOST__E_GUARD, as for an output); a changed entry is a modified input
 * (KHOST__E_MUTATED). Either way the table is made again for the next call. */
static int check_tables(khost__call *k, khost__err *err)
{
  const khost__case_data *d = k->data;
  for (int t = 0; t < d->set.ninputs; t++) {
    if (d->set.inputs[t].table_of < 0) continue;
    int rc = khost__buffer_check_guards(&k->table[t], d->set.inputs[t].name, err);
    if (rc == KHOST__E_FAIL) rc = KHOST__E_GUARD;
    if (rc == KHOST__OK) rc = compare_entries(k, t, err);
    if (rc == KHOST__E_GUARD || rc == KHOST__E_MUTATED) fill_table(k, t, NULL);
    if (rc != KHOST__OK) return rc;
  }
  return KHOST__OK;
}

int khost__call_check_side_effects(khost__call *k, khost__err *err)
{
  int rc = k->workspace.base ? khost__buffer_check_guards(&k->workspace, "workspace", err) : KHOST__OK;
  if (rc != KHOST__OK) return rc == KHOST__E_FAIL ? KHOST__E_GUARD : rc;
  if ((rc = check_view(k, "run()", err)) != KHOST__OK) return rc;
  if ((rc = check_tables(k, err)) != KHOST__OK) return rc;
  rc = khost__case_data_check_inputs(k->data, k->kernel->device_type, err);
  return rc == KHOST__E_FAIL ? KHOST__E_MUTATED : rc;
}

int khost__call_check(khost__call *k, khost__check_stats *stats, khost__err *err)
{
  int rc = check_outputs(k, stats, err);
  return rc == KHOST__OK ? khost__call_check_side_effects(k, err) : rc;
}

int khost__call_writes_nothing(const khost__call *k)
{
  for (int t = 0; t < k->data->set.noutputs; t++)
    if (k->data->set.outputs[t].nbytes) return 0;
  return 1;
}

void khost__call_free(khost__call *k)
{
  khost__buffer_free(&k->workspace);
  for (int t = KHOST__MAX_TENSORS - 1; t >= 0; t--) khost__buffer_free(&k->table[t]);
  for (int t = KHOST__MAX_TENSORS - 1; t >= 0; t--) khost__buffer_free(&k->out[t]);
  memset(k, 0, sizeof *k);
}

#include "casedata.h"

#include <stdlib.h>
#include <string.h>

#include "cuda.h"
#include "memory.h"

const khost__tensor_spec *khost__case_data_tensor(const khost__case_data *d, int t)
{
  return t < d->set.ninputs ? &d->set.inputs[t] : &d->set.outputs[t - d->set.ninputs];
}

/* A kernel sees an arena as one flat run of its elements, its gaps included:
 * what lies where is the tables' to say. */
static void describe(khost__case_data *d)
{
  const khost__op *op = d->c->op;
  op->vary(d->c, &d->vary);
  d->nparams = 0;
  for (int i = 0; i < op->nparams; i++) {
    if (op->params[i].kind == KHOST__PARAM_DTYPE) continue;
    d->params[d->nparams].name = op->params[i].name;
    d->params[d->nparams++].value = d->c->params[i];
  }
  for (int t = 0; t < d->set.ninputs + d->set.noutputs; t++) {
    const khost__tensor_spec *s = khost__case_data_tensor(d, t);
    int64_t stride = 1;
    if (s->chunk_dims) {
      d->shapes[t][0] = (int64_t)(khost__tensor_storage_bytes(s) / (khost__dtype_bits(s->dtype) / 8));
      d->strides[t][0] = 1;
      continue;
    }
    for (int k = s->ndim - 1; k >= 0; k--) {
      d->shapes[t][k] = s->shape[k];
      d->strides[t][k] = stride;
      stride *= s->shape[k];
    }
  }
}

/* The host memory the case's own data takes: each input twice (generated, and
 * the guarded copy kernels read; an arena's elements once more, kept packed for
 * the timed calls' variations), each reference output and its error bounds. */
static size_t host_bytes(const khost__op *op, const khost__tensor_set *set)
{
  size_t bytes = 0;
  for (int t = 0; t < set->ninputs; t++)
    bytes += 2 * (khost__tensor_storage_bytes(&set->inputs[t]) + KHOST__GUARD_BYTES) +
             (set->inputs[t].chunk_dims ? set->inputs[t].nbytes : 0); /* an arena's elements, packed */
  for (int t = 0; t < set->noutputs; t++)
    bytes += set->outputs[t].nbytes +
             (op->error_bound ? khost__tensor_elements(&set->outputs[t]) * sizeof(float) : 0);
  return bytes;
}

/* The op's per-element bounds for the inputs now in d->pristine. */
static int compute_bounds(khost__case_data *d, khost__err *err)
{
  const khost__op *op = d->c->op;
  for (int t = 0; t < d->set.noutputs && op->error_bound; t++) {
    if (!d->bound[t] && !(d->bound[t] = malloc(khost__tensor_elements(&d->set.outputs[t]) * sizeof(float))))
      return khost__errorf(err, KHOST__E_NOMEM, "out of memory for the error bounds of %s",
                           d->set.outputs[t].name);
    if (op->error_bound(d->c, (const void *const *)d->pristine, t, d->bound[t]) != KHOST__OK)
      return khost__errorf(err, KHOST__E_NOMEM, "out of memory computing the error bounds of %s",
                           d->set.outputs[t].name);
  }
  return KHOST__OK;
}

/* Input t's storage for d->seed: a table's offsets (its arena placed first), an
 * arena's image, or the generated elements. */
static int generate_input(khost__case_data *d, int t, khost__err *err)
{
  const khost__tensor_spec *s = &d->set.inputs[t];
  if (s->table_of >= 0) {
    const khost__arena *a = &d->arena[s->table_of];
    memcpy(d->pristine[t], a->offset, a->chunks * sizeof *a->offset);
    return KHOST__OK;
  }
  if (!s->chunk_dims) {
    d->c->op->generate(d->c, d->seed, t, d->pristine[t]);
    return KHOST__OK;
  }
  if (!d->elements[t] && !(d->elements[t] = malloc(s->nbytes ? s->nbytes : 1)))
    return khost__errorf(err, KHOST__E_NOMEM, "out of memory generating input %s", s->name);
  d->c->op->generate(d->c, d->seed, t, d->elements[t]);
  khost__arena_scatter(&d->arena[t], d->elements[t], d->pristine[t]);
  return KHOST__OK;
}

/* Every arena placed for the seed the data is made with, before any table is
 * filled from one. The placement stays for the data's life: calls bound to it
 * hold their tables, and new inputs (reseed) are new elements in the same chunks. */
static int make_arenas(khost__case_data *d, khost__err *err)
{
  for (int t = 0; t < d->set.ninputs + d->set.noutputs; t++) {
    const khost__tensor_spec *s = khost__case_data_tensor(d, t);
    int rc = s->chunk_dims ? khost__arena_make(&d->arena[t], s, d->seed, t, err) : KHOST__OK;
    if (rc != KHOST__OK) return rc;
  }
  return KHOST__OK;
}

/* Input t generated, hashed and written into its host copy (a table has none). */
static int make_input(khost__case_data *d, int t, khost__err *err)
{
  const khost__tensor_spec *s = &d->set.inputs[t];
  size_t n = khost__tensor_storage_bytes(s);
  /* One byte at least: malloc(0) may answer NULL for an empty tensor. */
  if (!(d->pristine[t] = malloc(n ? n : 1)))
    return khost__errorf(err, KHOST__E_NOMEM, "out of memory for input %s", s->name);
  int rc = generate_input(d, t, err);
  if (rc != KHOST__OK) return rc;
  d->in_hash[t] = khost__hash_bytes(d->pristine[t], n);
  if (s->table_of >= 0) return KHOST__OK;
  rc = khost__buffer_alloc(&d->in[0][t], KHOST_DEVICE_CPU, n, s->name, err);
  return rc == KHOST__OK ? khost__buffer_write(&d->in[0][t], d->pristine[t], err) : rc;
}

int khost__case_data_make(khost__case_data *d, const khost__case *c, uint64_t seed, khost__err *err)
{
  memset(d, 0, sizeof *d);
  d->c = c;
  d->seed = seed;
  c->op->tensors(c, &d->set);
  describe(d);
  /* All of it, before any of it is made: a case too large is refused at once,
   * not after its first inputs took minutes to generate. */
  int rc = khost__memory_check(host_bytes(c->op, &d->set), "the case's inputs and reference outputs", err);
  if (rc == KHOST__OK) rc = make_arenas(d, err);
  for (int t = 0; t < d->set.ninputs && rc == KHOST__OK; t++) rc = make_input(d, t, err);
  for (int t = 0; t < d->set.noutputs && rc == KHOST__OK; t++) {
    d->ref[t] = malloc(d->set.outputs[t].nbytes ? d->set.outputs[t].nbytes : 1);
    /* Written now, so that the checks of later allocations see it taken. */
    if (d->ref[t])
      memset(d->ref[t], KHOST__POISON_BYTE, d->set.outputs[t].nbytes);
    else
      rc = khost__errorf(err, KHOST__E_NOMEM, "out of memory for the reference output");
  }
  if (rc == KHOST__OK) rc = compute_bounds(d, err);
  if (rc != KHOST__OK) khost__case_data_free(d);
  return rc;
}

int khost__case_data_upload(khost__case_data *d, khost__err *err)
{
  for (int t = 0; t < d->set.ninputs; t++) {
    if (d->in[1][t].base || !d->in[0][t].base) continue;
    int rc =
        khost__buffer_alloc(&d->in[1][t], KHOST_DEVICE_CUDA, d->in[0][t].nbytes, d->set.inputs[t].name, err);
    if (rc == KHOST__OK) rc = khost__buffer_write(&d->in[1][t], d->pristine[t], err);
    if (rc != KHOST__OK) return rc;
  }
  return KHOST__OK;
}

int khost__case_data_clone_device(khost__case_data *copy, const khost__case_data *d, khost__err *err)
{
  memset(copy, 0, sizeof *copy);
  copy->c = d->c;
  copy->seed = d->seed;
  copy->set = d->set;
  describe(copy);
  memcpy(copy->in_hash, d->in_hash, sizeof copy->in_hash);
  int rc = KHOST__OK;
  /* The same placements: a call bound to the copy fills its tables from them. */
  for (int t = 0; t < d->set.ninputs + d->set.noutputs && rc == KHOST__OK; t++)
    if (d->arena[t].offset) rc = khost__arena_copy(&copy->arena[t], &d->arena[t], err);
  for (int t = 0; t < d->set.ninputs && rc == KHOST__OK; t++) {
    if (!d->in[1][t].base) continue;
    rc = khost__buffer_alloc(&copy->in[1][t], KHOST_DEVICE_CUDA, d->in[1][t].nbytes, d->set.inputs[t].name,
                             err);
    if (rc == KHOST__OK)
      rc = khost__cuda_copy(copy->in[1][t].data, d->in[1][t].data, d->in[1][t].nbytes, err);
  }
  if (rc != KHOST__OK) khost__case_data_free(copy);
  return rc;
}

int khost__device_slot(int device_type)
{
  return device_type == KHOST_DEVICE_CUDA ? 1 : 0;
}

/* What changed in arena input t, copy being what the kernel left: where the first changed byte lies. */
static int arena_changed(const khost__case_data *d, int t, const unsigned char *copy, khost__err *err)
{
  const unsigned char *was = d->pristine[t];
  size_t at = 0;
  while (copy[at] == was[at]) at++;
  char where[256];
  khost__arena_locate(&d->arena[t], &d->set.inputs[t], at, where, sizeof where);
  return khost__errorf(err, KHOST__E_FAIL, "the kernel modified its input '%s' (byte %zu: %s)",
                       d->set.inputs[t].name, at, where);
}

static int check_one(const khost__case_data *d, int t, const khost__buffer *b, khost__err *err)
{
  const char *name = d->set.inputs[t].name;
  int rc = khost__buffer_check_guards(b, name, err);
  if (rc != KHOST__OK) return rc;
  if (b->device_type != KHOST_DEVICE_CPU && (rc = khost__memory_check(b->nbytes, name, err)) != KHOST__OK)
    return rc;
  void *copy = b->device_type == KHOST_DEVICE_CPU ? b->data : malloc(b->nbytes);
  if (!copy) return khost__errorf(err, KHOST__E_NOMEM, "out of memory checking input %s", name);
  if (copy != b->data) rc = khost__buffer_read(b, copy, err);
  if (rc == KHOST__OK && khost__hash_bytes(copy, b->nbytes) != d->in_hash[t])
    rc = d->set.inputs[t].chunk_dims && memcmp(copy, d->pristine[t], b->nbytes)
             ? arena_changed(d, t, copy, err)
             : khost__errorf(err, KHOST__E_FAIL, "the kernel modified its input '%s'", name);
  if (copy != b->data) free(copy);
  return rc;
}

int khost__case_data_check_inputs(const khost__case_data *d, int device_type, khost__err *err)
{
  int slot = khost__device_slot(device_type);
  for (int t = 0; t < d->set.ninputs; t++) {
    /* A table is the call's own, checked there (call.h). */
    if (d->set.inputs[t].table_of >= 0) continue;
    int rc = check_one(d, t, &d->in[slot][t], err);
    if (rc != KHOST__OK) return rc;
  }
  return KHOST__OK;
}

int khost__case_data_reseed(khost__case_data *d, uint64_t seed, khost__err *err)
{
  d->seed = seed;
  d->originals_ready = 0;
  for (int t = 0; t < d->set.ninputs; t++) {
    int rc = generate_input(d, t, err);
    if (rc != KHOST__OK) return rc;
    d->in_hash[t] = khost__hash_bytes(d->pristine[t], khost__tensor_storage_bytes(&d->set.inputs[t]));
  }
  int rc = compute_bounds(d, err);
  return rc == KHOST__OK ? khost__case_data_restore(d, err) : rc;
}

int khost__case_data_restore(khost__case_data *d, khost__err *err)
{
  for (int slot = 0; slot < 2; slot++)
    for (int t = 0; t < d->set.ninputs; t++) {
      khost__buffer *b = &d->in[slot][t];
      if (!b->base) continue;
      /* In place: prepared calls of other backends point at these buffers. */
      int rc = khost__buffer_reset_guards(b, err);
      if (rc == KHOST__OK) rc = khost__buffer_write(b, d->pristine[t], err);
      if (rc != KHOST__OK) return rc;
    }
  return KHOST__OK;
}

void khost__case_data_free(khost__case_data *d)
{
  for (int t = 0; t < KHOST__MAX_TENSORS; t++) {
    free(d->pristine[t]);
    free(d->elements[t]);
    khost__buffer_free(&d->in[1][t]);
    khost__buffer_free(&d->in[0][t]);
    khost__buffer_free(&d->original_in[t]);
    khost__buffer_free(&d->original_ref[t]);
    khost__buffer_free(&d->original_bound[t]);
    free(d->ref[t]);
    free(d->bound[t]);
  }
  for (int t = 0; t < 2 * KHOST__MAX_TENSORS; t++) khost__arena_free(&d->arena[t]);
  memset(d, 0, sizeof *d);
}

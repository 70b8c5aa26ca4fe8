#include "fresh.h"

#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cuda.h"
#include "parallel_rows.h"

static int is_cuda(const khost__call *call)
{
  return call->kernel->device_type == KHOST_DEVICE_CUDA;
}

/* The threads khost's host passes for call use: those its CPU kernel may use (--threads). */
static int threads_of(const khost__call *call)
{
  return call->view.input.num_threads;
}

static int upload(khost__buffer *b, const void *src, size_t nbytes, const char *name, khost__err *err)
{
  int rc = b->base ? KHOST__OK : khost__buffer_alloc(b, KHOST_DEVICE_CUDA, nbytes, name, err);
  return rc == KHOST__OK ? khost__buffer_write(b, src, err) : rc;
}

/* An arena's chunks are scattered between poisoned gaps, which a variation's
 * rows cannot describe: an arena is varied packed, then placed, and its output
 * gathered before it is compared, all on the host (the device has no kernel for
 * either), so a CUDA call's arena crosses the bus twice per timed call. */
static int is_arena(const khost__tensor_spec *spec)
{
  return spec->chunk_dims != 0;
}

int khost__fresh_upload(khost__case_data *d, khost__err *err)
{
  int rc = KHOST__OK;
  if (d->originals_ready) return KHOST__OK;
  /* Tables are made per call, arenas varied on the host: neither is varied from the device. */
  for (int t = 0; t < d->set.ninputs && rc == KHOST__OK; t++)
    if (d->set.inputs[t].table_of < 0 && !is_arena(&d->set.inputs[t]))
      rc = upload(&d->original_in[t], d->pristine[t], d->set.inputs[t].nbytes, d->set.inputs[t].name, err);
  for (int t = 0; t < d->set.noutputs && rc == KHOST__OK; t++)
    if (!is_arena(&d->set.outputs[t]))
      rc = upload(&d->original_ref[t], d->ref[t], d->set.outputs[t].nbytes, d->set.outputs[t].name, err);
  for (int t = 0; t < d->set.noutputs && rc == KHOST__OK; t++)
    if (d->bound[t])
      rc = upload(&d->original_bound[t], d->bound[t],
                  khost__tensor_elements(&d->set.outputs[t]) * sizeof(float), d->set.outputs[t].name, err);
  d->originals_ready = rc == KHOST__OK;
  return rc;
}

/* Arena input t varied by v into dst, the call's image of it: its elements
 * varied packed, then placed in its chunks (the gaps keep their poison). */
static int vary_arena(khost__call *call, const khost__case_data *d, const khost__vary_call *v, int t,
                      void *dst, khost__err *err)
{
  const khost__arena *a = &d->arena[t];
  void *packed = malloc(d->set.inputs[t].nbytes ? d->set.inputs[t].nbytes : 1);
  void *image = is_cuda(call) ? malloc(a->bytes ? a->bytes : 1) : dst;
  int rc = packed && image
               ? KHOST__OK
               : khost__errorf(err, KHOST__E_NOMEM, "out of memory varying input %s", d->set.inputs[t].name);
  if (rc == KHOST__OK)
    rc = khost__vary_host(&d->vary.inputs[t], v, d->elements[t], packed, threads_of(call), err);
  if (rc == KHOST__OK) khost__arena_scatter(a, packed, image);
  if (rc == KHOST__OK && image != dst) rc = khost__cuda_upload(dst, image, a->bytes, err);
  if (image != dst) free(image);
  free(packed);
  return rc;
}

int khost__fresh_inputs(khost__call *call, const khost__case_data *d, const khost__vary_call *v,
                        khost__err *err)
{
  int slot = khost__device_slot(call->kernel->device_type), rc = KHOST__OK;
  for (int t = 0; t < d->set.ninputs && rc == KHOST__OK; t++) {
    void *dst = call->data->in[slot][t].data;
    if (d->set.inputs[t].table_of >= 0) continue; /* the call's own, its entries as made (call.h) */
    if (is_arena(&d->set.inputs[t]))
      rc = vary_arena(call, d, v, t, dst, err);
    else if (is_cuda(call))
      rc = khost__cuda_vary(&d->vary.inputs[t], v, d->original_in[t].data, dst, err);
    else
      rc = khost__vary_host(&d->vary.inputs[t], v, d->pristine[t], dst, threads_of(call), err);
  }
  return rc == KHOST__OK ? khost__call_poison(call, err) : rc;
}

/* Where output t's per-element error bounds go: its elements' places, as
 * 4-byte floats that never flip (an op with bounds has outputs of whole bytes). */
static khost__vary_map bound_map(const khost__case_data *d, int t)
{
  khost__vary_map m = d->vary.outputs[t];
  m.unit_bytes = sizeof(float);
  m.sign_mask = 0;
  return m;
}

/* Output t on the host, against its expected values (and bounds) made there:
 * every count, and the first mismatches with their coordinates. */
static int check_on_host(khost__call *call, const khost__case_data *d, const khost__vary_call *v, int t,
                         khost__check_stats *one, khost__err *err)
{
  const khost__tensor_spec *spec = &d->set.outputs[t];
  khost__vary_map bounds = bound_map(d, t);
  /* A CPU output is read in place, unless an arena's chunks must be gathered. */
  int in_place = !is_cuda(call) && !is_arena(spec);
  size_t bytes = spec->nbytes ? spec->nbytes : 1; /* malloc(0) may answer NULL */
  void *expected = malloc(bytes), *got = in_place ? call->out[t].data : malloc(bytes);
  float *bound = d->bound[t] ? malloc(khost__tensor_elements(spec) * sizeof(float)) : NULL;
  int rc = expected && got && (bound || !d->bound[t])
               ? KHOST__OK
               : khost__errorf(err, KHOST__E_NOMEM, "out of memory checking output %s", spec->name);
  if (rc == KHOST__OK && got != call->out[t].data) rc = khost__call_read_output(call, t, got, err);
  if (rc == KHOST__OK)
    rc = khost__vary_host(&d->vary.outputs[t], v, d->ref[t], expected, threads_of(call), err);
  if (rc == KHOST__OK && bound) rc = khost__vary_host(&bounds, v, d->bound[t], bound, threads_of(call), err);
  if (rc == KHOST__OK) khost__check_output(spec, got, expected, d->c->atol, d->c->rtol, bound, one);
  if (got != call->out[t].data) free(got);
  free(bound);
  free(expected);
  return rc;
}

/* The device's comparison where it has one for the dtype: a passing output is
 * never copied to the host. -1 when the device cannot compare the dtype. */
static int device_dtype(khost__dtype_id dtype)
{
  switch (dtype) {
  case KHOST__DT_FP16: return KHOST__VARY_CHECK_FP16;
  case KHOST__DT_BF16: return KHOST__VARY_CHECK_BF16;
  case KHOST__DT_FP32: return KHOST__VARY_CHECK_FP32;
  default: return -1;
  }
}

/* 1 in *passed when the device found output t right; 0 when it found it wrong
 * or cannot compare it (the host then checks it). */
static int passes_on_device(khost__call *call, const khost__case_data *d, const khost__vary_call *v, int t,
                            int *passed, khost__err *err)
{
  int dtype = device_dtype(d->set.outputs[t].dtype);
  unsigned long long counts[2] = {0, 0};
  *passed = 0;
  if (dtype < 0 || is_arena(&d->set.outputs[t])) return KHOST__OK;
  int rc =
      khost__cuda_vary_check(&d->vary.outputs[t], v, dtype, d->c->atol, d->c->rtol, d->original_ref[t].data,
                             d->original_bound[t].data, call->out[t].data, counts, err);
  *passed = rc == KHOST__OK && counts[0] == 0;
  return rc;
}

/* Expected rows are made this many bytes at a time and compared while they are
 * in cache: no output-sized buffer, and one pass over the output's memory. */
#define HOST_CHUNK_BYTES (256 * 1024)

/* One CPU output's check, its rows split over threads: each worker varies the
 * reference (and the bounds, when the op has them) a chunk of rows at a time
 * and compares it with the output. */
typedef struct host_check {
  const khost__vary_walk *walk, *bound_walk; /* bound_walk NULL: no bounds */
  const void *ref, *bound;
  const unsigned char *got;
  khost__dtype_id dtype;
  double atol, rtol;
  uint64_t width, row_bytes, chunk_rows;
  int outcome[KHOST__MAX_THREADS]; /* a worker's: KHOST__OK, KHOST__E_WRONG or KHOST__E_NOMEM */
} host_check;

static void check_rows(void *arg, int worker, int64_t begin, int64_t end)
{
  host_check *job = arg;
  unsigned char *expected = malloc(job->chunk_rows * job->row_bytes);
  float *bound = job->bound_walk ? malloc(job->chunk_rows * job->width * sizeof(float)) : NULL;
  int *outcome = &job->outcome[worker];
  *outcome = expected && (bound || !job->bound_walk) ? KHOST__OK : KHOST__E_NOMEM;
  for (uint64_t r = (uint64_t)begin; r < (uint64_t)end && *outcome == KHOST__OK; r += job->chunk_rows) {
    uint64_t stop = r + job->chunk_rows < (uint64_t)end ? r + job->chunk_rows : (uint64_t)end;
    khost__vary_walk_rows(job->walk, job->ref, expected, r, stop);
    if (bound) khost__vary_walk_rows(job->bound_walk, job->bound, bound, r, stop);
    if (!khost__check_passes(job->dtype, job->got + r * job->row_bytes, expected, (stop - r) * job->width,
                             job->atol, job->rtol, bound))
      *outcome = KHOST__E_WRONG;
  }
  free(bound);
  free(expected);
}

/* 1 in *passed when CPU output t is right; 0 when it is not, is packed below
 * a byte per element or is an arena (the full check then decides). */
static int passes_on_host(khost__call *call, const khost__case_data *d, const khost__vary_call *v, int t,
                          int *passed, khost__err *err)
{
  const khost__tensor_spec *spec = &d->set.outputs[t];
  const khost__vary_map *m = &d->vary.outputs[t];
  khost__vary_map bounds = bound_map(d, t);
  khost__vary_walk walk, bound_walk;
  *passed = 0;
  if (khost__dtype_bits(spec->dtype) < 8 || is_arena(spec)) return KHOST__OK;
  int rc = khost__vary_walk_start(&walk, m, v, err);
  if (rc == KHOST__OK) rc = khost__vary_walk_start(&bound_walk, &bounds, v, err);
  if (rc != KHOST__OK) return khost__vary_walk_free(&walk), rc;
  host_check job = {.walk = &walk,
                    .bound_walk = d->bound[t] ? &bound_walk : NULL,
                    .ref = d->ref[t],
                    .bound = d->bound[t],
                    .got = call->out[t].data,
                    .dtype = spec->dtype,
                    .atol = d->c->atol,
                    .rtol = d->c->rtol,
                    .width = khost__vary_width(m)};
  job.row_bytes = job.width * (uint64_t)m->unit_bytes;
  job.chunk_rows = job.row_bytes < HOST_CHUNK_BYTES ? HOST_CHUNK_BYTES / job.row_bytes : 1;
  int64_t rows = (int64_t)khost__vary_rows(m);
  khost__parallel_rows(rows, threads_of(call), check_rows, &job);
  *passed = 1;
  for (int w = 0; w < khost__parallel_workers(rows, threads_of(call)); w++) {
    if (job.outcome[w] == KHOST__E_NOMEM)
      rc = khost__errorf(err, KHOST__E_NOMEM, "out of memory checking output %s", spec->name);
    *passed = *passed && job.outcome[w] == KHOST__OK;
  }
  khost__vary_walk_free(&bound_walk);
  khost__vary_walk_free(&walk);
  return rc;
}

int khost__fresh_check(khost__call *call, const khost__case_data *d, const khost__vary_call *v,
                       khost__check_stats *stats, khost__err *err)
{
  int rc = KHOST__OK;
  memset(stats, 0, sizeof *stats);
  for (int t = 0; t < d->set.noutputs && rc == KHOST__OK; t++) {
    khost__check_stats one;
    int passed;
    memset(&one, 0, sizeof one);
    rc = is_cuda(call) ? passes_on_device(call, d, v, t, &passed, err)
                       : passes_on_host(call, d, v, t, &passed, err);
    if (rc == KHOST__OK && passed)
      one.count = khost__tensor_elements(&d->set.outputs[t]);
    else if (rc == KHOST__OK)
      rc = check_on_host(call, d, v, t, &one, err);
    khost__check_merge(stats, &one);
  }
  return rc;
}

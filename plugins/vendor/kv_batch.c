/* kv_block_to_operational and kv_operational_to_block through cudaMemcpyBatchAsync
 * (CUDA 12.8+): an operational block holds each of its chunks flat, so a conversion is
 * nb * nl * no copies of one chunk's bytes, one batch on the host's stream.
 *
 * The batch takes host arrays of addresses, and the addresses are in the pointer
 * tables, which khost fills on the device only (core/call.c; it keeps no host copy and
 * refills them for each call). So run() first copies both tables to pinned host memory
 * on the stream and waits for them (cudaStreamSynchronize), then builds the arrays and
 * enqueues the batch: the copy back, the wait and the host loop are inside the timed
 * call, as they are for any user of this API with device-resident tables.
 *
 * Neither that wait nor the batch can be captured in a CUDA graph (the driver has no
 * graph node for cuMemcpyBatchAsync), so both kernels are KHOST_KERNEL_NOT_CAPTURABLE
 * (ABI 1.3): khost checks their stream without capture and times them call by call.
 * run() still declines a capturing stream with the reason, for a host that captures
 * anyway (one older than 1.3, which cannot read the flag).
 *
 * kv_block_to_universal and kv_universal_to_block are declined: a universal block
 * permutes each chunk in runs of hd elements, which would be nt * nh copies a chunk
 * of hd * elem bytes each, a measurement of the copy engine's per-copy cost rather
 * than of the layout conversion. */
#include "kv_batch.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kv_cache.h"

/* The driver that first has cuMemcpyBatchAsync (cudaDriverGetVersion's number). */
#define BATCH_DRIVER 12080

/* The ABI minor that first has khost_kernel.flags. */
#define FLAGS_MINOR 3

static uint32_t host_minor = KHOST_ABI_MINOR;

void khost__vendor_kv_set_host_minor(uint32_t minor)
{
  host_minor = minor;
}

/* What run() keeps between calls, grown to the largest call: the tables read back
 * (pinned, so the copy back is a DMA) and the batch's three arrays. */
static struct {
  size_t capacity;  /* copies the arrays hold */
  uint64_t *tables; /* pinned: the block-stack table, then the per-block table */
  void **dsts;
  const void **srcs;
  size_t *sizes;
} held;

void khost__vendor_kv_release(void)
{
  if (held.tables) cudaFreeHost(held.tables);
  free(held.dsts);
  free(held.srcs);
  free(held.sizes);
  memset(&held, 0, sizeof held);
}

/* Room for `copies` copies and their tables (copies chunks + nb blocks <= 2 * copies). */
static int reserve(const khost_input *in, size_t copies)
{
  if (copies <= held.capacity) return KHOST_STATUS_OK;
  khost__vendor_kv_release();
  int status =
      KHOST__VENDOR_CUDA_CHECK(in, cudaMallocHost((void **)&held.tables, 2 * copies * sizeof(uint64_t)));
  if (status != KHOST_STATUS_OK) return status;
  held.dsts = malloc(copies * sizeof *held.dsts);
  held.srcs = malloc(copies * sizeof *held.srcs);
  held.sizes = malloc(copies * sizeof *held.sizes);
  if (!held.dsts || !held.srcs || !held.sizes) {
    khost__vendor_kv_release();
    return khost__input_fail(in, KHOST_STATUS_INTERNAL, "out of host memory for %zu copies", copies);
  }
  held.capacity = copies;
  return KHOST_STATUS_OK;
}

/* The checked call, or UNSUPPORTED with the reason for what cannot be a batch of flat copies. */
static int open_call(const khost_input *in, khost__kv_call *call)
{
  int status = khost__kv_open(in, KHOST_DEVICE_CUDA, call);
  if (status != KHOST_STATUS_OK) return status;
  if (call->permute)
    return khost__input_fail(
        in, KHOST_STATUS_UNSUPPORTED,
        "cudaMemcpyBatchAsync copies whole buffers; a universal block permutes each chunk in "
        "runs of hd elements (%lld bytes), nt * nh = %lld copies a chunk",
        (long long)((size_t)call->dims.hd * call->element_bytes), (long long)(call->dims.nt * call->dims.nh));
  return KHOST_STATUS_OK;
}

/* The checks, then a host that would capture the call (before ABI 1.3) or a driver too old for
 * cudaMemcpyBatchAsync declines (docs/VENDOR.md). */
int khost__vendor_kv_supports(const khost_input *in)
{
  khost__kv_call call;
  int status = open_call(in, &call);
  if (status != KHOST_STATUS_OK) return status;
  if (host_minor < FLAGS_MINOR)
    return khost__input_fail(in, KHOST_STATUS_UNSUPPORTED,
                             "this host (ABI 1.%u) cannot read KHOST_KERNEL_NOT_CAPTURABLE (ABI 1.%d) and "
                             "would capture cudaMemcpyBatchAsync, which cannot be captured",
                             (unsigned)host_minor, FLAGS_MINOR);
  int driver = 0;
  /* 0 where no driver is installed: then run() reports the device error. */
  if (cudaDriverGetVersion(&driver) == cudaSuccess && driver > 0 && driver < BATCH_DRIVER)
    return khost__input_fail(in, KHOST_STATUS_UNSUPPORTED,
                             "the driver is CUDA %d.%d; cudaMemcpyBatchAsync needs 12.8 or later",
                             driver / 1000, driver % 1000 / 10);
  return KHOST_STATUS_OK;
}

int khost__vendor_kv_describe(const khost_input *in, char *buf, size_t size)
{
  khost__kv_call call;
  int status = open_call(in, &call);
  if (status == KHOST_STATUS_OK)
    snprintf(buf, size, "cudaMemcpyBatchAsync %lld x %zu B, tables read back first", (long long)call.chunks,
             call.chunk_bytes);
  return status;
}

/* The batch's arrays from the tables read back: chunk c of block b <-> its place in the block. */
static void fill_batch(const khost__kv_call *call, const uint64_t *stack, const uint64_t *blocks)
{
  const khost_kv_dims *k = &call->dims;
  size_t c = 0;
  for (int64_t b = 0; b < k->nb; b++)
    for (int64_t l = 0; l < k->nl; l++)
      for (int64_t o = 0; o < k->no; o++, c++) {
        uintptr_t chunk = (uintptr_t)stack[khost_kv_block_entry(k, b, l, o)];
        uintptr_t place =
            (uintptr_t)blocks[b] + (size_t)khost_kv_operational_index(k, l, o) * call->element_bytes;
        held.srcs[c] = (const void *)(call->from_blocks ? chunk : place);
        held.dsts[c] = (void *)(call->from_blocks ? place : chunk);
        held.sizes[c] = call->chunk_bytes;
      }
}

/* Both tables into held.tables, waited for. */
static int read_tables(const khost_input *in, const khost__kv_call *call, cudaStream_t stream)
{
  size_t chunks = (size_t)call->chunks;
  int status = KHOST__VENDOR_CUDA_CHECK(in, cudaMemcpyAsync(held.tables, call->block_stack_table,
                                                            chunks * sizeof(uint64_t), cudaMemcpyDeviceToHost,
                                                            stream));
  if (status == KHOST_STATUS_OK)
    status = KHOST__VENDOR_CUDA_CHECK(in, cudaMemcpyAsync(held.tables + chunks, call->block_table,
                                                          (size_t)call->dims.nb * sizeof(uint64_t),
                                                          cudaMemcpyDeviceToHost, stream));
  return status == KHOST_STATUS_OK ? KHOST__VENDOR_CUDA_CHECK(in, cudaStreamSynchronize(stream)) : status;
}

int khost__vendor_kv_run(const khost_input *in)
{
  khost__kv_call call;
  int status = open_call(in, &call);
  /* nb = 0: nothing to copy (a batch of none is an invalid value). */
  if (status != KHOST_STATUS_OK || call.chunks == 0) return status;
  cudaStream_t stream = (cudaStream_t)in->stream;
  enum cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
  if ((status = KHOST__VENDOR_CUDA_CHECK(in, cudaStreamIsCapturing(stream, &capturing))) != KHOST_STATUS_OK)
    return status;
  if (capturing != cudaStreamCaptureStatusNone)
    return khost__input_fail(
        in, KHOST_STATUS_UNSUPPORTED,
        "cudaMemcpyBatchAsync cannot be captured in a CUDA graph (the driver has no graph "
        "node for it), nor can the wait for the tables it needs on the host");
  if ((status = reserve(in, (size_t)call.chunks)) != KHOST_STATUS_OK ||
      (status = read_tables(in, &call, stream)) != KHOST_STATUS_OK)
    return status;
  fill_batch(&call, held.tables, held.tables + call.chunks);
  struct cudaMemcpyAttributes attributes;
  memset(&attributes, 0, sizeof attributes);
  attributes.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
  size_t first = 0;
  return KHOST__VENDOR_CUDA_CHECK(in,
                                  cudaMemcpyBatchAsync(held.dsts, held.srcs, held.sizes, (size_t)call.chunks,
                                                       &attributes, &first, 1, stream));
}

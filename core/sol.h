/* A case's speed of light: the bytes khost's own streaming kernel moves to
 * stand for the least any kernel of the case must do (docs/METHODOLOGY.md). */
#ifndef KHOST_SOL_H
#define KHOST_SOL_H

#include "catalog.h"
#include "matrix_peak.h"

/* The bytes of c's speed-of-light kernel: *written is every output's bytes,
 * *read the rest of the op's byte count (each input read once, as the op
 * counts it: nvfp4_gemv's swizzled scales replacing the plain ones), so that
 * the two add up to the row's `bytes`. */
void khost__sol_bytes(const khost__case *c, double *read, double *written);

/* A compute-bound case's speed of light: the FLOPs of c at its op's matrix peak
 * (peak_tflops by khost__peak_type, TFLOP/s), in seconds, with the peak's
 * type in *type; 0 when the op names no matrix peak (khost__op.matrix_peak),
 * the case has no FLOPs or that peak was not measured. */
double khost__sol_compute_s(const khost__case *c, const double *peak_tflops, khost__peak_type *type);

/* The shapes of khost's streaming kernels (core/cuda_kernels.h), and the device copy. */
typedef enum { KHOST__SOL_COPY, KHOST__SOL_READ_FIRST, KHOST__SOL_MEMCPY } khost__sol_shape;

/* One candidate for a case's speed of light. Static. */
typedef struct khost__sol_kernel {
  const char *name; /* as reports name it: "copy_2x512" is the copy on 2 blocks of 512 threads per SM */
  khost__sol_shape shape;
  int blocks_per_sm, threads; /* of a kernel; 0 for the device copy */
} khost__sol_kernel;

#define KHOST__SOL_KERNELS 8

/* The candidates, in the order they are timed; *n gets their count (KHOST__SOL_KERNELS). */
const khost__sol_kernel *khost__sol_kernels(int *n);

/* A case's speed of light on one device: the fastest candidate and each one's median. */
typedef struct khost__sol {
  double seconds;                        /* the best median; 0 when none was measured */
  const khost__sol_kernel *kernel;       /* the candidate that set it, NULL with it */
  double seconds_of[KHOST__SOL_KERNELS]; /* each candidate's median, in khost__sol_kernels' order */
} khost__sol;

#endif

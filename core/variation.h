/* Variations: how khost gives every timed call inputs that no earlier call of
 * the row has seen, while knowing the right outputs exactly. Each op declares
 * (khost__op.vary) axes shared by its tensors, at most one of them permuted and
 * some whose coordinates carry a random sign, and how each input and output
 * indexes those axes; call v of a row then reads the generated inputs with
 * that axis permuted and those signs flipped, and its expected outputs are the
 * oracle's, moved and flipped alike (docs/METHODOLOGY.md, "Fresh inputs for
 * every timed call"). Variation 0 is the generated data itself. */
#ifndef KHOST_VARIATION_H
#define KHOST_VARIATION_H

#include "catalog.h"
#include "error.h"
#include "variation_map.h"

/* An op's declaration. Plain value, filled by khost__op.vary. An op declares a
 * sign axis only where flipping the signs of the inputs at a coordinate flips
 * the outputs at that coordinate exactly (the op is odd there), and a permuted
 * axis only where permuting the inputs along it permutes the outputs alike (or
 * leaves them unchanged). */
typedef struct khost__variation {
  int64_t extent[KHOST__VARY_AXES]; /* of each axis the op uses; unused axes 1 */
  int permuted_axis;                /* KHOST__VARY_NO_AXIS: none */
  unsigned sign_axes;               /* a bit per axis */
  khost__vary_map inputs[KHOST__MAX_TENSORS], outputs[KHOST__MAX_TENSORS];
} khost__variation;

/* Starts an op's declaration: *v zeroed, the extents of its axes (naxes of
 * them; the others 1), the permuted axis and the sign axes; the maps are the op's to fill. */
void khost__vary_declare(khost__variation *v, const int64_t *extent, int naxes, int permuted_axis,
                         unsigned sign_axes);

/* m for tensor t whose dim d indexes axes[d] (KHOST__VARY_NO_AXIS: none); its
 * units flip sign when is_signed (t's dtype must have a sign bit). Packed fp4
 * is seen as bytes, each holding two codes of the last dim, whose signs flip together. */
void khost__vary_map_of(khost__vary_map *m, const khost__tensor_spec *t, const int *axes, int is_signed);

/* Units in m. */
uint64_t khost__vary_units(const khost__vary_map *m);

/* Call `index` (1, 2, ...) of a row: distinct permutations for the first n
 * calls (n the permuted axis's extent), never the identity while n > 1, and
 * signs from a key mixed from seed and index. */
void khost__vary_draw(const khost__variation *v, uint64_t seed, uint64_t index, khost__vary_call *out);

/* The host's walk of one tensor for one call, from khost__vary_walk_start:
 * the hashes of the last dim's coordinates, computed once per call instead of
 * once per unit. Owns inner_hash; free with khost__vary_walk_free. */
typedef struct khost__vary_walk {
  const khost__vary_map *m;  /* borrowed */
  const khost__vary_call *c; /* borrowed */
  uint32_t *inner_hash;      /* a word per unit of a row when the last dim is a sign axis, else NULL */
  int unit_by_unit;          /* units of a row move or flip one by one; else a row is copied whole */
  int inner_permuted;        /* the last dim is the permuted axis */
} khost__vary_walk;

/* 0, or KHOST__E_NOMEM (w then owns nothing). m and c must outlive w. */
int khost__vary_walk_start(khost__vary_walk *w, const khost__vary_map *m, const khost__vary_call *c,
                           khost__err *err);

/* Rows [first, end) of the varied tensor (khost__vary_rows(m) in all, each
 * khost__vary_width(m) units) into dst, which receives row `first` at its start;
 * src is the whole generated tensor. Rows are independent: threads may walk
 * disjoint ranges of one walk. */
void khost__vary_walk_rows(const khost__vary_walk *w, const void *src, void *dst, uint64_t first,
                           uint64_t end);

void khost__vary_walk_free(khost__vary_walk *w);

/* dst (m's units) = src varied by c, on the host: a whole walk, its rows split
 * over `threads` threads (core/parallel_rows.h). 0, or KHOST__E_NOMEM. */
int khost__vary_host(const khost__vary_map *m, const khost__vary_call *c, const void *src, void *dst,
                     int threads, khost__err *err);

#endif

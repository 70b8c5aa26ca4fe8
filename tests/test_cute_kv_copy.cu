/* The cute KV-cache kernel's mapping (plugins/cute/kv_copy.cu) on the host, no GPU: for
 * the shapes of kv_correctness and two of kv_performance, both chunk layouts, universal
 * and operational blocks and units of 1 and 8 elements, each element's place in its block
 * (block_base + block_layout, as the kernel computes it) against the issue's formulas,
 * written out here. The kernel's file is included whole: its mapping is internal. nvcc
 * builds this program (tests/meson.build). */
#include <criterion/criterion.h>

#include "kv_copy.cu"

namespace {

/* nh, nl, no, nt, hd, nb */
const int64_t shapes[][6] = {{3, 2, 2, 4, 5, 3},   {2, 3, 2, 4, 3, 2},     {2, 1, 2, 3, 4, 1},
                             {3, 2, 1, 5, 129, 4}, {8, 80, 2, 16, 128, 1}, {1, 32, 2, 64, 128, 1}};

/* Element (t, h, d) of chunk (l, o): where a block holds it, by the issue's formulas. */
int64_t expected(const khost__kv_call &call, int64_t l, int64_t o, int64_t t, int64_t h, int64_t d)
{
  const khost_kv_dims &k = call.dims;
  if (call.permute) return (((h * k.nl + l) * k.no + o) * k.nt + t) * k.hd + d;
  int64_t in_chunk = (t * k.nh + h) * k.hd + d; /* the operational ops' chunks are NHD */
  return (l * k.no + o) * (k.nt * k.nh * k.hd) + in_chunk;
}

int64_t chunk_position(const khost__kv_call &call, int64_t t, int64_t h, int64_t d)
{
  const khost_kv_dims &k = call.dims;
  return (call.layout == KHOST_KV_HND ? h * k.nt + t : t * k.nh + h) * k.hd + d;
}

/* The elements of every chunk of call whose place the kernel's mapping gets wrong. */
int64_t misplaced(const khost__kv_call &call, int64_t lanes)
{
  const khost_kv_dims &k = call.dims;
  kv_map m = map_of(call);
  auto layout = block_layout(m, lanes);
  int64_t wrong = 0;
  for (int64_t l = 0; l < k.nl; l++)
    for (int64_t o = 0; o < k.no; o++)
      for (int64_t t = 0; t < k.nt; t++)
        for (int64_t h = 0; h < k.nh; h++)
          for (int64_t d = 0; d < k.hd; d += lanes) {
            int64_t unit = chunk_position(call, t, h, d) / lanes;
            wrong += block_base(m, l, o) + lanes * int64_t(layout(unit)) != expected(call, l, o, t, h, d);
          }
  return wrong;
}

void check_every_shape(int permute)
{
  for (const auto &s : shapes)
    for (int layout = KHOST_KV_NHD; layout <= (permute ? KHOST_KV_HND : KHOST_KV_NHD); layout++)
      for (int64_t lanes : {1, 8}) {
        if (s[4] % lanes) continue; /* words only where a run is whole words */
        khost__kv_call call = {};
        call.dims = {s[5], s[0], s[1], s[2], s[3], s[4]};
        call.layout = layout;
        call.permute = permute;
        cr_expect_eq(misplaced(call, lanes), 0,
                     "nh %lld nl %lld no %lld nt %lld hd %lld, layout %d, %lld lanes", (long long)s[0],
                     (long long)s[1], (long long)s[2], (long long)s[3], (long long)s[4], layout,
                     (long long)lanes);
      }
}

} // namespace

Test(cute_kv_copy, a_universal_block_holds_each_element_where_the_index_map_says)
{
  check_every_shape(1);
}

Test(cute_kv_copy, an_operational_block_holds_each_chunk_flat)
{
  check_every_shape(0);
}

"""NVFP4 block-scaled GEMV for Hopper, which has no fp4 conversion instruction.

The reduction works on 64-bit words: one word of `a` holds 16 e2m1 codes, exactly one
e4m3 scale group, so a row of k/2 bytes is k/16 words and lines up one to one with its
k/16 scale bytes. Codes become fp16 by bit placement (the 3 magnitude bits of e2m1 land
on the low exponent bits and the top mantissa bit of an fp16, which gives the value
times 2^-14, subnormals included), and each group's 16 products are summed in packed
fp16 (HFMA2), which is exact: every product is a multiple of 2^-16 below 2^-8.8 and a
half-lane sums 8 of them, well inside fp16's 11 significant bits. Group sums are
scaled and accumulated in fp32.
"""
import triton
import triton.language as tl

# v's magnitudes, decoded once per tile and shared by every row a thread holds: for
# each 32-bit half of the word, four fp16x2 registers pairing nibble p with p + 4,
# multiplied by 2^14 so they hold the exact e2m1 magnitudes.
_DECODE_V = tl.constexpr("""
{
.reg .b32 w<2>, t, two14;
mov.b64 {w0, w1}, $8;
mov.b32 two14, 0x74007400;
shl.b32 t, w0, 9;  and.b32 t, t, 0x0E000E00; mul.rn.f16x2 $0, t, two14;
shl.b32 t, w0, 5;  and.b32 t, t, 0x0E000E00; mul.rn.f16x2 $1, t, two14;
shl.b32 t, w0, 1;  and.b32 t, t, 0x0E000E00; mul.rn.f16x2 $2, t, two14;
shr.b32 t, w0, 3;  and.b32 t, t, 0x0E000E00; mul.rn.f16x2 $3, t, two14;
shl.b32 t, w1, 9;  and.b32 t, t, 0x0E000E00; mul.rn.f16x2 $4, t, two14;
shl.b32 t, w1, 5;  and.b32 t, t, 0x0E000E00; mul.rn.f16x2 $5, t, two14;
shl.b32 t, w1, 1;  and.b32 t, t, 0x0E000E00; mul.rn.f16x2 $6, t, two14;
shr.b32 t, w1, 3;  and.b32 t, t, 0x0E000E00; mul.rn.f16x2 $7, t, two14;
}
""")

# One group: 2^-14 * sum of the 16 signed products of a's word ($1) and v's word ($2),
# given v's magnitudes ($3..$10). The sign of each product (sign of a XOR sign of v)
# goes onto a's fp16 before the multiply; the magnitude shift of a pair p is 9 - 4p and
# its sign shift three more.
_GROUP_DOT = tl.constexpr("""
{
.reg .b32 a<2>, v<2>, s, t, u, acc;
.reg .f16 h<2>;
.reg .f32 f<2>;
mov.b64 {a0, a1}, $1;
mov.b64 {v0, v1}, $2;
xor.b32 s, a0, v0;
shl.b32 t, a0, 9;  and.b32 t, t, 0x0E000E00; shl.b32 u, s, 12; and.b32 u, u, 0x80008000; or.b32 t, t, u;
mul.rn.f16x2 acc, t, $3;
shl.b32 t, a0, 5;  and.b32 t, t, 0x0E000E00; shl.b32 u, s, 8;  and.b32 u, u, 0x80008000; or.b32 t, t, u;
fma.rn.f16x2 acc, t, $4, acc;
shl.b32 t, a0, 1;  and.b32 t, t, 0x0E000E00; shl.b32 u, s, 4;  and.b32 u, u, 0x80008000; or.b32 t, t, u;
fma.rn.f16x2 acc, t, $5, acc;
shr.b32 t, a0, 3;  and.b32 t, t, 0x0E000E00; and.b32 u, s, 0x80008000; or.b32 t, t, u;
fma.rn.f16x2 acc, t, $6, acc;
xor.b32 s, a1, v1;
shl.b32 t, a1, 9;  and.b32 t, t, 0x0E000E00; shl.b32 u, s, 12; and.b32 u, u, 0x80008000; or.b32 t, t, u;
fma.rn.f16x2 acc, t, $7, acc;
shl.b32 t, a1, 5;  and.b32 t, t, 0x0E000E00; shl.b32 u, s, 8;  and.b32 u, u, 0x80008000; or.b32 t, t, u;
fma.rn.f16x2 acc, t, $8, acc;
shl.b32 t, a1, 1;  and.b32 t, t, 0x0E000E00; shl.b32 u, s, 4;  and.b32 u, u, 0x80008000; or.b32 t, t, u;
fma.rn.f16x2 acc, t, $9, acc;
shr.b32 t, a1, 3;  and.b32 t, t, 0x0E000E00; and.b32 u, s, 0x80008000; or.b32 t, t, u;
fma.rn.f16x2 acc, t, $10, acc;
mov.b32 {h0, h1}, acc;
cvt.f32.f16 f0, h0;
cvt.f32.f16 f1, h1;
add.f32 $0, f0, f1;
}
""")


@triton.jit
def _e4m3_to_f32(x):
  return x.to(tl.float8e4nv, bitcast=True).to(tl.float32)


@triton.jit
def _load_tile(a_rows, sfa_rows, v_base, sfv_base, g, ks, MASKED: tl.constexpr, GROUPS: tl.constexpr):
  cols = g + tl.arange(0, GROUPS)
  if MASKED:
    ok = cols < ks
    a = tl.load(a_rows + cols[None, :], mask=ok[None, :], other=0)
    sa = tl.load(sfa_rows + cols[None, :], mask=ok[None, :], other=0)
    v = tl.load(v_base + cols, mask=ok, other=0)
    sv = tl.load(sfv_base + cols, mask=ok, other=0)
  else:
    a = tl.load(a_rows + cols[None, :])
    sa = tl.load(sfa_rows + cols[None, :])
    v = tl.load(v_base + cols)
    sv = tl.load(sfv_base + cols)
  return a, sa, v, sv


@triton.jit
def _tile_dot(acc, a, sa, v, sv):
  m0, m1, m2, m3, m4, m5, m6, m7 = tl.inline_asm_elementwise(
      _DECODE_V, "=r,=r,=r,=r,=r,=r,=r,=r,l", [v], dtype=(tl.int32, ) * 8, is_pure=True, pack=1)
  group = tl.inline_asm_elementwise(
      _GROUP_DOT, "=f,l,l,r,r,r,r,r,r,r,r", [a, v[None, :], m0[None, :], m1[None, :], m2[None, :],
                                             m3[None, :], m4[None, :], m5[None, :], m6[None, :],
                                             m7[None, :]],
      dtype=tl.float32, is_pure=True, pack=1)
  # 2^14 undoes the scaling of a's fp16 codes; e4m3 products are exact in fp32.
  scale = _e4m3_to_f32(sa) * (_e4m3_to_f32(sv) * 16384.0)[None, :]
  return acc + group * scale


@triton.jit
def nvfp4_gemv(a, sfa, v, sfv, c, m, ks, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
  """a and v as int64 words (16 codes each); sfa, sfv e4m3 bytes; c fp16 [l][m]; ks = k/16.
  Grid (m / BLOCK_M, l). m % BLOCK_M == 0 is the launcher's job."""
  GROUPS: tl.constexpr = BLOCK_K // 16
  row0 = tl.program_id(0) * BLOCK_M
  batch = tl.program_id(1).to(tl.int64)
  rows = row0 + tl.arange(0, BLOCK_M)
  a_rows = a + batch * m * ks + rows[:, None] * ks
  sfa_rows = sfa + batch * m * ks + rows[:, None] * ks
  v_base = v + batch * ks
  sfv_base = sfv + batch * ks
  acc = tl.zeros((BLOCK_M, GROUPS), dtype=tl.float32)
  full = ks - ks % GROUPS
  # Registers double-buffer the stream: the next tile is loading while this one is reduced.
  if full > 0:
    a_t, sa_t, v_t, sv_t = _load_tile(a_rows, sfa_rows, v_base, sfv_base, 0, ks, False, GROUPS)
    for g in range(GROUPS, full, GROUPS):
      a_n, sa_n, v_n, sv_n = _load_tile(a_rows, sfa_rows, v_base, sfv_base, g, ks, False, GROUPS)
      acc = _tile_dot(acc, a_t, sa_t, v_t, sv_t)
      a_t, sa_t, v_t, sv_t = a_n, sa_n, v_n, sv_n
    acc = _tile_dot(acc, a_t, sa_t, v_t, sv_t)
  if full < ks:
    a_t, sa_t, v_t, sv_t = _load_tile(a_rows, sfa_rows, v_base, sfv_base, full, ks, True, GROUPS)
    acc = _tile_dot(acc, a_t, sa_t, v_t, sv_t)
  out = tl.sum(acc, axis=1)
  tl.store(c + batch * m + rows, out.to(tl.float16))

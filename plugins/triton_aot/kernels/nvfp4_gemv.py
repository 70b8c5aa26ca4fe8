"""NVFP4 block-scaled GEMV for Hopper, which has no fp4 conversion instruction.

The kernel reads `a` and `v` as 64-bit words: one word holds 16 e2m1 codes, exactly one
e4m3 scale group, so a row of k/2 bytes is ks = k/16 words and lines up one to one with
its ks scale bytes.

Decoding costs integer instructions, and at HBM speed the budget is about three
instructions per element, so codes become fp16 by bit placement only: an e2m1 code's
two exponent bits and one mantissa bit land on the low exponent bits and the top
mantissa bit of an fp16 (bits 9..11) and its sign on bit 15. That fp16 is the e2m1 value
times 2^-14, subnormals included, which Hopper's fp16 units handle exactly. `v` is
decoded once per tile and rescaled to its exact values; a group's 16 products are then
summed with packed fp16 FMAs, which is exact: each product is a multiple of 2^-16 of
magnitude at most 36 * 2^-14, and a half-lane sums 8 of them, so every partial sum
needs at most 11 significant bits. Group sums are scaled and accumulated in fp32.
"""
import triton
import triton.language as tl


def _decode_word(word, out, tmp):
    """PTX that turns the 8 codes of the 32-bit register `word` into four fp16x2
    registers out[0..3] holding code * 2^-14. Register pairs are (0, 4), (1, 5), (2, 6),
    (3, 7) by nibble; any pairing works because a and v go through the same decode.
    Building wa (even nibbles) and wb (odd nibbles) first puts each sign 6 bits above its
    magnitude, so one shift and one mask then give a whole fp16 pair."""
    b, y, wa, wb = tmp
    # lop3 0xE4 is (a & c) | (b & ~c): the low three bits of each byte from the first
    # operand, the rest from the second.
    return f"""
shr.b32 {b}, {word}, 4;
shl.b32 {y}, {word}, 3;
lop3.b32 {wa}, {word}, {y}, 0x07070707, 0xE4;
shr.b32 {y}, {word}, 1;
lop3.b32 {wb}, {b}, {y}, 0x07070707, 0xE4;
shl.b32 {out[0]}, {wa}, 9; and.b32 {out[0]}, {out[0]}, 0x8E008E00;
shl.b32 {out[1]}, {wb}, 9; and.b32 {out[1]}, {out[1]}, 0x8E008E00;
shl.b32 {out[2]}, {wa}, 1; and.b32 {out[2]}, {out[2]}, 0x8E008E00;
shl.b32 {out[3]}, {wb}, 1; and.b32 {out[3]}, {out[3]}, 0x8E008E00;
"""


_TMP = ("b", "y", "wa", "wb")

# v: one 64-bit word ($8) -> eight fp16x2 registers ($0..$7) with the exact values.
_DECODE_V = tl.constexpr("{\n.reg .b32 w<2>, b, y, wa, wb, two14;\nmov.b64 {w0, w1}, $8;\n" +
                         _decode_word("w0", ("$0", "$1", "$2", "$3"), _TMP) +
                         _decode_word("w1", ("$4", "$5", "$6", "$7"), _TMP) +
                         "mov.b32 two14, 0x74007400;\n" +
                         "".join(f"mul.rn.f16x2 ${i}, ${i}, two14;\n" for i in range(8)) + "}")

# One group: $0 = 2^-14 * sum of the 16 products of a's word ($1) and v ($2..$9).
_GROUP_DOT = tl.constexpr("{\n.reg .b32 w<2>, h<8>, b, y, wa, wb, acc;\n.reg .f16 lo, hi;\n"
                          ".reg .f32 flo, fhi;\nmov.b64 {w0, w1}, $1;\n" +
                          _decode_word("w0", ("h0", "h1", "h2", "h3"), _TMP) +
                          _decode_word("w1", ("h4", "h5", "h6", "h7"), _TMP) +
                          "mul.rn.f16x2 acc, h0, $2;\n" +
                          "".join(f"fma.rn.f16x2 acc, h{i}, ${i + 2}, acc;\n" for i in range(1, 8)) +
                          "mov.b32 {lo, hi}, acc;\ncvt.f32.f16 flo, lo;\ncvt.f32.f16 fhi, hi;\n"
                          "add.f32 $0, flo, fhi;\n}")


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
    h0, h1, h2, h3, h4, h5, h6, h7 = tl.inline_asm_elementwise(
        _DECODE_V, "=r,=r,=r,=r,=r,=r,=r,=r,l", [v], dtype=(tl.int32, ) * 8, is_pure=True, pack=1)
    group = tl.inline_asm_elementwise(
        _GROUP_DOT, "=f,l,r,r,r,r,r,r,r,r",
        [a, h0[None, :], h1[None, :], h2[None, :], h3[None, :], h4[None, :], h5[None, :], h6[None, :],
         h7[None, :]], dtype=tl.float32, is_pure=True, pack=1)
    # 2^14 undoes the scaling of a's fp16 codes; a product of two e4m3 values is exact in fp32.
    scale = _e4m3_to_f32(sa) * (_e4m3_to_f32(sv) * 16384.0)[None, :]
    return acc + group * scale


@triton.jit
def nvfp4_gemv(a, sfa, v, sfv, c, m, ks, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    """a [l][m][ks] and v [l][ks] int64 words; sfa [l][m][ks], sfv [l][ks] e4m3 bytes;
    c [l][m] fp16. Grid (m / BLOCK_M, l); the launcher guarantees m % BLOCK_M == 0."""
    GROUPS: tl.constexpr = BLOCK_K // 16
    batch = tl.program_id(1).to(tl.int64)
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    a_rows = a + batch * m * ks + rows[:, None] * ks
    sfa_rows = sfa + batch * m * ks + rows[:, None] * ks
    v_base = v + batch * ks
    sfv_base = sfv + batch * ks
    acc = tl.zeros((BLOCK_M, GROUPS), dtype=tl.float32)
    full = ks - ks % GROUPS
    # Registers double-buffer the stream: the next tile loads while this one is reduced.
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

"""NVFP4 block-scaled GEMV for Hopper, which has no fp4 conversion instruction.

The kernel reads `a` and `v` as 64-bit words: one word holds 16 e2m1 codes, exactly one
e4m3 scale group, so a row of k/2 bytes is ks = k/16 words and lines up one to one with
its ks scale bytes.

At HBM speed the budget is about three instructions per element, so a group's 16
products are integer dot products (dp4a, four products an instruction) of doubled e2m1
values, which are the integers 0, 1, 2, 3, 4, 6, 8, 12 with a sign. One `prmt` looks up
four codes' magnitudes in an 8-byte table held in two registers; a code's sign bit is
also prmt's "replicate the sign" selector bit, which then yields 0 because every table
byte is below 0x80. So prmt over the word gives the magnitudes of the positive codes
(negative ones 0), and prmt over the word with its sign bits flipped gives those of the
negative codes: a group is 8 lookups and 8 dp4a against `v`, into one sum for the positive
and one for the negative codes, whose difference is the group's dot. `v` is decoded once per
tile (signed bytes) and shared by the rows a thread holds. The group sum is exact in int32
(at most 16 * 144), and so is its product with the two scales in fp32; only the fp32
accumulation rounds.
"""
import triton
import triton.language as tl


# Doubled e2m1 magnitudes 0, 0.5, 1, 1.5 and 2, 3, 4, 6 as bytes: prmt's low and high table.
TABLE_LO = 0x03020100
TABLE_HI = 0x0C080604
SIGNS = "0x88888888"  # the sign bit of every code in a 32-bit word

# A 64-bit word $IN -> the selector registers of its four quarters (4 codes each): w0, h0,
# w1, h2 select the positive codes' magnitudes, x0, h1, x1, h3 the negative ones'.
# prmt reads only the low 16 bits of its selector, so the high quarters are shifted down.
_QUARTERS = ("mov.b64 {w0, w1}, $IN;\n"
             f"xor.b32 x0, w0, {SIGNS};\nxor.b32 x1, w1, {SIGNS};\n"
             "shr.b32 h0, w0, 16;\nshr.b32 h1, x0, 16;\nshr.b32 h2, w1, 16;\nshr.b32 h3, x1, 16;\n")
_SELECTORS = (("w0", "x0"), ("h0", "h1"), ("w1", "x1"), ("h2", "h3"))


def _lookup(table_lo, pos, neg):
    """p, n = magnitudes of the positive and of the negative codes of one quarter."""
    return (f"prmt.b32 p, {table_lo}, {TABLE_HI:#x}, {pos};\n"
            f"prmt.b32 n, {table_lo}, {TABLE_HI:#x}, {neg};\n")


def _signed(out, plus, minus):
    """out = plus - minus bytewise, both bytes in 0..12 and one of them 0: biasing by 0x80
    keeps every byte of the difference in 116..140, so no borrow crosses a byte."""
    return (f"add.u32 {out}, {plus}, 0x80808080;\nsub.u32 {out}, {out}, {minus};\n"
            f"xor.b32 {out}, {out}, 0x80808080;\n")


# v: one word ($5) -> $0..$3 the 16 values doubled, as signed bytes in the order the
# lookups produce them, and $4 the low table. $6 is a zero the compiler cannot prove
# (m >> 31): a table built from a uniform constant would sit in a uniform register,
# which prmt cannot read, and be copied before every lookup.
_DECODE_V = tl.constexpr("{\n.reg .b32 w<2>, x<2>, h<4>, p, n;\n" + _QUARTERS.replace("$IN", "$5") +
                         f"and.b32 $4, w0, $6;\nor.b32 $4, $4, {TABLE_LO:#x};\n" +
                         "".join(_lookup(f"{TABLE_LO:#x}", pos, neg) + _signed(f"${i}", "p", "n")
                                 for i, (pos, neg) in enumerate(_SELECTORS)) + "}")

# One group: $0 = 4 * sum of the 16 products of a's word ($1) and v ($2..$5, table $6),
# as the positive codes' sum minus the negative codes' (both against v): -v is then
# neither decoded nor kept (docs/PERF.md run AB).
_GROUP_DOT = tl.constexpr("{\n.reg .b32 w<2>, x<2>, h<4>, p, n, neg;\n" + _QUARTERS.replace("$IN", "$1") +
                          "mov.b32 $0, 0;\nmov.b32 neg, 0;\n" +
                          "".join(_lookup("$6", pos, neg) + f"dp4a.u32.s32 $0, p, ${i + 2}, $0;\n"
                                  f"dp4a.u32.s32 neg, n, ${i + 2}, neg;\n"
                                  for i, (pos, neg) in enumerate(_SELECTORS)) + "sub.s32 $0, $0, neg;\n}")


@triton.jit
def _e4m3_to_f32(x):
    return x.to(tl.float8e4nv, bitcast=True).to(tl.float32)


@triton.jit
def _tile_dot(acc, a, sa, v, sv, zero):
    v0, v1, v2, v3, table = tl.inline_asm_elementwise(
        _DECODE_V, "=r,=r,=r,=r,=r,l,r", [v, zero], dtype=(tl.int32, ) * 5, is_pure=True, pack=1)
    dot = tl.inline_asm_elementwise(
        _GROUP_DOT, "=r,l,r,r,r,r,r", [a, v0[None, :], v1[None, :], v2[None, :], v3[None, :], table[None, :]],
        dtype=tl.int32, is_pure=True, pack=1)
    # dot is 4x the sum (both operands doubled); a product of two e4m3 values is exact in fp32.
    scale = _e4m3_to_f32(sa) * (_e4m3_to_f32(sv) * 0.25)[None, :]
    return acc + dot.to(tl.float32) * scale


@triton.jit
def _load_tile(a_rows, sfa_rows, v_base, sfv_base, g, end, GROUPS: tl.constexpr):
    """One tile, masked from word end on (a zero word or scale adds nothing). a and its scales are
    read once but carry no L2 hint: under khost's read flush evict_first measured slower
    (docs/PERF.md run X, call 9)."""
    cols = g + tl.arange(0, GROUPS)
    ok = cols < end
    a_t = tl.load(a_rows + cols[None, :], mask=ok[None, :], other=0)
    sa_t = tl.load(sfa_rows + cols[None, :], mask=ok[None, :], other=0)
    v_t = tl.load(v_base + cols, mask=ok, other=0)
    sv_t = tl.load(sfv_base + cols, mask=ok, other=0)
    return a_t, sa_t, v_t, sv_t


@triton.jit
def _row_sums(a, sfa, v, sfv, m, ks, batch, rows, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    """The sums of the given rows of batch.
    Registers double-buffer the stream: the next tile loads while this one is reduced
    (Triton's cp.async pipelining measured slower in docs/TRITON_AOT.md's rounds, under the
    old memset flush; not measured again since the loads lost their L2 hint)."""
    GROUPS: tl.constexpr = BLOCK_K // 16
    a_rows = a + batch * m * ks + rows[:, None] * ks
    sfa_rows = sfa + batch * m * ks + rows[:, None] * ks
    v_base = v + batch * ks
    sfv_base = sfv + batch * ks
    zero = m >> 31
    acc = tl.zeros((BLOCK_M, GROUPS), dtype=tl.float32)
    a_t, sa_t, v_t, sv_t = _load_tile(a_rows, sfa_rows, v_base, sfv_base, 0, ks, GROUPS)
    # The last pass loads a tile wholly past the row: all masked, no memory traffic.
    for g in range(GROUPS, ks + GROUPS, GROUPS):
        a_n, sa_n, v_n, sv_n = _load_tile(a_rows, sfa_rows, v_base, sfv_base, g, ks, GROUPS)
        acc = _tile_dot(acc, a_t, sa_t, v_t, sv_t, zero)
        a_t, sa_t, v_t, sv_t = a_n, sa_n, v_n, sv_n
    return tl.sum(acc, axis=1)


@triton.jit
def nvfp4_gemv(a, sfa, v, sfv, c, m, ks, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    """a [l][m][ks] and v [l][ks] int64 words; sfa [l][m][ks], sfv [l][ks] e4m3 bytes;
    c [l][m] fp16. Grid (m / BLOCK_M, l); the launcher guarantees m % BLOCK_M == 0."""
    batch = tl.program_id(1).to(tl.int64)
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    sums = _row_sums(a, sfa, v, sfv, m, ks, batch, rows, BLOCK_M, BLOCK_K)
    tl.store(c + batch * m + rows, sums.to(tl.float16))

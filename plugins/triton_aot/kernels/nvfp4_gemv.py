"""NVFP4 block-scaled GEMV for Hopper, which has no fp4 conversion instruction.

The kernel reads `a` and `v` as 64-bit words: one word holds 16 e2m1 codes, exactly one
e4m3 scale group, so a row of k/2 bytes is ks = k/16 words and lines up one to one with
its ks scale bytes.

At HBM speed the budget is about three instructions per element, so a group's 16
products are integer dot products (dp4a, four products an instruction) of doubled e2m1
values, which are the integers 0, 1, 2, 3, 4, 6, 8, 12 with a sign. One `prmt` looks up
four codes' magnitudes in an 8-byte table held in two registers; a code's sign bit is
also prmt's "replicate the sign" selector bit, which then yields 0 because every table
byte is below 0x80. A product is negative where its two codes' signs differ, so prmt over
a's word with v's sign bits xored in gives a's magnitudes in the positive products (0 in
the others), and prmt over that with the sign bits flipped gives them in the negative
ones: a group is 8 lookups and 8 dp4a against v's magnitudes, into one sum for the
positive and one for the negative products, whose difference is the group's dot. `v` is
decoded once per tile (magnitudes and sign bits, never signed bytes) and shared by the
rows a thread holds. The group sum is exact in int32 (at most 16 * 144), and so is its
product with the two scales in fp32; only the fp32 accumulation rounds.

Every lookup table sits in a vector register (prmt cannot read a uniform one, and ptxas
would copy it before each lookup), and the scales become fp32 as their tile lands: carried
through the loop as bytes, they were unpacked and packed again on every pass. These and
the sign handling took the loop from 371 SASS instructions to 310.
Only a row's first tile can be masked (it reaches back before word 0 so that the rest are
whole; a k of whole tiles reads it unmasked too), and the reloading load-ahead loop's pass
that only loads reloads the last tile instead of masking a tile past the row: with masked
loads (each zeroes its registers first) the loop was 17 instructions longer (310 against
293).
"""
import triton
import triton.language as tl


# Doubled e2m1 magnitudes 0, 0.5, 1, 1.5 and 2, 3, 4, 6 as bytes: prmt's low and high table.
TABLE_LO = 0x03020100
TABLE_HI = 0x0C080604
SIGNS = "0x88888888"  # the sign bit of every code in a 32-bit word

# A 64-bit word $IN of a, with the sign bits of v's matching codes in $S0 and $S1, -> the
# selector registers of its four quarters (4 codes each): w0, h0, w1, h2 select a's
# magnitudes where a product is positive, x0, h1, x1, h3 where it is negative. prmt reads
# only the low 16 bits of its selector, so the high quarters are shifted down.
_QUARTERS = ("mov.b64 {w0, w1}, $IN;\nxor.b32 w0, w0, $S0;\nxor.b32 w1, w1, $S1;\n"
             f"xor.b32 x0, w0, {SIGNS};\nxor.b32 x1, w1, {SIGNS};\n"
             "shr.b32 h0, w0, 16;\nshr.b32 h1, x0, 16;\nshr.b32 h2, w1, 16;\nshr.b32 h3, x1, 16;\n")
_SELECTORS = (("w0", "x0"), ("h0", "h1"), ("w1", "x1"), ("h2", "h3"))


def _lookup(table_lo, pos, neg):
    """p, n = a's magnitudes in the positive and in the negative products of one quarter."""
    return (f"prmt.b32 p, {table_lo}, {TABLE_HI:#x}, {pos};\n"
            f"prmt.b32 n, {table_lo}, {TABLE_HI:#x}, {neg};\n")


# v: one word ($7) -> $0..$3 the magnitudes of its 16 values, doubled, as bytes in the order
# the lookups produce them; $4, $5 the sign bits of its two halves; $6 the low table. $8 is
# a zero the compiler cannot prove (m >> 31): a table built from a uniform constant would sit
# in a uniform register, which prmt cannot read, and be copied before every lookup.
_DECODE_V = tl.constexpr("{\n.reg .b32 w<2>, m<2>, h<2>;\nmov.b64 {w0, w1}, $7;\n"
                         f"and.b32 $6, w0, $8;\nor.b32 $6, $6, {TABLE_LO:#x};\n"
                         f"and.b32 $4, w0, {SIGNS};\nand.b32 $5, w1, {SIGNS};\n"
                         f"and.b32 m0, w0, 0x77777777;\nand.b32 m1, w1, 0x77777777;\n"
                         "shr.b32 h0, m0, 16;\nshr.b32 h1, m1, 16;\n" +
                         "".join(f"prmt.b32 ${i}, $6, {TABLE_HI:#x}, {sel};\n"
                                 for i, sel in enumerate(("m0", "h0", "m1", "h1"))) + "}")


def _group_dot(word, v, signs, table, out):
    """PTX for out = 4 * the sum of the 16 products of a's word and v as an fp32, from v's
    magnitudes (4 registers), its sign bits (2) and the lookup table. A product is negative
    where the signs of its codes differ, so a's codes with v's sign bits xored in select the
    magnitudes of a in the positive products, and with their sign bits flipped in the negative
    ones: two dp4a sums against v's magnitudes, whose difference is the dot. Neither sign of v
    is ever applied to a byte. The first dp4a adds to 0, not to a zeroed register."""
    quarters = _QUARTERS.replace("$IN", word).replace("$S0", signs[0]).replace("$S1", signs[1])
    return ("{\n.reg .b32 w<2>, x<2>, h<4>, p, n, pos, neg;\n" + quarters + "".join(
                _lookup(table, sel_pos, sel_neg) + f"dp4a.u32.s32 pos, p, {v[i]}, {'0' if i == 0 else 'pos'};\n"
                f"dp4a.u32.s32 neg, n, {v[i]}, {'0' if i == 0 else 'neg'};\n"
                for i, (sel_pos, sel_neg) in enumerate(_SELECTORS)) +
            f"sub.s32 pos, pos, neg;\ncvt.rn.f32.s32 {out}, pos;\n}}\n")


# $0 = the dot (_group_dot) of a's word $1 with v's magnitudes $2..$5, signs $6, $7, table $8.
_GROUP_DOT = tl.constexpr(_group_dot("$1", [f"${2 + q}" for q in range(4)], ("$6", "$7"), "$8", "$0"))

# Two groups' scales, sfa * sfv / 4 as fp32 ($0, $1), from their sfa codes packed in $2 and
# sfv / 4 as two fp16 in $3 (pack=2 packs them as loaded): one cvt and one mul a pair, as
# sfa * (sfv / 4) is exact in fp16 (significands of 4 bits, products from 2^-20 to 50176).
_PAIR_SCALES = tl.constexpr("{\n.reg .b16 c<2>, s<2>;\n.reg .b32 sf;\nmov.b32 {c0, c1}, $2;\n"
                            "cvt.rn.f16x2.e4m3x2 sf, c0;\nmul.rn.f16x2 sf, sf, $3;\nmov.b32 {s0, s1}, sf;\n"
                            "cvt.f32.f16 $0, s0;\ncvt.f32.f16 $1, s1;\n}")


@triton.jit
def _e4m3_to_f32(x):
    return x.to(tl.float8e4nv, bitcast=True).to(tl.float32)


@triton.jit
def _tile_dot(acc, a, scale, v, zero):
    v0, v1, v2, v3, sign0, sign1, table = tl.inline_asm_elementwise(
        _DECODE_V, "=r,=r,=r,=r,=r,=r,=r,l,r", [v, zero], dtype=(tl.int32, ) * 7, is_pure=True, pack=1)
    dot = tl.inline_asm_elementwise(
        _GROUP_DOT, "=f,l,r,r,r,r,r,r,r", [a, v0[None, :], v1[None, :], v2[None, :], v3[None, :], sign0[None, :],
                                          sign1[None, :], table[None, :]], dtype=tl.float32, is_pure=True, pack=1)
    return acc + dot * scale


@triton.jit
def _load_tile(a_rows, sfa_rows, v_base, sfv_base, g, first, GROUPS: tl.constexpr, MASKED: tl.constexpr):
    """One tile from word g, with its scales as fp32; MASKED: words before `first` read as zero
    (a zero word or scale adds nothing). a and its scales are read once but carry no L2 hint:
    under khost's read flush evict_first measured 0.6-1.8 points of copy slower (H200)."""
    cols = g + tl.arange(0, GROUPS)
    ok = cols >= first
    row_ok = ok[None, :] if MASKED else None
    col_ok = ok if MASKED else None
    zero = 0 if MASKED else None
    a_t = tl.load(a_rows + cols[None, :], mask=row_ok, other=zero)
    sa_t = tl.load(sfa_rows + cols[None, :], mask=row_ok, other=zero)
    v_t = tl.load(v_base + cols, mask=col_ok, other=zero)
    sv_t = tl.load(sfv_base + cols, mask=col_ok, other=zero)
    sv_quarter = (_e4m3_to_f32(sv_t) * 0.25).to(tl.float16)
    scale_t = tl.inline_asm_elementwise(_PAIR_SCALES, "=f,=f,r,r", [sa_t, sv_quarter[None, :]], dtype=tl.float32,
                                        is_pure=True, pack=2)
    return a_t, scale_t, v_t


@triton.jit
def _row_sums(a, sfa, v, sfv, m, ks, batch, rows, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr,
              LOAD_AHEAD: tl.constexpr, LAST_AFTER_LOOP: tl.constexpr):
    """The sums of the given rows of batch. No loop form double-buffers in SASS; they
    differ in where ptxas puts the 10 loads of a pass (read in the SASS) and in how the
    last tile ends the loop.
    LOAD_AHEAD (the 2- and 4-warp variants): the source loads the next tile before reducing
    this one, and ptxas issues those loads together below the reduction; in a plain loop it
    would issue the scale loads late, after most of the reduction (13% slower on
    bench_m7168_k16384_l1). Its last pass reloads the last tile (56 registers) unless
    LAST_AFTER_LOOP, which reduces that tile after the loop instead: 72 registers, but no
    pass that waits on loads it does not use (0.5-3.7% less time within its wave, H200).
    Otherwise (one warp, 63 registers) a plain loop, whose loads all issue at the top of
    the pass, and which needs no reload pass."""
    GROUPS: tl.constexpr = BLOCK_K // 16
    a_rows = a + batch * m * ks + rows[:, None] * ks
    sfa_rows = sfa + batch * m * ks + rows[:, None] * ks
    v_base = v + batch * ks
    sfv_base = sfv + batch * ks
    zero = m >> 31
    acc = tl.zeros((BLOCK_M, GROUPS), dtype=tl.float32)
    # The first tile ends where the whole tiles start: it reaches back before word 0 (those
    # words masked) by what k lacks of a multiple of the tile; every later load is unmasked.
    # With nothing to mask it loads whole: masked, its loads split into 8- and 1-byte ones
    # (twice the requests), which cost rows of two tiles (GPU MODE's 7168 x 2048 x 4) 0.2-1.7%
    # on an H100 and 2.8-3.8% on an H200.
    start = tl.multiple_of(-((GROUPS - ks % GROUPS) % GROUPS), 2)
    a_rows += start
    sfa_rows += start
    v_base += start
    sfv_base += start
    if start == 0:
        a_t, s_t, v_t = _load_tile(a_rows, sfa_rows, v_base, sfv_base, 0, 0, GROUPS, False)
    else:
        a_t, s_t, v_t = _load_tile(a_rows, sfa_rows, v_base, sfv_base, 0, -start, GROUPS, True)
    last = ks - start - GROUPS
    if not LOAD_AHEAD:
        acc = _tile_dot(acc, a_t, s_t, v_t, zero)
        for g in range(GROUPS, ks - start, GROUPS):
            a_t, s_t, v_t = _load_tile(a_rows, sfa_rows, v_base, sfv_base, g, 0, GROUPS, False)
            acc = _tile_dot(acc, a_t, s_t, v_t, zero)
    elif LAST_AFTER_LOOP:
        for g in range(GROUPS, ks - start, GROUPS):
            a_n, s_n, v_n = _load_tile(a_rows, sfa_rows, v_base, sfv_base, g, 0, GROUPS, False)
            acc = _tile_dot(acc, a_t, s_t, v_t, zero)
            a_t, s_t, v_t = a_n, s_n, v_n
        acc = _tile_dot(acc, a_t, s_t, v_t, zero)
    elif last == 0:
        # A row of one tile has no whole tile to reload: it must not run the loop.
        acc = _tile_dot(acc, a_t, s_t, v_t, zero)
    else:
        # The last pass only loads, and reloads the last tile (a cache hit) rather than read
        # past the row; reducing that tile after the loop instead takes 72 registers, not 56.
        for g in range(GROUPS, ks - start + GROUPS, GROUPS):
            a_n, s_n, v_n = _load_tile(a_rows, sfa_rows, v_base, sfv_base, tl.minimum(g, last), 0, GROUPS, False)
            acc = _tile_dot(acc, a_t, s_t, v_t, zero)
            a_t, s_t, v_t = a_n, s_n, v_n
    return tl.sum(acc, axis=1)


@triton.jit
def nvfp4_gemv(a, sfa, v, sfv, c, m, ks, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr, LOAD_AHEAD: tl.constexpr,
               LAST_AFTER_LOOP: tl.constexpr):
    """a [l][m][ks] and v [l][ks] int64 words; sfa [l][m][ks], sfv [l][ks] e4m3 bytes;
    c [l][m] fp16. Grid (m / BLOCK_M, l); the launcher guarantees m % BLOCK_M == 0."""
    batch = tl.program_id(1).to(tl.int64)
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    sums = _row_sums(a, sfa, v, sfv, m, ks, batch, rows, BLOCK_M, BLOCK_K, LOAD_AHEAD, LAST_AFTER_LOOP)
    tl.store(c + batch * m + rows, sums.to(tl.float16))

"""The Triton kernel variants compiled into the triton_aot plugin, read by
tools/triton_aot.py at build time (docs/TRITON_AOT.md).

Each entry becomes one sm_90a cubin. Order matters: for each op the launcher takes
the first variant, in this order, that can run the input and whose preference rule
holds, else the last one that can run (see the op's launcher file). The rules and the
block sizes are provisional until measured on the GPU.

Entry fields:
  name        unique, [a-z0-9_]+; KHOST_TRITON_VARIANT=<name> forces it
  op          the catalog op it implements
  source      file in kernels/ holding the @triton.jit function
  function    the function's name
  signature   every non-constexpr argument, in order: "*fp16", "i32", ...; a ":16" suffix
              promises divisibility by 16 (pointers: 16-byte alignment), which lets
              Triton emit 16-byte accesses; the launcher checks the promise
  constexprs  values of the tl.constexpr arguments (BLOCK_M, BLOCK_N, BLOCK_K are
              also exported to the launcher for grids and rules)
  num_warps, num_stages
  dtype       the element type the variant serves: fp16, bf16, fp32, b16 and b32 (any
              type of that size), e2m1
  aligned     True when the signature carries divisibility promises
"""

FLOAT_TYPES = ("fp16", "bf16", "fp32")


def _variant(name, op, source, function, signature, constexprs, num_warps, dtype, aligned,
             num_stages=1):
    return {"name": name, "op": op, "source": source, "function": function, "signature": signature,
            "constexprs": constexprs, "num_warps": num_warps, "num_stages": num_stages,
            "dtype": dtype, "aligned": aligned}


def _rowwise_signature(elem, aligned, m_aligned=False):
    hint = ":16" if aligned else ""
    m_hint = hint if m_aligned else ""
    return {"x": f"*{elem}{hint}", "y": f"*{elem}{hint}", "m": f"i32{m_hint}", "n": f"i32{hint}"}


def _nvfp4_gemv():
    # ks = k/16 is a multiple of 4 for every aligned k (k % 64 == 0): the promise gives each
    # thread 4 words of a row (two 16-byte loads) and their 4 scale bytes, one 4-byte load
    # that the pipeline can copy asynchronously like the words.
    signature = {"a": "*i64:16", "sfa": "*u8:16", "v": "*i64:16", "sfv": "*u8:16", "c": "*fp16:16",
                 "m": "i32:16", "ks": "i32:4"}
    shapes = ((128, 1024, 8, 3), (64, 1024, 4, 3), (64, 1024, 4, 4), (64, 1024, 8, 3), (32, 1024, 2, 4),
              (32, 2048, 4, 3), (16, 1024, 2, 4), (16, 2048, 4, 3), (64, 512, 4, 4), (32, 1024, 4, 4))
    return [_variant(f"gemv_m{bm}_k{bk}_w{w}_s{st}", "nvfp4_gemv", "nvfp4_gemv.py", "nvfp4_gemv", signature,
                     {"BLOCK_M": bm, "BLOCK_K": bk, "STAGES": st}, w, "e2m1", True, num_stages=st)
            for bm, bk, w, st in shapes]


def _copy_transpose():
    out = []
    tiles = {16: ((128, 128, 8), (64, 64, 4), (64, 128, 4), (128, 64, 4), (128, 128, 4), (64, 256, 8)),
             32: ((128, 128, 8), (64, 64, 4), (64, 128, 4), (128, 64, 4), (32, 128, 4), (128, 32, 4),
                  (128, 128, 4), (256, 64, 8))}
    for bits in (16, 32):
        elem = f"i{bits}"
        for bm, bn, w, aligned in [t + (True, ) for t in tiles[bits]] + [(64, 64, 4, False)]:
            suffix = "" if aligned else "_any"
            out.append(_variant(f"copy_b{bits}_t{bm}x{bn}_w{w}{suffix}", "copy_transpose",
                                "copy_transpose.py",
                                "copy_transpose", _rowwise_signature(elem, aligned, m_aligned=True),
                                {"BLOCK_M": bm, "BLOCK_N": bn}, w, f"b{bits}", aligned))
    return out


def _reduce_sum():
    out = []
    for dt in FLOAT_TYPES:
        for bm, bn, w, st, aligned in ((32, 64, 4, 1, True), (4, 1024, 4, 1, True), (1, 4096, 8, 1, True),
                                       (1, 8192, 8, 1, True), (2, 4096, 8, 1, True), (1, 4096, 8, 3, True),
                                       (1, 2048, 4, 4, True), (1, 8192, 16, 1, True), (4, 1024, 4, 3, True),
                                       (4, 512, 4, 1, False)):
            suffix = "" if aligned else "_any"
            out.append(_variant(f"reduce_{dt}_m{bm}_n{bn}_w{w}_s{st}{suffix}", "reduce_sum", "reduce_sum.py",
                                "reduce_sum", _rowwise_signature(dt, aligned),
                                {"BLOCK_M": bm, "BLOCK_N": bn, "STAGES": st}, w, dt, aligned, num_stages=st))
    return out


def _softmax_online():
    out = []
    for dt in FLOAT_TYPES:
        for bm, bn, w, aligned in ((16, 64, 4, True), (4, 1024, 4, True), (1, 8192, 8, True),
                                   (0, 4096, 8, True), (0, 8192, 16, True), (4, 1024, 4, False),
                                   (0, 2048, 8, False)):
            suffix = "" if aligned else "_any"
            if bm:
                out.append(_variant(f"softmax_{dt}_tile_m{bm}_n{bn}_w{w}{suffix}", "softmax_online",
                                    "softmax_online.py", "softmax_tile", _rowwise_signature(dt, aligned),
                                    {"BLOCK_M": bm, "BLOCK_N": bn}, w, dt, aligned))
            else:
                out.append(_variant(f"softmax_{dt}_loop_n{bn}_w{w}{suffix}", "softmax_online",
                                    "softmax_online.py", "softmax_loop", _rowwise_signature(dt, aligned),
                                    {"BLOCK_N": bn}, w, dt, aligned))
        for bn, w, st in ((8192, 16, 1), (8192, 32, 1), (16384, 32, 1), (8192, 16, 3), (4096, 8, 3)):
            out.append(_variant(f"softmax_{dt}_stream_n{bn}_w{w}_s{st}", "softmax_online", "softmax_online.py",
                                "softmax_stream", _rowwise_signature(dt, True), {"BLOCK_N": bn, "STAGES": st}, w,
                                dt, True, num_stages=st))
    return out


VARIANTS = _nvfp4_gemv() + _copy_transpose() + _reduce_sum() + _softmax_online()

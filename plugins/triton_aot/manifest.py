"""The Triton kernel variants compiled into the triton_aot plugin, read by
tools/triton_aot.py at build time (docs/TRITON_AOT.md).

Each entry becomes one sm_90a cubin. Order matters: for each op the launcher takes
the first variant, in this order, that can run the input and whose preference rule
holds, else the last one that can run (see the op's launcher file). The block sizes
and the rules come from measurements on an H200 (docs/TRITON_AOT.md, "Variants and the
selection rule").

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
  num_warps, num_stages  (always 1: Triton's shared-memory pipelining of a loop's loads
              drops their L2 eviction hints, which measured worth more)
  dtype       the element type the variant serves: fp16, bf16, fp32, b16 and b32 (any
              type of that size), e2m1
  aligned     True when the signature carries divisibility promises
  cluster     programs per cluster along the grid's x (1: none); the launcher launches
              them as thread-block clusters (softmax_cluster)
"""

FLOAT_TYPES = ("fp16", "bf16", "fp32")


def _variant(name, op, source, function, signature, constexprs, num_warps, dtype, aligned, cluster=1):
    return {"name": name, "op": op, "source": source, "function": function, "signature": signature,
            "constexprs": constexprs, "num_warps": num_warps, "num_stages": 1, "dtype": dtype,
            "aligned": aligned, "cluster": cluster}


def _rowwise_signature(elem, aligned, m_aligned=False):
    hint = ":16" if aligned else ""
    m_hint = hint if m_aligned else ""
    return {"x": f"*{elem}{hint}", "y": f"*{elem}{hint}", "m": f"i32{m_hint}", "n": f"i32{hint}"}


def _nvfp4_gemv():
    # ks = k/16 is even for every aligned k (k % 32 == 0); the ":2" promise gives each
    # thread 2 words of a row per 64 groups (one 16-byte load) and their 2 scale bytes.
    # In order (the rule is in nvfp4_gemv.c): for grids larger than one wave of the last
    # variant, one warp in a plain loop whose loads issue at the top of each pass ("_top";
    # 63 registers: 32 programs an SM), holding 2 rows of whole 2048-element tiles where k
    # is a multiple of 2048 from 4096 on, else 4 rows of 1024-element tiles; for grids of
    # one wave or less of long rows, 4 rows a program whose 4 warps share each step's k (56
    # registers, 9 programs an SM); past that, the 2-row one-warp variant again for rows of
    # whole 2048-element tiles while its own wave holds the grid; else 4 rows a program
    # whose 2 warps share each step's k (one 16-byte load a row a thread): for a grid
    # within its wave the form that reduces the last tile after the loop ("_peel"; 72
    # registers, 14 programs an SM), else the one whose last pass reloads it (56
    # registers, 18 programs an SM). The 2- and 4-warp variants load the next tile ahead
    # in the source (LOAD_AHEAD).
    signature = {"a": "*i64:16", "sfa": "*u8:16", "v": "*i64:16", "sfv": "*u8:16", "c": "*fp16:16",
                 "m": "i32:16", "ks": "i32:2"}
    suffixes = {"top": "_top", "reload": "", "peel": "_peel"}

    def gemv(bm, bk, w, loop):
        constexprs = {"BLOCK_M": bm, "BLOCK_K": bk, "LOAD_AHEAD": loop != "top", "LAST_AFTER_LOOP": loop == "peel"}
        return _variant(f"gemv_m{bm}_k{bk}_w{w}{suffixes[loop]}", "nvfp4_gemv", "nvfp4_gemv.py", "nvfp4_gemv",
                        signature, constexprs, w, "e2m1", True)

    return [gemv(2, 2048, 1, "top"), gemv(4, 1024, 1, "top"), gemv(4, 4096, 4, "reload"),
            gemv(4, 2048, 2, "peel"), gemv(4, 2048, 2, "reload")]


def _copy_transpose():
    # The large tile per element size, then a smaller aligned one and the masked scalar
    # one for small or unaligned matrices.
    out = []
    large = {16: (128, 128, 8), 32: (64, 128, 4)}
    for bits in (16, 32):
        elem = f"i{bits}"
        for bm, bn, w, aligned in (large[bits] + (True, ), (64, 64, 4, True), (64, 64, 4, False)):
            suffix = "" if aligned else "_any"
            out.append(_variant(f"copy_b{bits}_t{bm}x{bn}_w{w}{suffix}", "copy_transpose",
                                "copy_transpose.py", "copy_transpose", _rowwise_signature(elem, aligned, m_aligned=True),
                                {"BLOCK_M": bm, "BLOCK_N": bn}, w, f"b{bits}", aligned))
    return out


def _reduce_sum():
    out = []
    for dt in FLOAT_TYPES:
        # 8 warps for the 8192-wide tile: 32 elements a thread, so twice the bytes in flight per
        # thread of 16 warps (docs/TRITON_AOT.md, reduce_sum; docs/PERF.md run W, calls 9 and 10).
        for bm, bn, w, aligned in ((32, 64, 4, True), (4, 1024, 4, True), (1, 8192, 8, True),
                                   (4, 512, 4, False)):
            suffix = "" if aligned else "_any"
            out.append(_variant(f"reduce_{dt}_m{bm}_n{bn}_w{w}{suffix}", "reduce_sum", "reduce_sum.py",
                                "reduce_sum", _rowwise_signature(dt, aligned), {"BLOCK_M": bm, "BLOCK_N": bn},
                                w, dt, aligned))
    return out


def _softmax_cluster(dt):
    # (programs per row = the cluster size, BLOCK_N, warps), longest rows first. 16-bit
    # rows of 16385 to 65536 take 4 programs of 16384 elements, 128 a thread (161
    # registers, 3 programs an SM); fp32 rows, and shorter 16-bit ones, 8 of 8192, 64 a
    # thread (89-96 registers). A cluster holds up to 8 programs on every Hopper part, the
    # portable size. Measured on an H200 (docs/PERF.md run X).
    shapes = ((8, 8192, 4), ) if dt == "fp32" else ((4, 16384, 4), (8, 8192, 4))
    signature = dict(_rowwise_signature(dt, True), part="*fp32:16")
    return [_variant(f"softmax_{dt}_cluster_c{c}_n{bn}_w{w}", "softmax_online", "softmax_online.py",
                     "softmax_cluster", signature, {"BLOCK_N": bn, "THREADS": 32 * w}, w, dt, True, cluster=c)
            for c, bn, w in shapes]


def _softmax_online():
    out = []
    for dt in FLOAT_TYPES:
        # (BLOCK_M, BLOCK_N, warps, aligned); BLOCK_M 0 is the streaming kernel, whose
        # launch shape sets how many rows share L2 (softmax_online.py).
        stream = (0, 16384, 32, True) if dt == "fp32" else (0, 8192, 16, True)
        for bm, bn, w, aligned in ((16, 64, 4, True), (4, 1024, 4, True), (1, 8192, 8, True), stream,
                                   (4, 1024, 4, False), (0, 2048, 8, False)):
            suffix = "" if aligned else "_any"
            if bm:
                out.append(_variant(f"softmax_{dt}_tile_m{bm}_n{bn}_w{w}{suffix}", "softmax_online",
                                    "softmax_online.py", "softmax_tile", _rowwise_signature(dt, aligned),
                                    {"BLOCK_M": bm, "BLOCK_N": bn}, w, dt, aligned))
            else:
                if aligned:
                    out += _softmax_cluster(dt)
                out.append(_variant(f"softmax_{dt}_stream_n{bn}_w{w}{suffix}", "softmax_online",
                                    "softmax_online.py", "softmax_stream", _rowwise_signature(dt, aligned),
                                    {"BLOCK_N": bn}, w, dt, aligned))
    return out


VARIANTS = _nvfp4_gemv() + _copy_transpose() + _reduce_sum() + _softmax_online()

"""The variants of fp8_block_gemm compiled into the plugin, in preference order (manifest.py
collects them; fp8_block_gemm.py holds the kernels). A first guess, not yet timed on a GPU
(docs/TRITON_AOT.md).

Every GEMM variant steps k by 128 (promoting once per scale block, DeepGEMM's way) and is
pipelined over 4 stages: unlike the memory-bound ops, whose loads carry L2 hints that
Triton's pipelining drops, a GEMM's loop must keep the tensor cores fed while the next
tiles land. A stage of a 64 x 128 tile holds 24 KiB of e4m3 (two programs an SM by shared
memory), of a 128 x 128 tile 32 KiB (one). Two fp32 accumulators of the tile (the step's
and the sum) take 128 registers a thread at 4 warps for 64 x 128 and at 8 warps for
128 x 128. In order (the rule is in plugins/triton_aot/fp8_block_gemm.c): 64-row tiles
for m <= 64 (DeepSeek-V3's decode-like m = 64; wgmma's smallest M), split over k where
the tiles alone would leave half the SMs idle or more; else 128-row tiles, split likewise;
then the form with per-column scales of b for block shapes the others cannot run
(qn % 128 != 0: per-token scales), on 128 x 64 tiles: at 128 columns a thread's 32 column
scales and the next step's spilled. The reduction that adds the split variants' partial
sums comes first: the rule never picks it, and a call no GEMM variant runs is declined
with the last GEMM variant's reason.
"""
from variant import variant

STAGES = 4
GROUP_M = 8  # tile rows a group (fp8_block_gemm.py): 8 x 128 rows of a share each column of b in L2


def _signature(out, split):
    signature = {"a": "*fp8e4nv:16", "b": "*fp8e4nv:16", "sa_t": "*fp32:16", "sb_t": "*fp32:16", out: None,
                 "m": "i32", "n": "i32", "k": "i32:16", "qm": "i32", "qn": "i32", "qk": "i32"}
    signature[out] = "*fp32:16" if split else "*bf16:16"
    if split:  # the partial sums' tensor, m and n padded to whole tiles: rows of a multiple of 128
        signature.update(split_steps="i32", part_rows="i32", part_cols="i32:16")
    return signature


def _gemm(bm, warps, function, suffix="", bn=128):
    split = function == "fp8_block_gemm_split"
    constexprs = {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": 128, "GROUP_M": GROUP_M}
    return variant(f"fp8_m{bm}_n{bn}_k128_w{warps}_s{STAGES}{suffix}", "fp8_block_gemm", "fp8_block_gemm.py",
                   function, _signature("part" if split else "out", split), constexprs, warps, "e4m3", True,
                   num_stages=STAGES)


def _variants():
    reduce = variant("fp8_split_reduce_m8_n128_w4", "fp8_block_gemm", "fp8_block_gemm.py", "fp8_block_gemm_reduce",
                     {"part": "*fp32:16", "out": "*bf16:16", "m": "i32", "n": "i32", "splits": "i32",
                      "part_rows": "i32", "part_cols": "i32:16"}, {"BLOCK_M": 8, "BLOCK_N": 128}, 4, "e4m3", True)
    return [reduce, _gemm(64, 4, "fp8_block_gemm_split", "_split"), _gemm(64, 4, "fp8_block_gemm"),
            _gemm(128, 8, "fp8_block_gemm_split", "_split"), _gemm(128, 8, "fp8_block_gemm"),
            _gemm(128, 8, "fp8_block_gemm_column_scales", "_column_scales", 64)]


VARIANTS = _variants()

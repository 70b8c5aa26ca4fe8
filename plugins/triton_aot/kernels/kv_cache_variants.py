"""The variants of the four KV-cache layout conversions compiled into the plugin, in
preference order: each op's <op>_variants.py lists variants(op), which manifest.py
collects; kv_cache.py holds the kernel the four ops share. A copy moves bits, so each
variant serves every element type of its size."""
from variant import variant

# The arenas' pointer type by element size: fp8 as uint8, fp16 and bf16 as int16, fp32 as int32.
BITS_TYPE = {8: "u8", 16: "i16", 32: "i32"}
VECTOR_BYTES = 16
# The aligned variants move 8 KiB a tile in rows of 128 elements (Llama's head dim), 4
# vectors a thread at 4 warps; the element-wise ones 32 x 32 elements. Not yet timed.
TILE_BYTES = 8192
ROW = 128


def signature(bits):
    arena = "*" + BITS_TYPE[bits]
    return {"src": arena, "src_table": "*i64", "dst_table": "*i64", "dst": arena, "nh": "i32", "nl": "i32",
            "no": "i32", "nt": "i32", "hd_vecs": "i32", "layout": "i32", "from_blocks": "i32", "permute": "i32"}


def variants(op):
    """op's variants: per element size, the 16-byte-vector one, then the element-wise one
    that runs any input."""
    out = []
    for bits in (8, 16, 32):
        vec = VECTOR_BYTES * 8 // bits
        rows = TILE_BYTES * 8 // (ROW * bits)
        for block_r, block_d, v, aligned in ((rows, ROW, vec, True), (32, 32, 1, False)):
            suffix = "" if aligned else "_any"
            out.append(variant(f"{op}_b{bits}_r{block_r}x{block_d}_w4{suffix}", op, "kv_cache.py", "kv_copy",
                               signature(bits), {"BLOCK_R": block_r, "BLOCK_D": block_d, "VEC": v}, 4,
                               f"b{bits}", aligned))
    return out

"""The variants of nvfp4_gemv compiled into the plugin, in preference order (manifest.py
collects them; nvfp4_gemv.py holds the kernels)."""
from variant import variant


def _variants():
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
        return variant(f"gemv_m{bm}_k{bk}_w{w}{suffixes[loop]}", "nvfp4_gemv", "nvfp4_gemv.py", "nvfp4_gemv",
                       signature, constexprs, w, "e2m1", True)

    return [gemv(2, 2048, 1, "top"), gemv(4, 1024, 1, "top"), gemv(4, 4096, 4, "reload"),
            gemv(4, 2048, 2, "peel"), gemv(4, 2048, 2, "reload")]


VARIANTS = _variants()

"""The Triton kernel variants compiled into the triton_aot plugin, read by
tools/triton_aot.py at build time (docs/TRITON_AOT.md).

Each op's variants are the VARIANTS list of kernels/<op>_variants.py, beside its kernels
in kernels/<op>.py; this file collects them in the order of the op list
(core/ops/meson.build), passing over ops that have none. Each entry becomes one sm_90a cubin. Order matters: for each op the
launcher takes the first variant, in this order, that can run the input and whose
preference rule holds, else the last one that can run (see the op's launcher file). The
block sizes and the rules come from measurements on an H200 (docs/TRITON_AOT.md,
"Variants and the selection rule").

Entry fields (kernels/variant.py builds them):
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
  dtype       the element type the variant serves: fp16, bf16, fp32, b8, b16 and b32 (any
              type of that size), e2m1
  aligned     True when the signature carries divisibility promises
  cluster     programs per cluster along the grid's x (1: none); the launcher launches
              them as thread-block clusters
"""
import importlib.util
import os
import re
import sys

KERNELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kernels")
OP_LIST = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "core", "ops", "meson.build")


def op_names():
    """The op list, read where the build defines it, so that it is written once."""
    with open(OP_LIST, encoding="utf-8") as f:
        found = re.search(r"^khost_ops = \[([^\]]*)\]", f.read(), re.M)
    if not found:
        raise ValueError(f"{OP_LIST}: no line khost_ops = [...]")
    return re.findall(r"'(\w+)'", found.group(1))


def op_variants(op):
    """The VARIANTS of kernels/<op>_variants.py, or none when the op has no such file."""
    path = os.path.join(KERNELS, op + "_variants.py")
    if not os.path.isfile(path):
        return []
    spec = importlib.util.spec_from_file_location(f"khost_triton_variants_{op}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.VARIANTS


if KERNELS not in sys.path:  # the variant lists import their shared helpers (variant.py)
    sys.path.insert(0, KERNELS)
VARIANTS = [v for op in op_names() for v in op_variants(op)]

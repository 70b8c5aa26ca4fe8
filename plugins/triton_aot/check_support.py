"""What the interpreter checks of every op (kernels/<op>_check.py, run by
check_kernels.py) share, no GPU needed: Triton's interpreter (TRITON_INTERPRET=1) on
numpy data, with the inline PTX the kernels carry (the GEMV's fp4 decode, the softmax's
ex2), which the interpreter cannot run, executed by a small emulator of the few
instructions it uses, bit for bit; every load and store of an active lane checked to
fall inside one of the launch's arrays; launching a variant as tools/triton_aot.py
compiles it; and the element types of the float row ops.
"""
import importlib.util
import os
import re
import sys

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported, here or anywhere

import numpy as np  # noqa: E402
import triton.language as tl  # noqa: E402
from triton.runtime import interpreter  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))

# ---- the PTX emulator ----

MASK32 = np.uint64(0xFFFFFFFF)


def _f32(bits):
    return (bits & MASK32).astype(np.uint32).view(np.float32)


def _f32_bits(values):
    return values.astype(np.float32).view(np.uint32).astype(np.uint64)


def _prmt(a, b, c):
    """prmt.b32 in its default mode: each selector nibble of c picks one of the 8 bytes of
    {b, a}; with the nibble's top bit set, the byte becomes its own sign, 0x00 or 0xff."""
    a, b, c = np.broadcast_arrays(a, b, c)
    source = (a & MASK32) | ((b & MASK32) << np.uint64(32))
    out = np.zeros_like(source)
    for i in range(4):
        sel = (c >> np.uint64(4 * i)) & np.uint64(15)
        byte = (source >> ((sel & np.uint64(7)) * np.uint64(8))) & np.uint64(0xFF)
        sign = np.where(byte & np.uint64(0x80), np.uint64(0xFF), np.uint64(0))
        byte = np.where(sel & np.uint64(8), sign, byte)
        out |= byte << np.uint64(8 * i)
    return out


def _dp4a_u32_s32(a, b, c):
    """c + the four products of a's unsigned and b's signed bytes, as 32-bit two's complement."""
    total = (c & MASK32).astype(np.uint32).view(np.int32).astype(np.int64)
    for i in range(4):
        shift = np.uint64(8 * i)
        ua = ((a >> shift) & np.uint64(0xFF)).astype(np.int64)
        sb = ((b >> shift) & np.uint64(0xFF)).astype(np.uint8).view(np.int8).astype(np.int64)
        total = total + ua * sb
    return total.astype(np.int32).view(np.uint32).astype(np.uint64)


def _f16(bits):
    return (bits & np.uint64(0xFFFF)).astype(np.uint16).view(np.float16)


def _f16_bits(values):
    return values.astype(np.float16).view(np.uint16).astype(np.uint64)


def _e4m3x2_to_f16x2(codes):
    """cvt.rn.f16x2.e4m3x2: the low byte to the low half; every e4m3 value is an fp16 value."""
    halves = [_f16_bits(e4m3_value((codes >> np.uint64(8 * i)) & np.uint64(0xFF))) for i in range(2)]
    return halves[0] | (halves[1] << np.uint64(16))


def _mul_f16x2(a, b):
    """mul.rn.f16x2: each product of two fp16 values is exact in float64, so one rounding."""
    out = np.zeros(np.broadcast_shapes(np.shape(a), np.shape(b)), np.uint64)
    for i in range(2):
        shift = np.uint64(16 * i)
        x, y = _f16(a >> shift).astype(np.float64), _f16(b >> shift).astype(np.float64)
        out |= _f16_bits(x * y) << shift
    return out


def _ex2_ftz(x):
    x = np.where(np.abs(x) < np.float32(2.0**-126), np.float32(0), x)
    r = np.exp2(x.astype(np.float64)).astype(np.float32)
    return np.where(np.abs(r) < np.float32(2.0**-126), np.float32(0), r)


# The interpreter runs programs one after another, so a barrier has nothing to wait for
# (launch_cluster runs a cluster kernel twice instead).
BARRIERS = ("barrier.cluster.arrive.release", "barrier.cluster.wait.acquire")


class Ptx:
    """Runs the straight-line PTX of an inline_asm_elementwise on numpy arrays of raw bits."""

    def __init__(self, text, operands):
        self.regs = {f"${i}": v for i, v in enumerate(operands)}
        # Scope braces stand on lines of their own; braces inside a line are vector operands.
        body = re.sub(r"^\s*[{}]\s*$", "", re.sub(r"//[^\n]*", "", text), flags=re.M)
        self.lines = [s.strip() for s in body.split(";") if s.strip() and not s.strip().startswith(".reg")]

    def value(self, token):
        token = token.strip()
        if token in self.regs:
            return self.regs[token]
        return np.uint64(int(token, 0))

    def run(self):
        for line in self.lines:
            op, _, rest = line.partition(" ")
            if op in BARRIERS:
                continue
            self.step(op, rest)
        return self.regs

    def step(self, op, rest):
        split = re.match(r"\{\s*(\w+),\s*(\w+)\s*\},\s*(\S+)", rest.strip())
        if op in ("mov.b64", "mov.b32") and split:  # a register into its low and high halves
            x, bits = self.value(split.group(3)), np.uint64(32 if op == "mov.b64" else 16)
            low = x & ((np.uint64(1) << bits) - np.uint64(1))
            self.regs[split.group(1)], self.regs[split.group(2)] = low, (x >> bits) & MASK32
            return
        dst, *src = [t.strip() for t in rest.split(",")]
        v = [self.value(s) for s in src]
        if op == "mov.b32":
            r = v[0] & MASK32
        elif op == "shr.b32":
            r = (v[0] & MASK32) >> v[1]
        elif op == "and.b32":
            r = v[0] & v[1] & MASK32
        elif op == "or.b32":
            r = (v[0] | v[1]) & MASK32
        elif op == "xor.b32":
            r = (v[0] ^ v[1]) & MASK32
        elif op == "add.u32":
            r = (v[0] + v[1]) & MASK32
        elif op in ("sub.u32", "sub.s32"):  # the same bits in two's complement
            r = (v[0] - v[1]) & MASK32
        elif op == "prmt.b32":
            r = _prmt(v[0], v[1], v[2])
        elif op == "dp4a.u32.s32":
            r = _dp4a_u32_s32(v[0], v[1], v[2])
        elif op == "cvt.rn.f16x2.e4m3x2":
            r = _e4m3x2_to_f16x2(v[0])
        elif op == "mul.rn.f16x2":
            r = _mul_f16x2(v[0], v[1])
        elif op == "cvt.f32.f16":
            r = _f32_bits(_f16(v[0]))
        elif op == "cvt.rn.f32.s32":
            r = _f32_bits((v[0] & MASK32).astype(np.uint32).view(np.int32))
        elif op == "ex2.approx.ftz.f32":
            r = _f32_bits(_ex2_ftz(_f32(v[0])))
        else:
            raise NotImplementedError(f"PTX emulator: {op}")
        self.regs[dst] = np.asarray(r, dtype=np.uint64)


_NP_OF_TL = {tl.int32: np.int32, tl.float32: np.float32, tl.int64: np.int64}


def _from_bits(bits, ty):
    np_type = np.dtype(_NP_OF_TL[ty])
    if np_type.itemsize == 8:
        return bits.astype(np.uint64).view(np_type)
    return bits.astype(np.uint32).view(np_type)


class _AsmCall:

    def __init__(self, handles):
        self.handles = handles

    def get_result(self, i):
        return self.handles[i]


def _packed_operands(bits, itemsize, pack):
    """An input's operands for pack elements at a time (element j of each pack in column j):
    one register of pack elements when they are narrower than 4 bytes, else one each."""
    if itemsize >= 4:
        return [bits[:, j] for j in range(pack)]
    word = np.zeros(bits.shape[0], np.uint64)
    for j in range(pack):
        word |= bits[:, j] << np.uint64(8 * itemsize * j)
    return [word]


def _create_inline_asm(asm, constraints, values, types, is_pure, pack):
    """Runs the asm on every pack of consecutive elements (in row-major order, which is one
    choice of the pairing Triton leaves unspecified); outputs come pack registers a tensor."""
    n_out = sum(1 for c in constraints.split(",") if c.startswith("="))
    shape = np.broadcast_shapes(*[h.data.shape for h in values])
    inputs = []
    for h in values:
        data = np.ascontiguousarray(np.broadcast_to(h.data, shape)).reshape(-1, pack)
        bits = data.view(np.uint64) if data.dtype.itemsize == 8 else data.view(
            {1: np.uint8, 2: np.uint16, 4: np.uint32}[data.dtype.itemsize]).astype(np.uint64)
        inputs += _packed_operands(bits, data.dtype.itemsize, pack)
    count = int(np.prod(shape)) // pack
    regs = Ptx(asm, [np.zeros(count, np.uint64)] * n_out + inputs).run()
    scalars = [getattr(ty, "element_ty", ty) for ty in types]
    outs = []
    for i, ty in enumerate(scalars):
        bits = np.stack([np.broadcast_to(regs[f"${i * pack + j}"], count) for j in range(pack)], axis=1)
        outs.append(interpreter.TensorHandle(_from_bits(bits.reshape(shape), ty), ty))
    return _AsmCall(outs)


class OutOfBounds(Exception):
    pass


# [start, end) of each array the running launch was given: on the GPU a read outside them
# would be a fault or a silent wrong value, which the interpreter's numpy reads hide.
_BOUNDS = []


def _checked(access, kind, mask_at):
    """access (the interpreter builder's masked load or store, kind, whose mask is argument
    mask_at after the pointers), failing on any active lane whose element lies outside every
    array of the launch."""
    def run(self, ptrs, *rest):
        mask = rest[mask_at]
        size = np.dtype(interpreter._get_np_dtype(ptrs.get_element_ty())).itemsize
        addrs = ptrs.data[np.broadcast_to(mask.data, ptrs.data.shape)].astype(np.uint64)
        inside = np.zeros(addrs.shape, dtype=bool)
        for start, end in _BOUNDS:
            inside |= (addrs >= start) & (addrs + np.uint64(size) <= end)
        if not inside.all():
            raise OutOfBounds(f"{kind} of {int((~inside).sum())} "
                              f"{size}-byte element(s) outside the launch's arrays, "
                              f"first at {int(addrs[~inside][0]):#x}")
        return access(self, ptrs, *rest)
    return run


def install_interpreter_hooks():
    interpreter.interpreter_builder.create_inline_asm = _create_inline_asm
    builder = type(interpreter.interpreter_builder)
    builder.create_masked_load = _checked(builder.create_masked_load, "load", 0)
    builder.create_masked_store = _checked(builder.create_masked_store, "store", 1)
    # The data is host memory already: no copies to and from a device.
    interpreter.GridExecutor._init_args_hst = lambda self, args, kwargs: (args, kwargs)
    interpreter.GridExecutor._restore_args_dev = lambda self, *a: None


# ---- running a variant ----


class Pointer:
    """What the interpreter takes for a tensor argument: an address and a torch-like dtype name."""

    def __init__(self, array, dtype):
        self.array = array
        self.dtype = f"torch.{dtype}"

    def data_ptr(self):
        return self.array.ctypes.data


STORAGE = {"fp16": (np.float16, "float16"), "bf16": (np.uint16, "bfloat16"), "fp32": (np.float32, "float32"),
           "b16": (np.int16, "int16"), "b32": (np.int32, "int32")}
ULP = {"fp16": 2.0**-10, "bf16": 2.0**-7, "fp32": 2.0**-23}  # twice the unit roundoff
SUBNORMAL = {"fp16": 2.0**-24, "bf16": 2.0**-133, "fp32": 2.0**-149}


def bf16_to_f64(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def f64_to_bf16(x):
    f = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    return ((f + 0x7FFF + ((f >> 16) & 1)) >> 16).astype(np.uint16)


def encode(values, dtype):
    return f64_to_bf16(values) if dtype == "bf16" else values.astype(STORAGE[dtype][0])


def decode(array, dtype):
    return bf16_to_f64(array) if dtype == "bf16" else array.astype(np.float64)


def launch_cluster(variant, grid, args, part_floats):
    """Runs a kernel whose programs exchange values through `part` across a cluster
    barrier. Programs run one after another here, so a program reads the slots of the
    peers after it before they are written: the first run leaves every slot filled
    (poisoned before), the second reads them as the barrier would have let it. Both runs
    write the same slots."""
    part = np.full(part_floats, np.nan, np.float32)
    for _ in range(2):
        launch(variant, grid, *args, Pointer(part, "float32"))


def aot_compiler():
    """tools/triton_aot.py, for how it loads each kernel and the constants it gives it."""
    if "khost_triton_aot" not in sys.modules:
        spec = importlib.util.spec_from_file_location("khost_triton_aot",
                                                      os.path.join(HERE, "..", "..", "tools", "triton_aot.py"))
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules["khost_triton_aot"] = module
    return sys.modules["khost_triton_aot"]


def run_bounded(fn, grid, args, constexprs):
    """fn[grid](*args) with its loads and stores checked against the arrays among args."""
    _BOUNDS[:] = [(np.uint64(a.data_ptr()), np.uint64(a.data_ptr() + a.array.nbytes))
                  for a in args if isinstance(a, Pointer)]
    fn[grid](*args, **constexprs)


def launch(variant, grid, *args):
    aot = aot_compiler()
    fn = aot.kernel_function(os.path.join(HERE, "kernels"), variant["source"], variant["function"])
    run_bounded(fn, grid, args, aot.constexprs_of(fn, variant))


def rows_shapes(variant):
    """Shapes a row-wise variant can run, small enough for the interpreter: rows
    shorter than a tile, whole tiles, whole tiles and a partial one, partial programs."""
    c = variant["constexprs"]
    bm, bn = c.get("BLOCK_M", 1), c["BLOCK_N"]
    if variant["aligned"]:
        shapes = [(bm + 16, 48), (3, bn), (2, 2 * bn), (16, bn + 32)]
    else:
        shapes = [(7, 3), (bm + 3, bn + 5), (1, 1), (2, 2 * bn)]
    return shapes

SIGMA = 2.0  # the spread of the float row checks' values


def row_values(rng, m, n, offset_max=0.0):
    return rng.standard_normal((m, n)) * SIGMA + rng.uniform(-offset_max, offset_max, size=(m, 1))


def e4m3_value(code):
    code = code.astype(np.int64)
    sign = np.where(code & 0x80, -1.0, 1.0)
    exp = (code >> 3) & 15
    mant = code & 7
    value = np.where(exp == 0, mant / 8 * 2.0**-6, (1 + mant / 8) * 2.0**(exp - 7))
    return sign * value

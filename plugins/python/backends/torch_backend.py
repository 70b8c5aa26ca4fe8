"""PyTorch eager as a khost backend, `torch`: what a user reaches for first,
timed in khost's own table. Each kernel runs on khost's stream
(torch.cuda.ExternalStream) and writes khost's output in place (an out= form
where PyTorch has one, so that no copy is timed that the op does not need).

torch is imported on first use, by supports() (which khost calls before any
timing), not when this module is imported: the module is imported in every
khost run, --list included, and importing torch takes seconds. Where torch
cannot be imported, or sees no GPU, every kernel declines with the reason
(SKIP); docs/PYTHON.md has the details."""
import importlib.util

torch = None  # the module, once _import_torch() succeeded
_missing = None  # why it failed, once it did


def _import_torch():
    """None once torch is imported, else why it cannot be (kept: tried once)."""
    global torch, _missing
    if torch is None and _missing is None:
        try:
            import torch
        except Exception as error:  # not installed, or an install that does not import
            _missing = f"PyTorch is not importable here ({type(error).__name__}: {error})"
    return _missing


def _installed_version():
    """torch's version, read from its package metadata without importing it."""
    if importlib.util.find_spec("torch") is None:
        return "not installed"
    from importlib import metadata  # tens of milliseconds: only where torch is there

    try:
        return metadata.version("torch")
    except metadata.PackageNotFoundError:
        return "unknown version"


_streams = {}


def stream_of(pointer):
    stream = _streams.get(pointer)
    if stream is None:
        stream = _streams[pointer] = torch.cuda.ExternalStream(pointer)
    return stream


def usable(inputs, outputs, params):
    missing = _import_torch()
    if missing:
        return missing
    if not torch.cuda.is_available():
        return "torch.cuda.is_available() is False"
    return None


def on_stream(body):
    """run() of a kernel whose work is body(*input tensors, *output tensors), as
    torch tensors, on khost's stream. fp8 and fp4 tensors come as their bytes
    (uint8; Tensor.raw()), which every torch takes through DLPack."""

    def run(inputs, outputs, params, stream):
        with torch.cuda.stream(stream_of(stream)):
            body(*tensors(inputs), *tensors(outputs))

    return run


def tensors(khost_tensors):
    """khost's tensors as torch tensors on the same memory (no copy)."""
    return [torch.from_dlpack(t.raw() if t.dtype in ("e4m3", "e2m1") else t) for t in khost_tensors]


def transpose(x, out):
    out.copy_(x.t())


def row_sum(x, out):
    torch.sum(x, 1, out=out)


def softmax(x, out):
    torch.ops.aten._softmax.out(x, 1, False, out=out)


def _e2m1(codes):
    """fp4 e2m1 codes (FORMATS.md) to fp32: the sign in bit 3, two exponent bits
    (bias 1, 0 subnormal), one mantissa bit. Arithmetic, not a lookup in a
    tensor, so that the torch_compile backend traces elementwise operations only."""
    exponent = (codes >> 1) & 3
    mantissa = (codes & 1).float()
    magnitude = torch.where(exponent == 0, 0.5 * mantissa, (1 + 0.5 * mantissa) * torch.exp2(exponent.float() - 1))
    return torch.where((codes & 8) != 0, -magnitude, magnitude)


def _dequantize(packed, scales):
    """Packed e2m1 bytes [..., k/2] (low nibble first) and e4m3 scales [..., k/16] (bytes) to fp32 [..., k]."""
    values = torch.stack((_e2m1(packed & 15), _e2m1(packed >> 4)), -1).flatten(-2)
    return values * scales.view(torch.float8_e4m3fn).float().repeat_interleave(16, -1)


def gemv_product(a, v, sfa, sfv):
    """c of nvfp4_gemv in fp32: both sides dequantized, then an fp32 matmul."""
    return torch.matmul(_dequantize(a, sfa), _dequantize(v, sfv).unsqueeze(-1)).squeeze(-1)


def gemv(a, v, sfa, sfv, sfa_swizzled, sfv_swizzled, c):
    """The whole of it, the copy into c included, is the call khost times."""
    c.copy_(gemv_product(a, v, sfa, sfv))


# fp8_block_gemm through torch._scaled_mm with block-wise scales (1x128 for a,
# 128x128 for b, as DeepSeek-V3 uses them). Which scale layout the installed
# PyTorch takes is learnt once per shape in supports(), checked against a
# dequantized fp32 product there, and used by run().
_layouts = {}


def _gemm_key(a, b):
    return tuple(a.shape), tuple(b.shape)


def _gemm_scales(sa, sb, sa_t, sb_t):
    """The layouts torch._scaled_mm may take block-wise scales in, by name."""
    return {"sa": sa, "sa_t.t()": sa_t.t()}, {"sb": sb, "sb_t": sb_t, "sb.t()": sb.t(), "sb_t.t()": sb_t.t()}


def _scaled(a, b, scale_a, scale_b, out=None):
    """a and b as their bytes; out None: a new bf16 tensor."""
    e4m3 = torch.float8_e4m3fn
    return torch._scaled_mm(a.view(e4m3), b.view(e4m3).t(), scale_a=scale_a, scale_b=scale_b,
                            out_dtype=torch.bfloat16, out=out)


def _dequantized_product(a, b, sa, sb, params):
    def dequantized(x, scales, q):
        rows = scales.repeat_interleave(q, 0)[: x.shape[0]]
        return x.view(torch.float8_e4m3fn).float() * rows.repeat_interleave(params["qk"], 1)[:, : params["k"]]

    return dequantized(a, sa, params["qm"]) @ dequantized(b, sb, params["qn"]).t()


def _gemm_supports(inputs, outputs, params):
    reason = usable(inputs, outputs, params)
    if reason:
        return reason
    if not hasattr(torch, "_scaled_mm"):
        return f"torch {torch.__version__} has no torch._scaled_mm"
    if (params["qm"], params["qn"], params["qk"]) != (1, 128, 128):
        return "torch._scaled_mm scales blocks of 1x128 (a) and 128x128 (b) only"
    a, b, sa, sb, sa_t, sb_t = tensors(inputs)
    key = _gemm_key(a, b)
    if key in _layouts:
        return None
    torch.cuda.synchronize()  # khost's stream wrote the inputs; this reads them on torch's
    want = _dequantized_product(a, b, sa, sb, params)
    last = "no scale layout tried"
    scales_a, scales_b = _gemm_scales(sa, sb, sa_t, sb_t)
    for name_a, scale_a in scales_a.items():
        for name_b, scale_b in scales_b.items():
            try:
                got = _scaled(a, b, scale_a, scale_b).float()
            except (RuntimeError, ValueError, TypeError) as error:
                last = f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"
                continue
            if torch.allclose(got, want, rtol=2e-2, atol=1e-3 * float(want.abs().max())):
                _layouts[key] = (name_a, name_b)
                return None
            last = f"scales {name_a}, {name_b}: the product is not the dequantized one"
    return f"torch {torch.__version__}: torch._scaled_mm takes no block-wise scales here ({last})"


def gemm(a, b, sa, sb, sa_t, sb_t, out):
    name_a, name_b = _layouts[_gemm_key(a, b)]
    scales_a, scales_b = _gemm_scales(sa, sb, sa_t, sb_t)
    _scaled(a, b, scales_a[name_a], scales_b[name_b], out=out)


def _describe_gemm(inputs, outputs, params):
    name_a, name_b = _layouts.get(_gemm_key(*inputs[:2]), ("?", "?"))
    return f"torch._scaled_mm({name_a}, {name_b})"


def named(text):
    return lambda inputs, outputs, params: text


def _kernel(op, body, describe, supports=usable):
    return {"op": op, "device": "cuda", "run": on_stream(body), "supports": supports, "describe": describe}


KHOST_BACKEND = {
    "name": "torch",
    "version": _installed_version(),
    "description": "PyTorch eager",
    "kernels": [
        _kernel("copy_transpose", transpose, named("out.copy_(x.t())")),
        _kernel("reduce_sum", row_sum, named("torch.sum(x, 1, out=out)")),
        _kernel("softmax_online", softmax, named("aten._softmax.out(x, 1)")),
        _kernel("nvfp4_gemv", gemv, named("dequantize + fp32 matmul")),
        _kernel("fp8_block_gemm", gemm, _describe_gemm, _gemm_supports),
    ],
}

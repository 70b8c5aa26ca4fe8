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
_tables = {}


def _stream(pointer):
    stream = _streams.get(pointer)
    if stream is None:
        stream = _streams[pointer] = torch.cuda.ExternalStream(pointer)
    return stream


def _usable(inputs, outputs, params):
    missing = _import_torch()
    if missing:
        return missing
    if not torch.cuda.is_available():
        return "torch.cuda.is_available() is False"
    return None


def _on_stream(body):
    """run() of a kernel whose work is body(inputs, outputs, params) on khost's stream."""

    def run(inputs, outputs, params, stream):
        with torch.cuda.stream(_stream(stream)):
            body(inputs, outputs, params)

    return run


def _transpose(inputs, outputs, params):
    torch.from_dlpack(outputs[0]).copy_(torch.from_dlpack(inputs[0]).t())


def _row_sum(inputs, outputs, params):
    torch.sum(torch.from_dlpack(inputs[0]), 1, out=torch.from_dlpack(outputs[0]))


def _softmax(inputs, outputs, params):
    torch.ops.aten._softmax.out(torch.from_dlpack(inputs[0]), 1, False, out=torch.from_dlpack(outputs[0]))


# fp4 e2m1 codes 0..15 by value (FORMATS.md): sign in bit 3.
_E2M1 = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0]


def _e2m1_table(device):
    table = _tables.get(device)
    if table is None:
        table = _tables[device] = torch.tensor(_E2M1, dtype=torch.float32, device=device)
    return table


def _dequantize(packed, scales):
    """Packed e2m1 bytes [..., k/2] and e4m3 scales [..., k/16] (bytes) to fp32 [..., k]."""
    table = _e2m1_table(packed.device)
    values = torch.stack((table[(packed & 15).long()], table[(packed >> 4).long()]), -1).flatten(-2)
    return values * scales.view(torch.float8_e4m3fn).float().repeat_interleave(16, -1)


def _gemv(inputs, outputs, params):
    """Dequantize, then an fp32 matmul: the whole of it is the call khost times."""
    a, v, sfa, sfv = (torch.from_dlpack(t.raw()) for t in inputs[:4])
    product = torch.matmul(_dequantize(a, sfa), _dequantize(v, sfv).unsqueeze(-1)).squeeze(-1)
    torch.from_dlpack(outputs[0]).copy_(product)


# fp8_block_gemm through torch._scaled_mm with block-wise scales (1x128 for a,
# 128x128 for b, as DeepSeek-V3 uses them). Which scale layout the installed
# PyTorch takes is learnt once per shape in supports(), checked against a
# dequantized fp32 product there, and used by run().
_layouts = {}


def _gemm_operands(inputs):
    a, b = (torch.from_dlpack(t.raw()).view(torch.float8_e4m3fn) for t in inputs[:2])
    sa, sb, sa_t, sb_t = (torch.from_dlpack(t) for t in inputs[2:6])
    scales_a = {"sa": sa, "sa_t.t()": sa_t.t()}
    scales_b = {"sb": sb, "sb_t": sb_t, "sb.t()": sb.t(), "sb_t.t()": sb_t.t()}
    return a, b, scales_a, scales_b


def _scaled(a, b, scale_a, scale_b):
    return torch._scaled_mm(a, b.t(), scale_a=scale_a, scale_b=scale_b, out_dtype=torch.bfloat16)


def _dequantized_product(a, b, sa, sb, params):
    k = params["k"]
    da = a.float() * sa.repeat_interleave(params["qm"], 0)[: a.shape[0]].repeat_interleave(params["qk"], 1)[:, :k]
    db = b.float() * sb.repeat_interleave(params["qn"], 0)[: b.shape[0]].repeat_interleave(params["qk"], 1)[:, :k]
    return da @ db.t()


def _gemm_key(params):
    return tuple(sorted(params.items()))


def _gemm_supports(inputs, outputs, params):
    reason = _usable(inputs, outputs, params)
    if reason:
        return reason
    if not hasattr(torch, "_scaled_mm"):
        return f"torch {torch.__version__} has no torch._scaled_mm"
    if (params["qm"], params["qn"], params["qk"]) != (1, 128, 128):
        return "torch._scaled_mm scales blocks of 1x128 (a) and 128x128 (b) only"
    key = _gemm_key(params)
    if key in _layouts:
        return None
    a, b, scales_a, scales_b = _gemm_operands(inputs)
    want = _dequantized_product(a, b, scales_a["sa"], scales_b["sb"], params)
    last = "no scale layout tried"
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


def _gemm(inputs, outputs, params):
    name_a, name_b = _layouts[_gemm_key(params)]
    a, b, scales_a, scales_b = _gemm_operands(inputs)
    torch._scaled_mm(a, b.t(), scale_a=scales_a[name_a], scale_b=scales_b[name_b], out_dtype=torch.bfloat16,
                     out=torch.from_dlpack(outputs[0]))


def _describe_gemm(inputs, outputs, params):
    name_a, name_b = _layouts.get(_gemm_key(params), ("?", "?"))
    return f"torch._scaled_mm({name_a}, {name_b})"


def _named(text):
    return lambda inputs, outputs, params: text


def _kernel(op, body, describe, supports=_usable):
    return {"op": op, "device": "cuda", "run": _on_stream(body), "supports": supports, "describe": describe}


KHOST_BACKEND = {
    "name": "torch",
    "version": _installed_version(),
    "description": "PyTorch eager",
    "kernels": [
        _kernel("copy_transpose", _transpose, _named("out.copy_(x.t())")),
        _kernel("reduce_sum", _row_sum, _named("torch.sum(x, 1, out=out)")),
        _kernel("softmax_online", _softmax, _named("aten._softmax.out(x, 1)")),
        _kernel("nvfp4_gemv", _gemv, _named("dequantize + fp32 matmul")),
        _kernel("fp8_block_gemm", _gemm, _describe_gemm, _gemm_supports),
    ],
}

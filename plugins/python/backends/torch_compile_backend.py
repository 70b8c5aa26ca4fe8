"""torch.compile of the torch backend's ops, backend `torch_compile`: the same
expressions as PyTorch eager, compiled by TorchInductor (default mode), in the
same table as eager, so that both of what a PyTorch user would run are there.

Compiling takes seconds and must never be timed. Each kernel is compiled in
supports(), which khost calls in the worker before any timing: the compiled
function is called there once on khost's inputs and a scratch output, which
compiles it for this case's shapes (dynamic=False; a worker serves one case)
and runs Inductor's tuning of its kernels. run() calls it under
torch.compiler.set_stance("fail_on_recompile") (torch 2.6 and later), so that a
call that would compile again raises: an ERROR row, never a compile inside a
timed call.

The rows run where KHOST_TORCH_COMPILE=1; elsewhere each declines (SKIP),
saying so. fp8_block_gemm has no kernel here: the torch row's is one
torch._scaled_mm call, with nothing around it for a compiler to fuse."""
import importlib.util
import os


def _load_eager():
    """torch_backend.py beside this file, under a name of its own: the bodies
    compiled here are its, and so are torch's import on first use and the
    stream handling."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "torch_backend.py")
    spec = importlib.util.spec_from_file_location("khost_torch_compile_eager", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


eager = _load_eager()
_compiled = {}  # body -> its compiled function, once supports() made it
# A compile takes seconds in each case's worker; over a suite of dozens of cases
# that is minutes, which a run that did not ask for these rows should not pay.
_OPT_IN = "torch.compile takes seconds per case: set KHOST_TORCH_COMPILE=1 to run these rows"


def _row_sum(x, out):
    # The form of the other compiled bodies, the result copied into khost's output,
    # rather than eager's out= argument.
    out.copy_(x.sum(1))


def _softmax(x, out):
    out.copy_(x.softmax(1))


def _compile(body):
    torch = eager.torch
    # Compiles in the worker's own process: Inductor's pool of compile processes
    # would be started again in each case's worker, for a handful of kernels.
    torch._inductor.config.compile_threads = 1
    return torch.compile(body, fullgraph=True, dynamic=False)


def _compiling(body):
    """supports(): compiles body and runs it once, outside any timing."""

    def supports(inputs, outputs, params):
        if os.environ.get("KHOST_TORCH_COMPILE") != "1":
            return _OPT_IN
        reason = eager.usable(inputs, outputs, params)
        if reason:
            return reason
        torch = eager.torch
        if not hasattr(torch, "compile"):
            return f"torch {torch.__version__} has no torch.compile"
        if body not in _compiled:
            _compiled[body] = _compile(body)
        scratch = [torch.empty_like(t) for t in eager.tensors(outputs)]
        torch.cuda.synchronize()  # khost's stream wrote the inputs; they are read on torch's
        _compiled[body](*eager.tensors(inputs), *scratch)
        torch.cuda.synchronize()
        return None

    return supports


def _compiled_call(body):
    """The compiled body, refusing to compile again where torch can say so: the
    stance holds during the call only, so that the next case's supports() (in
    the same process under --no-isolate) still compiles its shapes."""

    def call(*tensors):
        set_stance = getattr(getattr(eager.torch, "compiler", None), "set_stance", None)
        if set_stance is None:
            return _compiled[body](*tensors)
        with set_stance("fail_on_recompile"):
            return _compiled[body](*tensors)

    return call


def _kernel(op, body, text):
    return {"op": op, "device": "cuda", "run": eager.on_stream(_compiled_call(body)), "supports": _compiling(body),
            "describe": eager.named(f"torch.compile({text})")}


KHOST_BACKEND = {
    "name": "torch_compile",
    "version": eager.KHOST_BACKEND["version"],
    "description": "PyTorch, torch.compile (TorchInductor, default mode) of the torch backend's expressions",
    "kernels": [
        _kernel("copy_transpose", eager.transpose, "out.copy_(x.t())"),
        _kernel("reduce_sum", _row_sum, "out.copy_(x.sum(1))"),
        _kernel("softmax_online", _softmax, "out.copy_(x.softmax(1))"),
        _kernel("nvfp4_gemv", eager.gemv, "dequantize + fp32 matmul"),
    ],
}

"""What an op's kernels/<op>_variants.py writes its VARIANTS list with: the entries
that plugins/triton_aot/manifest.py collects (its docstring describes the fields)."""

FLOAT_TYPES = ("fp16", "bf16", "fp32")


def variant(name, op, source, function, signature, constexprs, num_warps, dtype, aligned, cluster=1,
            num_stages=1):
    """One manifest entry. num_stages stays 1 for the memory-bound ops: Triton's
    shared-memory pipelining of a loop's loads drops their L2 eviction hints, which
    measured worth more; a GEMM's loop, whose loads feed the tensor cores, is pipelined."""
    return {"name": name, "op": op, "source": source, "function": function, "signature": signature,
            "constexprs": constexprs, "num_warps": num_warps, "num_stages": num_stages, "dtype": dtype,
            "aligned": aligned, "cluster": cluster}


def rowwise_signature(elem, aligned, m_aligned=False):
    """The arguments (x, y, m, n) of a float row op's kernel, with the divisibility
    promises of an aligned variant on the pointers and n (and m when asked)."""
    hint = ":16" if aligned else ""
    m_hint = hint if m_aligned else ""
    return {"x": f"*{elem}{hint}", "y": f"*{elem}{hint}", "m": f"i32{m_hint}", "n": f"i32{hint}"}

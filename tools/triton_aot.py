#!/usr/bin/env python3
"""Ahead-of-time compiler for the triton_aot plugin (docs/TRITON_AOT.md).

Compiles every variant of a manifest (plugins/triton_aot/manifest.py) into an sm_90a
cubin with triton.compile and writes one C source that embeds the cubins and a table of
khost__triton_variant entries (plugins/triton_aot/variant.h). It needs the triton
package but no GPU and no driver: the target is named, never queried. The stock
`python -m triton.tools.compile` cannot be used here: it asks the driver for the target
and calls exit() from its generated C.

Usage: triton_aot.py --manifest M --kernels DIR --output OUT.c [--list OUT.txt]
                     [--cache-dir DIR] [--jobs N]
"""
import argparse
import concurrent.futures
import contextlib
import importlib.util
import os
import re
import runpy
import struct
import sys
import time

TARGET_ARCH = 90  # sm_90a: Triton appends the "a" for capability 9.0 itself
WARP_SIZE = 32

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# khost's one table of element types, and the ABI header that numbers their DLPack codes.
DTYPE_TABLE = os.path.join(ROOT, "core", "dtype.h")
ABI_HEADER = os.path.join(ROOT, "core", "include", "khost", "plugin.h")
# Manifest dtypes that serve any element of a size (a transpose or a KV-cache copy moves
# bits): each is recorded as the unsigned integer type of that size.
SIZE_CLASSES = {"b8": "u8", "b16": "u16", "b32": "u32"}


def read_dtypes(table_path=DTYPE_TABLE, abi_path=ABI_HEADER):
    """name -> (DLPack code, bits), from the rows of KHOST__DTYPE_TABLE in core/dtype.h."""
    with open(abi_path, encoding="utf-8") as f:
        codes = {m[1]: int(m[2]) for m in re.finditer(r"\b(KHOST_DTYPE_\w+)\s*=\s*(\d+)", f.read())}
    with open(table_path, encoding="utf-8") as f:
        text = f.read()
    rows = re.findall(r"^\s*X\((.*)\)\s*\\?\s*$", text, re.MULTILINE)
    dtypes = {}
    for row in rows:
        fields = [x.strip() for x in row.split(",")]
        if len(fields) != 6 or fields[2] not in codes or not fields[3].isdigit():
            raise ManifestError(f"{table_path}: cannot read the dtype row X({row})")
        dtypes[fields[1].strip('"')] = (codes[fields[2]], int(fields[3]))
    if not dtypes:
        raise ManifestError(f"{table_path}: no X(...) rows of KHOST__DTYPE_TABLE found")
    return dtypes


# Kernel argument letters for the C table: p pointer, i int32, l int64.
ARG_LETTERS = {"i32": "i", "i64": "l"}
REQUIRED = ("name", "op", "source", "function", "signature", "constexprs", "num_warps", "num_stages",
            "dtype", "aligned")
EXPORTED_CONSTEXPRS = ("BLOCK_M", "BLOCK_N", "BLOCK_K")
CLUSTER = "CLUSTER"  # a kernel constexpr the compiler sets from the variant's cluster


class ManifestError(Exception):
    pass


def load_manifest(path, dtypes):
    try:
        variants = runpy.run_path(path).get("VARIANTS")
    except OSError as e:
        raise ManifestError(f"{path}: cannot read the manifest: {e.strerror or e}") from None
    if not isinstance(variants, list) or not variants:
        raise ManifestError(f"{path}: VARIANTS must be a non-empty list")
    seen = set()
    for i, v in enumerate(variants):
        if not isinstance(v, dict):
            raise ManifestError(f"{path}: VARIANTS[{i}] is a {type(v).__name__}, not a dict")
        missing = [k for k in REQUIRED if k not in v]
        if missing:
            raise ManifestError(f"{path}: variant {v.get('name', '?')} lacks {', '.join(missing)}")
        if not re.fullmatch(r"[a-z0-9_]+", v["name"]) or v["name"] in seen:
            raise ManifestError(f"{path}: variant name {v['name']!r} is not unique [a-z0-9_]+")
        if SIZE_CLASSES.get(v["dtype"], v["dtype"]) not in dtypes:
            raise ManifestError(f"{path}: variant {v['name']}: unknown dtype {v['dtype']!r}")
        seen.add(v["name"])
    return variants


def arg_letter(ty):
    if ty.startswith("*"):
        return "p"
    if ty not in ARG_LETTERS:
        # fp32 scalars are refused on purpose: a launcher that passes a C float where the
        # kernel reads a 32-bit parameter is easy to get wrong (the stock launcher does).
        raise ManifestError(f"argument type {ty!r} not supported (pointers, i32 and i64 only)")
    return ARG_LETTERS[ty]


def constexprs_of(fn, variant):
    """The manifest's constants, plus CLUSTER (the variant's cluster size) for a kernel
    that declares it, so that a kernel's idea of its cluster cannot differ from the launch's."""
    constexprs = dict(variant["constexprs"])
    if CLUSTER in constexprs:
        raise ManifestError(f"{variant['name']}: {CLUSTER} comes from the variant's cluster, not its constexprs")
    if CLUSTER in fn.arg_names:
        constexprs[CLUSTER] = variant.get("cluster", 1)
    return constexprs


def parse_signature(fn, variant, constexprs):
    """Returns (ASTSource signature, attrs, argument letters) for one variant."""
    signature, attrs, letters = {}, {}, ""
    declared = dict(variant["signature"])
    for index, arg in enumerate(fn.arg_names):
        if arg in constexprs:
            signature[arg] = "constexpr"
            continue
        if arg not in declared:
            raise ManifestError(f"{variant['name']}: argument {arg} is neither in signature nor constexprs")
        ty, _, hint = declared.pop(arg).partition(":")
        signature[arg] = ty
        letters += arg_letter(ty)
        if hint:
            attrs[(index, )] = [["tt.divisibility", int(hint)]]
    if declared:
        raise ManifestError(f"{variant['name']}: {fn.__name__} has no argument {', '.join(declared)}")
    return signature, attrs, letters


_modules = {}


def kernel_function(kernels_dir, source, function):
    path = os.path.join(kernels_dir, source)
    if kernels_dir not in sys.path:  # kernels import their shared helpers (cluster.py)
        sys.path.insert(0, kernels_dir)
    if path not in _modules:
        if not os.path.isfile(path):
            raise ManifestError(f"{source}: no such kernel file in {kernels_dir}")
        spec = importlib.util.spec_from_file_location(f"khost_triton_{len(_modules)}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _modules[path] = module
    if not hasattr(_modules[path], function):
        raise ManifestError(f"{source}: no function {function} in {path}")
    return getattr(_modules[path], function)


def compile_variant(kernels_dir, variant):
    """Runs in a worker process. Returns a dict of what the C table needs."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    start = time.monotonic()
    fn = kernel_function(kernels_dir, variant["source"], variant["function"])
    constexprs = constexprs_of(fn, variant)
    signature, attrs, letters = parse_signature(fn, variant, constexprs)
    source = ASTSource(fn, signature, constexprs, attrs)
    options = {"num_warps": variant["num_warps"], "num_stages": variant["num_stages"]}
    compiled = triton.compile(source, target=GPUTarget("cuda", TARGET_ARCH, WARP_SIZE), options=options)
    md = compiled.metadata
    for scratch in ("global_scratch_size", "profile_scratch_size"):
        if getattr(md, scratch, 0) > 0:
            raise ManifestError(f"{variant['name']}: needs {scratch} = {getattr(md, scratch)} bytes, "
                                "which an ahead-of-time launch cannot provide")
    if md.num_warps != variant["num_warps"] or md.num_ctas != 1:
        raise ManifestError(f"{variant['name']}: compiled with num_warps {md.num_warps}, "
                            f"num_ctas {md.num_ctas}")
    cubin = bytes(compiled.asm["cubin"])
    try:
        registers = register_count(cubin, md.name)
    except (ValueError, IndexError, struct.error) as e:
        raise ManifestError(f"{variant['name']}: cannot read its cubin's register count: {e}") from None
    if not registers:
        raise ManifestError(f"{variant['name']}: no register count for {md.name} in its cubin")
    return {"variant": variant, "kernel": md.name, "shared": md.shared, "args": letters, "cubin": cubin,
            "registers": registers, "seconds": time.monotonic() - start}


# The cubin's .nv.info attribute that holds a function's register count (after the
# symbol index), in an entry of format EIFMT_SVAL: format, attribute, 16-bit size, value.
# EIFMT_HVAL entries are 4 bytes: format, attribute, 16-bit value.
NV_INFO_HVAL = 3
NV_INFO_SVAL = 4
NV_INFO_REGCOUNT = 0x2F

ELF64_SYM_SIZE = 24  # bytes of a 64-bit ELF symbol table entry


def _elf_sections(image):
    """[(name, offset, size, link)] of the sections of a 64-bit little-endian ELF image,
    in header order (a section's link is an index into this list)."""
    if image[:5] != b"\x7fELF\x02" or image[5] != 1:
        raise ValueError("not a 64-bit little-endian ELF image")
    shoff, = struct.unpack_from("<Q", image, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", image, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", image, shoff + i * shentsize) for i in range(shnum)]
    names_at = headers[shstrndx][4]
    return [(_c_name(image, names_at + h[0]), h[4], h[5], h[6]) for h in headers]


def _c_name(image, start):
    return image[start:image.index(b"\0", start)].decode()


def register_count(cubin, kernel):
    """The registers a thread of `kernel` uses, as ptxas recorded them in the cubin's
    .nv.info section (what `cuobjdump -res-usage` prints as REG), so that a rule can
    derive how many programs fit an SM without a GPU. None when the cubin has no entry;
    ValueError (or struct.error) when it is not a well-formed ELF image."""
    sections = _elf_sections(cubin)
    by_name = {name: (at, size, link) for name, at, size, link in sections}
    if ".symtab" not in by_name:
        raise ValueError("no symbol table")
    symtab_at, symtab_size, strtab_index = by_name[".symtab"]
    strtab_at = sections[strtab_index][1]
    symbols = {}
    for offset in range(symtab_at, symtab_at + symtab_size, ELF64_SYM_SIZE):
        name_offset, = struct.unpack_from("<I", cubin, offset)
        symbols[(offset - symtab_at) // ELF64_SYM_SIZE] = _c_name(cubin, strtab_at + name_offset)
    at, size, _ = by_name.get(".nv.info", (0, 0, 0))
    position = at
    while position + 4 <= at + size:
        fmt, attribute = cubin[position], cubin[position + 1]
        length, = struct.unpack_from("<H", cubin, position + 2)
        if fmt == NV_INFO_HVAL:  # a 16-bit value in place of the size
            position += 4
            continue
        if fmt != NV_INFO_SVAL:
            break  # an entry format this reader does not know the length of
        if attribute == NV_INFO_REGCOUNT:
            symbol, count = struct.unpack_from("<II", cubin, position + 4)
            if symbols.get(symbol) == kernel:
                return count
        position += 4 + length
    return None


def c_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def c_bytes(data):
    lines = []
    for i in range(0, len(data), 20):
        lines.append("  " + ",".join(str(b) for b in data[i:i + 20]) + ",")
    return "\n".join(lines)


def emit_c(results, manifest_path, dtypes):
    out = [
        f"/* Generated by tools/triton_aot.py from {os.path.basename(manifest_path)}; do not edit.",
        " * sm_90a cubins of the triton_aot plugin and their launch table (variant.h). */",
        '#include "variant.h"',
        "",
    ]
    for i, r in enumerate(results):
        out += [f"static const unsigned char cubin_{i}[{len(r['cubin'])}] = {{", c_bytes(r["cubin"]), "};"]
    out += ["", "const khost__triton_variant khost__triton_variants[] = {"]
    for i, r in enumerate(results):
        v = r["variant"]
        code, bits = dtypes[SIZE_CLASSES.get(v["dtype"], v["dtype"])]
        blocks = ", ".join(str(v["constexprs"].get(k, 0)) for k in EXPORTED_CONSTEXPRS)
        out.append(f"  {{{c_string(v['name'])}, {c_string(v['op'])}, {c_string(v['function'])}, "
                   f"{c_string(r['kernel'])}, {c_string(r['args'])}, {code}, {bits}, "
                   f"{int(bool(v['aligned']))}, "
                   f"{blocks}, {v['num_warps']}, {v['num_stages']}, {v.get('cluster', 1)}, {r['shared']}, "
                   f"cubin_{i}, sizeof cubin_{i}, {r['registers']}}},")
    out += ["};", f"const int khost__triton_nvariants = {len(results)};", ""]
    return "\n".join(out)


def emit_list(results):
    lines = ["# name op function kernel args warps stages shared_bytes cubin_bytes compile_s registers"]
    for r in results:
        v = r["variant"]
        lines.append(f"{v['name']} {v['op']} {v['function']} {r['kernel']} {r['args']} {v['num_warps']} "
                     f"{v['num_stages']} {r['shared']} {len(r['cubin'])} {r['seconds']:.2f} {r['registers']}")
    return "\n".join(lines) + "\n"


def write_atomically(path, text):
    tmp = f"{path}.tmp{os.getpid()}"
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        # A full disk or an interrupt must not leave a partial file beside the output.
        with contextlib.suppress(FileNotFoundError):
            os.remove(tmp)
        raise


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--manifest", required=True)
    parser.add_argument("--kernels", required=True, help="folder of the Triton sources")
    parser.add_argument("--output", required=True, help="C file to write")
    parser.add_argument("--list", help="also write a one-line-per-variant summary here")
    parser.add_argument("--cache-dir", help="Triton's compile cache (default: Triton's own)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args(argv)
    if args.cache_dir:
        # Set before triton is imported anywhere, workers included.
        os.environ["TRITON_CACHE_DIR"] = os.path.abspath(args.cache_dir)
    start = time.monotonic()
    try:
        dtypes = read_dtypes()
        variants = load_manifest(args.manifest, dtypes)
        kernels_dir = os.path.abspath(args.kernels)
        with concurrent.futures.ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            results = list(pool.map(compile_variant, [kernels_dir] * len(variants), variants))
    except ManifestError as e:
        print(f"triton_aot: {e}", file=sys.stderr)
        return 1
    write_atomically(args.output, emit_c(results, args.manifest, dtypes))
    if args.list:
        write_atomically(args.list, emit_list(results))
    slowest = max(results, key=lambda r: r["seconds"])
    print(f"triton_aot: {len(results)} variants in {time.monotonic() - start:.1f} s "
          f"({args.jobs} jobs; slowest {slowest['variant']['name']} {slowest['seconds']:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

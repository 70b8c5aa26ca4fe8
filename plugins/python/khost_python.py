"""khost's side of the python plugin: reads a backend module's declaration and
formats a Python error for a khost row. The plugin (plugin.c) loads this file
from beside python.so; backend modules never import it.

A backend module declares, at module level:

    KHOST_BACKEND = {
        "name": "my_numpy",                 # the backend's name: [a-z0-9_], 1 to 63 characters
        "version": "1.0",                   # optional, free text
        "description": "one line",          # optional
        "kernels": [                        # one per (op, device)
            {"op": "copy_transpose", "device": "cpu", "run": transpose,
             "supports": None, "describe": None},   # the last two optional
        ],
    }

run(inputs, outputs, params, stream), supports(inputs, outputs, params) and
describe(inputs, outputs, params) are what docs/PYTHON.md says they are.
"""
import importlib
import importlib.util
import os
import re
import traceback

DEVICES = {"cpu": 1, "cuda": 2}
_NAME = re.compile(r"[a-z0-9_]{1,63}\Z")
_KERNEL_KEYS = {"op", "device", "run", "supports", "describe"}


def _module(source):
    """A file path (ends in .py or holds a slash) is loaded from that file under a
    name of its own, so that torch_backend.py can never shadow a real package;
    anything else is imported by its module name."""
    if not (source.endswith(".py") or os.sep in source):
        return importlib.import_module(source)
    stem = os.path.splitext(os.path.basename(source))[0]
    spec = importlib.util.spec_from_file_location("khost_backend_" + stem, source)
    if spec is None:
        raise ImportError(f"{source} is not a Python file")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _text(declaration, key, source):
    value = declaration.get(key)
    if value is not None and not isinstance(value, str):
        raise TypeError(f"{source}: KHOST_BACKEND['{key}'] is a {type(value).__name__}, not a str")
    return value


def _kernel(entry, index, source):
    where = f"{source}: kernel {index}"
    if not isinstance(entry, dict):
        raise TypeError(f"{where} is a {type(entry).__name__}, not a dict")
    unknown = set(entry) - _KERNEL_KEYS
    if unknown:
        raise TypeError(f"{where} has unknown keys {sorted(unknown)} (known: {sorted(_KERNEL_KEYS)})")
    op, device = entry.get("op"), entry.get("device")
    if not isinstance(op, str) or not op:
        raise TypeError(f"{where} has no op name")
    if device not in DEVICES:
        raise ValueError(f"{where} ({op}) has device {device!r}: 'cpu' or 'cuda'")
    for key in ("run", "supports", "describe"):
        function = entry.get(key)
        if (key == "run" or function is not None) and not callable(function):
            raise TypeError(f"{where} ({op}): '{key}' is not callable")
    return (op, DEVICES[device], entry["run"], entry.get("supports"), entry.get("describe"))


def load(source):
    """(name, version, description, kernels) of the module at source, kernels as
    (op, device code, run, supports, describe). Raises what the import raised, or
    TypeError/ValueError naming what is wrong with the declaration."""
    declaration = getattr(_module(source), "KHOST_BACKEND", None)
    if not isinstance(declaration, dict):
        raise TypeError(f"{source} declares no KHOST_BACKEND dict (docs/PYTHON.md)")
    name = declaration.get("name")
    if not isinstance(name, str) or not _NAME.match(name):
        raise ValueError(f"{source}: KHOST_BACKEND['name'] {name!r} is not 1 to 63 characters of [a-z0-9_]")
    kernels = declaration.get("kernels")
    if not isinstance(kernels, (list, tuple)) or not kernels:
        raise TypeError(f"{source}: KHOST_BACKEND['kernels'] is not a non-empty list")
    return (name, _text(declaration, "version", source), _text(declaration, "description", source),
            [_kernel(entry, i, source) for i, entry in enumerate(kernels)])


def error_text(kind, value, tb, size):
    """The exception and the last lines of its traceback, the innermost last,
    cut from the front to fit size bytes: the end says what went wrong."""
    lines = "".join(traceback.format_exception(kind, value, tb)).rstrip("\n").split("\n")
    text = "\n".join(line for line in lines if line.strip())
    data = text.encode("utf-8", "replace")
    if len(data) >= size:
        data = b"..." + data[len(data) - size + 4:]
    return data.decode("utf-8", "ignore")


def outputs_of(result, count):
    """What run() returned, as one object with __dlpack__ per output."""
    items = tuple(result) if isinstance(result, (tuple, list)) else (result,)
    if len(items) != count:
        raise TypeError(f"run() returned {len(items)} outputs; the op has {count}")
    for i, item in enumerate(items):
        if not hasattr(item, "__dlpack__"):
            raise TypeError(f"run() returned a {type(item).__name__} for output {i}, which has no __dlpack__")
    return items


def empty_run(inputs, outputs, params, stream):
    """The empty Python kernel: its call is the plugin's per-call overhead."""

"""Reading khost's JSON reports, for tools/perf-table.py (khost compare and khost report read them in C)."""
import json


class ReportError(Exception):
    """A report that cannot be read or is not one of khost's; the message names the file."""


def read_report(path, looks_right, needs):
    """The parsed report at path. looks_right(doc) says whether it has the shape the caller
    needs; needs describes that shape for the error message."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as e:
        raise ReportError(f"{path}: {e.strerror or e}") from None
    except ValueError as e:
        raise ReportError(f"{path}: not JSON: {e}") from None
    if not looks_right(doc):
        raise ReportError(f"{path}: not a khost report (it needs {needs})")
    return doc

#!/usr/bin/env python3
"""Measures every compiled variant of one op through khost, on a GPU machine: one khost
run per variant with KHOST_TRITON_VARIANT forcing it (cold L2, median, each row checked
like any other), then one run with the plugin's own selection rule. Prints a table of
% of the measured copy bandwidth per variant and case (docs/TRITON_AOT.md,
"Variants and the selection rule") and writes every row to FILE (tune_OP.json).

Usage: tune.py --khost KHOST --variants triton_variants.txt --suite SUITE --op OP
               [--case GLOBS] [--only SUBSTRINGS] [--compare BACKENDS] [--max-time S] [--warmup S]
               [--no-rule] [--json FILE]
A variant that cannot run a case is declined by the plugin (SKIP): one command can cover
the cases of several dtypes. --only keeps the variants whose names contain one of the
comma-separated substrings; --compare adds other plugins to the rule's run.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

RULE = "(rule)"


def variants_of(listing, op, only):
    names = []
    with open(listing, encoding="utf-8") as f:
        for line in f:
            fields = line.split()
            if line.startswith("#") or len(fields) < 2 or fields[1] != op:
                continue
            if not only or any(s in fields[0] for s in only):
                names.append(fields[0])
    return names


def run_khost(args, variant, json_path):
    env = dict(os.environ)
    env.pop("KHOST_TRITON_VARIANT", None)
    if variant != RULE:
        env["KHOST_TRITON_VARIANT"] = variant
    backends = "triton_aot" if variant != RULE or not args.compare else "triton_aot," + args.compare
    command = [args.khost, "--suite", args.suite, "--op", args.op, "--backends", backends, "--max-time",
               str(args.max_time), "--warmup", str(args.warmup), "--json", json_path]
    if args.case:
        command += ["--case", args.case]
    done = subprocess.run(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    # Exit 1 is a row that failed, which the table shows; anything else is no result.
    if not os.path.exists(json_path) or done.returncode > 1:
        print(f"{variant}: khost exited {done.returncode}:\n{done.stdout[-2000:]}", file=sys.stderr)
        return None
    with open(json_path, encoding="utf-8") as f:
        rows = [r for r in json.load(f)["rows"] if r["backend"] != "reference"]
    for r in rows:
        r["variant"] = variant if r["backend"] == "triton_aot" else r["backend"]
    return rows


def cell(row):
    if row["status"] == "PASS" and row.get("peak_fraction"):
        return f"{100 * row['peak_fraction']:.1f}"
    return row["status"]


def table(rows, variants):
    cases = list(dict.fromkeys(r["case"] for r in rows))
    by_key = {(r["variant"], r["case"]): r for r in rows}
    width = max(len(v) for v in variants)
    lines = [" " * width + "  " + "  ".join(f"[{i}]" .rjust(6) for i in range(len(cases)))]
    for v in variants:
        cells = [cell(by_key[(v, c)]) if (v, c) in by_key else "-" for c in cases]
        if any(c not in ("SKIP", "-") for c in cells):
            lines.append(v.ljust(width) + "  " + "  ".join(c.rjust(6) for c in cells))
    lines += [f"[{i}] {c}" for i, c in enumerate(cases)]
    return "\n".join(lines)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--khost", required=True)
    parser.add_argument("--variants", required=True, help="triton_variants.txt of the build")
    parser.add_argument("--suite", required=True)
    parser.add_argument("--op", required=True)
    parser.add_argument("--case", default="")
    parser.add_argument("--only", default="", help="comma-separated substrings of variant names")
    parser.add_argument("--compare", default="", help="other plugins to time beside the rule's choice")
    parser.add_argument("--max-time", type=float, default=0.1)
    parser.add_argument("--warmup", type=float, default=0.025)
    parser.add_argument("--no-rule", action="store_true", help="skip the run with the plugin's own rule")
    parser.add_argument("--json", help="where to write the rows (tune_OP.json)")
    args = parser.parse_args(argv)
    variants = variants_of(args.variants, args.op, [s for s in args.only.split(",") if s])
    variants += [] if args.no_rule else [RULE]
    rows, broken = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for i, v in enumerate(variants):
            got = run_khost(args, v, os.path.join(tmp, f"{i}.json"))
            if got is None:
                broken.append(v)
            else:
                rows += got
    with open(args.json or f"tune_{args.op}.json", "w", encoding="utf-8") as f:
        json.dump(rows, f, indent=1)
    print(f"== {args.op}: % of copy bandwidth (median, cold L2)")
    print(table(rows, variants + [c for c in args.compare.split(",") if c]))
    if broken:
        print(f"no result for: {', '.join(broken)}", file=sys.stderr)
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
"""Mutation test: every mutant of an equivalent train-step pair's production
graph must come out not_equivalent or unknown, never equivalent.

Mutants (one edit each, on the @production graph only): change a float
constant, swap the operands of a non-commutative op (sub, div), change a
reduction dim, replace a reduction by its sibling (sum <-> mean), replace a
function by a sibling (sigmoid <-> tanh, exp <-> expm1, rsqrt <-> sqrt), drop a
term (a + b -> a). Mutants that no longer type-check (verdict error) are
counted as invalid. Prints the share refuted (not_equivalent).
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/
import json_stream  # noqa: E402

SIBLINGS = [("aten::sigmoid", "aten::tanh"), ("aten::exp(", "aten::expm1("), ("aten::rsqrt", "aten::sqrt"),
            ("aten::sum.dim_IntList", "aten::mean.dim")]


def mutants(prod_lines):
    ranks = {}
    for line in prod_lines:
        for name, shape in re.findall(r"(%\w+): \w+\[([^\]]*)\]", line):
            ranks[name] = len([d for d in shape.split(",") if d.strip()])
    for i, line in enumerate(prod_lines):
        if "=" not in line or line.strip().startswith(("graph", "return", "#")):
            continue
        for m in re.finditer(r"(other|eps|exponent|min|max)=(-?[0-9.e+-]+)", line):
            value = float(m.group(2))
            # -0.5 is the fixed point of v * 1.5 + 0.25: that "mutant" would be the original.
            changed = value * 1.5 + 0.25 if value != -0.5 else 0.5
            new = repr(changed) if value != 0 else "0.5"
            yield i, line[:m.start(2)] + new + line[m.end(2):], f"constant {m.group(1)} {m.group(2)} -> {new}"
        m = re.search(r"aten::(sub|div)\.Tensor\((%\w+), (%\w+)\)", line)
        if m:
            yield i, line.replace(m.group(0), f"aten::{m.group(1)}.Tensor({m.group(3)}, {m.group(2)})"), f"swap {m.group(1)} operands"
        m = re.search(r"dim=\[(-?\d+)\]", line)
        operand = re.search(r"\((%\w+)", line)
        if m and operand and operand.group(1) in ranks:
            # Only dims that differ after wrapping (dim -1 is dim 1 of a matrix).
            rank = ranks[operand.group(1)]
            d = int(m.group(1)) % rank
            for nd in range(rank):
                if nd != d:
                    yield i, line.replace(m.group(0), f"dim=[{nd}]"), f"reduction dim {d} -> {nd}"
        for a, b in SIBLINGS:
            for x, y in ((a, b), (b, a)):
                if x in line:
                    yield i, line.replace(x, y), f"{x.rstrip('(')} -> {y.rstrip('(')}"
        m = re.search(r"^(\s*)(%\w+): (\S+) = aten::(add|sub)\.Tensor\((%\w+), (%\w+)\)", line)
        if m:
            yield i, f"{m.group(1)}{m.group(2)}: {m.group(3)} = aten::clone({m.group(5)})", "drop a term"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--torchtv", required=True)
    ap.add_argument("--max-per-file", type=int, default=40)
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    counts = {"not_equivalent": 0, "unknown": 0, "error": 0, "equivalent": 0}
    failures = []
    with tempfile.TemporaryDirectory(prefix="torchtv-mutants-") as tmp:
        made = []  # (original file, what was mutated, mutant file)
        for path in args.files:
            text = open(path).read()
            start = text.index("graph @production")
            head, prod = text[:start], text[start:].splitlines()
            # The mutant's expectation lines are irrelevant: strip EXPECT comments.
            head = "\n".join(l for l in head.splitlines() if not l.startswith("# EXPECT"))
            for n, (i, new, what) in enumerate(mutants(prod)):
                if n >= args.max_per_file:
                    break
                lines = list(prod)
                lines[i] = new
                made.append((path, what, os.path.join(tmp, "mutant%d.tvir" % len(made))))
                with open(made[-1][2], "w") as f:
                    f.write(head + "\n" + "\n".join(lines) + "\n")
        # One process for all of them (Note [Checking each file]); a hang is a failure, never a pass.
        try:
            proc = subprocess.run([args.torchtv, "check", "--each", *[m for _, _, m in made], "--format", "json"],
                                  capture_output=True, text=True, timeout=300 + 30 * len(made))
            out = proc.stdout
        except subprocess.TimeoutExpired as e:
            out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        verdicts = [doc["verdict"] for doc in json_stream.documents(out)]
    for k, (path, what, _) in enumerate(made):
        if k >= len(verdicts):
            failures.append(f"{path}: {what}: no verdict (the run timed out or ended early)")
            continue
        counts[verdicts[k]] += 1
        if verdicts[k] == "equivalent":
            failures.append(f"{path}: {what}: proven equivalent")
    valid = counts["not_equivalent"] + counts["unknown"] + counts["equivalent"]
    share = counts["not_equivalent"] / valid if valid else 0
    print(f"mutants: {valid} valid ({counts['error']} invalid), refuted {counts['not_equivalent']} "
          f"({share:.0%}), unknown {counts['unknown']}, equivalent {counts['equivalent']}")
    for f in failures:
        print("FAIL", f)
    return 1 if failures or valid == 0 else 0


if __name__ == "__main__":
    sys.exit(main())

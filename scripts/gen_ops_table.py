#!/usr/bin/env python3
"""Generates docs/ops.md: which ops torchtv covers, read from the code's own registries.

  scripts/gen_ops_table.py [--torchtv BIN]            # rewrite docs/ops.md
  scripts/gen_ops_table.py [--torchtv BIN] --check    # exit 1 if docs/ops.md is stale (run by ctest)

Columns, per op:
  read       the registry knows its schema (hand-written, or generated from LibTorch's own
             schema list into ir/aten_schemas.inc): readers take it from any artifact that
             carries result types (capture JSON, .pt2, .tvir); without semantics it is an
             uninterpreted function
  shape      the op is in ir/op_registry.cpp (schema + shape rule)
  normalize  a pass in src/normalize/ names it (rewrites it or produces it as canonical form),
             acts on it through its registry properties (element moves, dropout's identity
             calls, scalar twins: `torchtv show --op-coverage`), or it is the root of a
             bitwise rule in rules/
  fusion     fusions/*.tvir has a definition of it
  smt        per-element semantics in src/sem/ (read by the Z3 encoder and the evaluator)
  replay     LibTorch's dispatcher can call it with the IR's arguments (src/torch/)
The smt and replay columns come from the built binary (`torchtv show --op-coverage`,
default BIN: build/torchtv), which asks the semantics table and the dispatcher themselves.
The rows are the Core ATen opset (third_party/core_aten/), then every other op the registry
knows (composites that normalization removes, and torchtv's own prim ops).
"""
import argparse
import glob
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def read(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return f.read()


def registry_ops():
    return set(re.findall(r'\{R"\(([\w:.]+)\(', read("ir/op_registry.cpp")))


def normalized_ops():
    ops = set()
    for path in sorted(glob.glob(os.path.join(ROOT, "src/normalize/*.cpp"))):
        ops |= set(re.findall(r'"((?:aten|prim)::[\w.]+)"', read(path)))
    for path in sorted(glob.glob(os.path.join(ROOT, "rules/*.rules"))):
        text = read(path)
        for m in re.finditer(r"^rule\s+\S+\s*:\s*(\w+)[^\n]*\n\s*((?:aten|prim)::[\w.]+)\(", text, re.M):
            if m.group(1) == "bitwise":  # only bitwise rules run in the normalizer
                ops.add(m.group(2))
    return ops


def fusion_definitions():
    """{op: [set of ops one definition's body calls, ...]} for the bundled definitions."""
    defs = {}
    for path in sorted(glob.glob(os.path.join(ROOT, "fusions/*.tvir"))):
        for m in re.finditer(r"^graph @((?:aten|prims?)::[\w.]+)\(.*?\n(.*?)^}", read(path), re.M | re.S):
            defs.setdefault(m.group(1), []).append(set(re.findall(r"= ((?:aten|prims?)::[\w.]+)\(", m.group(2))))
    return defs


def fusion_ops():
    return set(fusion_definitions())


def defined_with_semantics(smt):
    """Ops without semantics of their own that a bundled definition expands into ops that have them,
    directly or through other such definitions (mish's calls softplus, frac's the prims)."""
    defs, known = fusion_definitions(), set()
    while True:
        more = {op for op, bodies in defs.items()
                if op not in smt and op not in known and any(body and body <= smt | known for body in bodies)}
        if not more:
            return known
        known |= more


def generated_ops():
    """Ops defined by fusions/decompositions.tvir (tools/decompositions/gen_definitions.py)."""
    return set(re.findall(r"^graph @([\w:.]+)\(", read("fusions/decompositions.tvir"), re.M))


def lines_of(path):
    return [l for l in read(path).splitlines() if l.strip() and not l.startswith("#")]


def decomposition_rows(smt, by_def):
    """docs/ops.md's rows for torch 1.13's decomposition table: op, where its semantics come from."""
    generated = generated_ops()
    why_not = dict(l.split("\t", 1) for l in lines_of("tools/decompositions/not_generated.txt"))
    rows, counts = [], {"hand": 0, "decomposition": 0, "none": 0}
    for op in lines_of("tools/decompositions/decomposition_table_1_13.txt"):
        if op in smt or (op in by_def and op not in generated):
            source = "hand"
        elif op in generated and op in by_def:
            source = "decomposition"
        else:
            source = "none"
        counts[source] += 1
        reason = why_not.get(op, "not attempted: tools/decompositions/gen_definitions.py does not list it") \
            if source == "none" else ""
        rows.append(f"| `{op}` | {source} | {reason.replace('|', '/')} |")
    return rows, counts


def coverage(torchtv):
    out = subprocess.run([torchtv, "show", "--op-coverage"], capture_output=True, text=True, check=True).stdout
    known, smt, replay, norm, unspecified = set(), set(), set(), set(), {}
    for line in out.splitlines():
        op, s, r, n = line.split("\t")
        known.add(op)
        if n == "normalize":
            norm.add(op)
        if s in ("smt", "uninit", "random"):
            smt.add(op)
        if s in ("uninit", "random"):
            unspecified[op] = "uninitialized" if s == "uninit" else "random"
        if r == "replay":
            replay.add(op)
    return known, smt, replay, norm, unspecified


def render(torchtv):
    core = [l.strip() for l in read("third_party/core_aten/core_aten_ops.txt").splitlines() if l.strip()]
    reg, norm, fus = registry_ops(), normalized_ops(), fusion_ops()
    known, smt, replay, by_props, unspecified = coverage(torchtv)
    norm |= by_props
    by_def = defined_with_semantics(smt)
    refs_prims = [l.strip() for l in read("third_party/core_aten/refs_prims.txt").splitlines() if l.strip()]
    mark = lambda b: "yes" if b else ""

    def kinds(ops):
        """How many of `ops` have semantics only as unspecified values."""
        n = {k: sum(unspecified.get(op) == k for op in ops) for k in ("random", "uninitialized")}
        return f"{n['random']} of them random, {n['uninitialized']} uninitialized memory"

    def rows(ops):
        out = ["| op | read | shape | normalize | fusion | smt | replay |", "|---|---|---|---|---|---|---|"]
        for op in ops:
            sem = unspecified.get(op) or ("yes" if op in smt else "by definition" if op in by_def else "")
            out.append(f"| `{op}` | {mark(op in known)} | {mark(op in reg)} | {mark(op in norm)} | "
                       f"{mark(op in fus)} | {sem} | {mark(op in replay)} |")
        return out

    others = sorted(reg - set(core) - {op for op in reg if op.startswith("prims::")})
    decomp_rows, decomp = decomposition_rows(smt, by_def)
    prims = sorted(op for op in known | reg if op.startswith("prims::"))
    lines = [
        "# Op coverage",
        "",
        "Generated by `scripts/gen_ops_table.py` from the code's own registries; do not edit",
        "(ctest fails when this file is stale). Columns: `read` — the registry knows the op's schema",
        "(hand-written, or generated from LibTorch 1.13's own schema list by `scripts/gen_schemas.py`):",
        "capture JSON, `.pt2` and `.tvir` read it with the result types the file gives, and without",
        "semantics it is an uninterpreted function; `shape` — in the op registry with a shape",
        "rule; `normalize` — a normalization pass names it (rewrites it, or produces it as the",
        "canonical form) or a bitwise rule rewrites it; `fusion` — a",
        "bundled definition expands it; `smt` — per-element semantics in `src/sem/` (the prover and",
        "the evaluator; some attribute values may still be unsupported, e.g. `div` rounding modes);",
        "`replay` — LibTorch's dispatcher calls it with the IR's arguments (counterexample replay).",
        "`smt` says `by definition` for an op without semantics of its own that a bundled definition",
        "expands into ops that have them (the prims: `fusions/prims.tvir`); `uninitialized` for memory",
        "nobody wrote (`empty`, `empty_strided`, ...), whose semantics is exactly that its values are",
        "unspecified: never equal to anything, and a result that reads them is never evaluated (Note",
        "[Uninitialized memory] in `src/eval/concrete.cpp`); `random` for a random op (PyTorch's",
        "`nondeterministic_seeded` tag): each call is a fresh sample, equal to no other call (Note",
        "[Random calls]); nothing is proven about the values of either, and the counts below say how many",
        "of the ops with semantics are of these two kinds.",
        "",
        f"Core ATen opset ({len(core)} ops, vendored list: `third_party/core_aten/`): "
        f"{sum(op in known for op in core)} read, {sum(op in reg for op in core)} with a shape rule, {sum(op in norm for op in core)} normalized, "
        f"{sum(op in fus for op in core)} with a fusion definition, {sum(op in smt for op in core)} with "
        f"semantics ({kinds(core)}), {sum(op in replay for op in core)} replayable.",
        "",
        f"prims ({len(prims)} ops: LibTorch 1.13's, and the ones torch/_prims registers from Python that return a number): {sum(op in smt or op in by_def for op in prims)} with "
        f"semantics ({sum(op in smt for op in prims)} of their own, {sum(op in by_def for op in prims)} by definition), "
        f"{sum(op in reg for op in prims)} with a shape rule. Of the {len(refs_prims)} prims torch._refs calls "
        f"(`third_party/core_aten/refs_prims.txt`), {sum(op in smt or op in by_def for op in refs_prims)} "
        f"({100 * sum(op in smt or op in by_def for op in refs_prims) // len(refs_prims)}%) have semantics ({kinds(refs_prims)}); "
        f"the rest: {', '.join(p.split('::')[1] for p in refs_prims if p not in smt and p not in by_def)} "
        "(complex-only ones raise on every dtype torchtv has).",
        "",
        f"All known ops: {len(known)} ({len(known - reg)} of them generated only: schema, no shape rule).",
        "",
        "## Core ATen ops",
        "",
        *rows(core),
        "",
        "## prims ops",
        "",
        *rows(prims),
        "",
        "## torch 1.13's decomposition table",
        "",
        f"The {sum(decomp.values())} functional ops of torch 1.13's `torch._decomp.decomposition_table` (list: "
        "`tools/decompositions/decomposition_table_1_13.txt`), and where each one's semantics come from: "
        f"`hand` ({decomp['hand']}) — semantics of its own in `src/sem/`, or a hand-written definition in `fusions/`; "
        f"`decomposition` ({decomp['decomposition']}) — its torch decomposition, traced and audited against "
        "LibTorch's kernel by `tools/decompositions/gen_definitions.py` (`fusions/decompositions.tvir`, level real); "
        f"`none` ({decomp['none']}) — an uninterpreted op, with the reason (the generator's, for the ops it tried).",
        "",
        "| op | semantics | why none |",
        "|---|---|---|",
        *decomp_rows,
        "",
        "## Other ops with a shape rule",
        "",
        "Composite and backward ops (expanded through `fusions/` where a definition exists) and",
        "torchtv's own ops. The other ATen overloads LibTorch knows are read as declared ops (not listed).",
        "",
        *rows(others),
        "",
    ]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--torchtv", default=os.path.join(ROOT, "build", "torchtv"))
    args = ap.parse_args()
    text = render(args.torchtv)
    target = os.path.join(ROOT, "docs/ops.md")
    if args.check:
        current = open(target, encoding="utf-8").read() if os.path.exists(target) else ""
        if current != text:
            print("docs/ops.md is stale: run scripts/gen_ops_table.py")
            return 1
        print("docs/ops.md is up to date")
        return 0
    with open(target, "w", encoding="utf-8") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

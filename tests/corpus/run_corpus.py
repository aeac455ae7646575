#!/usr/bin/env python3
"""Runs torchtv on the corpus of real programs (issue 16, item 6): torch.export (2.11) archives
of eight models, inference and training, each as traced and after `run_decompositions()`, made
on the GPU machine by tools/corpus/export_corpus.py (models.json says how each was made), plus
the attention training graphs of issue 15 (attention_train/).

    tests/corpus/run_corpus.py --torchtv build/torchtv [--table OUT.md] [--ops tests/corpus/ops.txt] [--record]

Cases: every archive is read (`torchtv show FILE`); every model is decided against its own
decomposition (`torchtv check MODEL.pt2 MODEL_decomposed.pt2`, an inference model also with
`--require real`: torch's decomposed attention is level rounded); the attention graphs are decided
against their planted bugs (no `--fusions` needed: PyTorch's kernels are defined by default) and
against their decompositions.
Each outcome (verdict and the start of its reason, the file location stripped) is compared with
expected.json. Exit 0 when every outcome is as recorded; 1 otherwise, and that includes an
outcome better than recorded (update expected.json, so that progress is recorded: --record
rewrites it from this run, keeping the notes, for a person to review). A model found
`not_equivalent` to its own decomposition is always reported as SUSPICIOUS (a likely soundness
or semantics bug) and passes only where expected.json records it with a note; an attention bug
found `equivalent` always fails, as does any verdict an entry's `never` names (a pair PyTorch
itself decomposes wrongly). A timeout is always a failure; a pair whose archive torch.export
could not make is `missing`.

--ops writes every distinct op of the corpus (torchtv's spelling, `.default` dropped) with its
node count, the number of archives holding it, and whether today's registry knows it
(`torchtv show --op-coverage`).
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys
import time
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
ATTENTION = "attention_train"

# Worst to best: an outcome ranked above the recorded one is progress to record.
RANK = {"missing": 0, "crash": 0, "timeout": 0, "error": 1, "unknown": 2, "not_equivalent": 3, "equivalent": 3, "ok": 3}


def op_spelling(target):
    """torch.ops.aten.add.Tensor -> aten::add.Tensor; torch.ops.aten.relu.default -> aten::relu."""
    parts = target.split(".")
    if parts[:2] == ["torch", "ops"] and len(parts) >= 4:
        name = "%s::%s" % (parts[2], parts[3])
        return name if parts[4:] in ([], ["default"]) else name + "." + ".".join(parts[4:])
    return target


def program_ops(path):
    """The ops of an archive's program, read from its JSON: {op: node count}."""
    with zipfile.ZipFile(path) as z:
        name = next(n for n in z.namelist() if n.endswith("models/model.json"))
        program = json.loads(z.read(name))
    return collections.Counter(op_spelling(n["target"]) for n in program["graph_module"]["graph"]["nodes"])


def strip_location(reason):
    """`aten::x at FILE:LINE: op ...` -> `op ...`: the location names the exporting machine."""
    return re.sub(r"^[\w:.]+ at .+?:\d+: ", "", reason or "").strip()


def run(cmd, timeout):
    start = time.time()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, time.time() - start
    return proc, time.time() - start


def show(torchtv, path, timeout):
    proc, seconds = run([torchtv, "show", path], timeout)
    if proc is None:
        return {"verdict": "timeout", "reason": "no answer in %d s" % timeout}, seconds
    if proc.returncode == 0:
        return {"verdict": "ok", "reason": ""}, seconds
    if proc.returncode == 3:
        msg = proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else ""
        msg = re.sub(r"^torchtv: error: [^:]+: ", "", msg)
        return {"verdict": "error", "reason": strip_location(msg)}, seconds
    return {"verdict": "crash", "reason": "exit %d: %s" % (proc.returncode, proc.stderr[-300:])}, seconds


def check(torchtv, a, b, options, timeout):
    cmd = [torchtv, "check", a, b, "--format", "json", "--timeout", str(timeout)] + options
    proc, seconds = run(cmd, timeout * 2 + 60)
    if proc is None:
        return {"verdict": "timeout", "reason": "no answer in %d s" % (timeout * 2 + 60)}, seconds
    try:
        data = json.loads(proc.stdout)
    except json.JSONDecodeError:
        # SIGSEGV and friends: no JSON at all.
        return {"verdict": "crash", "reason": "exit %d, no JSON: %s" % (proc.returncode, proc.stderr[-300:])}, seconds
    reasons = [data.get("reason") or ""] + [o.get("reason") or "" for o in data.get("outputs", [])]
    if any("timeout" in r or "time limit" in r for r in reasons):
        return {"verdict": "timeout", "reason": data.get("reason") or ""}, seconds
    return {"verdict": data["verdict"], "reason": strip_location(data.get("reason")),
            "level": data.get("level")}, seconds


# torch's decomposed sdpa scales q and k each by sqrt(scale), whose square is not the scale the
# traced sdpa uses: an inference graph's attention is equal to its decomposition only up to the
# rounding of constants, level rounded (Note [Equivalence up to rounding]), which --require real
# rejects.
REQUIRE_REAL = ["--require", "real"]
# The attention pairs need fusions/inductor's definitions of the sdpa kernels, which a check
# expands by default (issue 35, item 6: Note [Kernel definitions by default] in
# src/normalize/normalize.h), so they run with no option, as a user runs them.
FUSIONS = []


def cases(models):
    """(name, kind, files, options, mode): shows, model-vs-decomposition checks (inference ones
    also with --require real), attention checks."""
    out = []
    pairs = sorted({(m["model"], m["mode"]) for m in models})
    for model, mode in pairs:
        base = "%s_%s" % (model, mode)
        out.append((base + "/show", "show", [base + ".pt2"], [], mode))
        out.append((base + "_decomposed/show", "show", [base + "_decomposed.pt2"], [], mode))
        out.append((base + "/vs_decomposed", "self", [base + ".pt2", base + "_decomposed.pt2"], [], mode))
        if mode == "inference":
            out.append((base + "/vs_decomposed/require_real", "self",
                        [base + ".pt2", base + "_decomposed.pt2"], REQUIRE_REAL, mode))
    att = sorted(f[:-4] for f in os.listdir(os.path.join(HERE, ATTENTION)) if f.endswith(".pt2"))
    # The bug pairs and self pairs below name every form; one torch.export could not make is
    # reported `missing` (attention_train/manifest.json and the export log say why).
    for stem in att:
        out.append((ATTENTION + "/" + stem + "/show", "show", [ATTENTION + "/" + stem + ".pt2"], [], "training"))
    for family in ("attn", "attn_explicit"):
        for form in ("", "_decomposed", "_inductor"):
            for bug in ("_bad_scale", "_bad_mask"):
                a, b = family + form, family + bug + form
                out.append(("%s/%s/vs_%s" % (ATTENTION, a, b.replace(family + "_", "", 1)), "bug",
                            [ATTENTION + "/" + a + ".pt2", ATTENTION + "/" + b + ".pt2"], FUSIONS, "training"))
        for form in ("_decomposed", "_inductor"):
            a, b = family, family + form
            out.append(("%s/%s/vs%s" % (ATTENTION, a, form), "self",
                        [ATTENTION + "/" + a + ".pt2", ATTENTION + "/" + b + ".pt2"], FUSIONS, "training"))
    return out


def judge(kind, got, want):
    """(ok, message): the outcome against the recorded one and against what must never happen."""
    if got["verdict"] == "timeout":
        return False, "timed out (a timeout is always a failure)"
    if want.get("never") and got["verdict"] == want["never"]:
        return False, "SOUNDNESS: %s must never come out here (%s)" % (got["verdict"], want.get("note", ""))
    if kind == "bug" and got["verdict"] == "equivalent":
        return False, "SOUNDNESS: a planted bug found equivalent"
    if kind == "self" and got["verdict"] == "not_equivalent":
        if not want.get("note"):
            return False, "SUSPICIOUS: not_equivalent to its own decomposition (likely a soundness or semantics " \
                          "bug); record it in expected.json with a note once understood"
        if want.get("verdict") == "not_equivalent":
            return True, "SUSPICIOUS, recorded: " + want["note"]
    if not want:
        return False, "no expectation recorded (run with --record)"
    if got["verdict"] != want.get("verdict"):
        if RANK.get(got["verdict"], -1) > RANK.get(want.get("verdict"), -1):
            return False, "better than expected (%s): update expected.json" % want.get("verdict")
        return False, "expected %s" % want.get("verdict")
    prefix = want.get("reason", "")
    if not got["reason"].startswith(prefix):
        return False, "reason changed: expected it to start with %r" % prefix
    return True, ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--torchtv", required=True)
    ap.add_argument("--timeout", type=int, default=120, help="torchtv's --timeout for each check")
    ap.add_argument("--table", help="also write a markdown table of the results here")
    ap.add_argument("--ops", help="write the corpus's op list here")
    ap.add_argument("--record", action="store_true")
    ap.add_argument("--only", help="a substring of the case names to run")
    ap.add_argument("--all", action="store_true",
                    help="also run the cases expected.json marks \"slow\" (skipped in ctest)")
    args = ap.parse_args()
    with open(os.path.join(HERE, "models.json")) as f:
        models = json.load(f)["models"]
    expected_path = os.path.join(HERE, "expected.json")
    expected = {}
    if os.path.exists(expected_path):
        with open(expected_path) as f:
            expected = json.load(f)
    ops_of = {}
    rows, failures = [], 0
    print("%-4s %-52s %-9s %11s %9s %-6s %-15s %7s" % ("", "case", "mode", "nodes", "ops", "reads", "verdict", "time"))
    for name, kind, files, options, mode in cases(models):
        if args.only and args.only not in name:
            continue
        if expected.get(name, {}).get("slow") and not args.all:
            print("skip %-52s %s" % (name, expected[name]["slow"]))
            continue
        paths = [os.path.join(HERE, f) for f in files]
        for p in paths:
            if p not in ops_of and os.path.exists(p):
                ops_of[p] = program_ops(p)
        nodes = "/".join(str(sum(ops_of[p].values())) if p in ops_of else "-" for p in paths)
        distinct = "/".join(str(len(ops_of[p])) if p in ops_of else "-" for p in paths)
        missing = [f for f, p in zip(files, paths) if not os.path.exists(p)]
        if missing:  # torch.export could not make it: the manifests' failures say why
            got, seconds, reads = {"verdict": "missing", "reason": "not in the corpus: " + ", ".join(missing)}, 0.0, "-"
        elif kind == "show":
            got, seconds = show(args.torchtv, paths[0], args.timeout)
            reads = "yes" if got["verdict"] == "ok" else "no"
        else:
            got, seconds = check(args.torchtv, paths[0], paths[1], options, args.timeout)
            reads = "-"
        want = expected.get(name, {})
        ok, why = judge(kind, got, want)
        failures += not ok
        verdict = got["verdict"] + ("/" + got["level"] if got.get("level") else "")
        print("%-4s %-52s %-9s %11s %9s %-6s %-15s %6.1fs" % (
            "ok" if ok else "FAIL", name, mode, nodes, distinct, reads, verdict, seconds), flush=True)
        if got["reason"] and (not ok or got["verdict"] not in ("ok", "equivalent")):
            print("       " + got["reason"][:160])
        if why:
            print("       " + why)
        rows.append((name, mode, nodes, distinct, reads, verdict, seconds))
        if args.record:
            expected[name] = dict(want, verdict=got["verdict"], reason=got["reason"][:100])
    if args.record:
        with open(expected_path, "w") as f:
            json.dump(expected, f, indent=1, sort_keys=True)
            f.write("\n")
            f.write("\n")
    table = model_table(rows)
    print("\n" + table)
    if args.table:
        with open(args.table, "w") as f:
            f.write(table)
    if args.ops:
        write_ops(args.torchtv, ops_of, args.ops)
    selfs = [r for r in rows if r[0].endswith("/vs_decomposed") and not r[0].startswith(ATTENTION)]
    decided = [r for r in selfs if r[5].split("/")[0] in ("equivalent", "not_equivalent")]
    reads = [r for r in rows if r[0].endswith("/show")]
    print("%d cases, %d not as expected; %d of %d archives read; %d of %d models decided against their "
          "decomposition" % (len(rows), failures, sum(r[4] == "yes" for r in reads), len(reads), len(decided), len(selfs)))
    return 1 if failures else 0


def model_table(rows):
    """One row per model and mode (markdown): nodes and distinct ops as traced / decomposed,
    whether each reads, the verdict against the decomposition and its time."""
    by = {r[0]: r for r in rows}
    out = ["| model | mode | nodes | distinct ops | reads | verdict vs decomposed | seconds |",
           "|---|---|---|---|---|---|---|"]
    for name, r in by.items():
        if not name.endswith("/vs_decomposed") or name.startswith(ATTENTION):
            continue
        base = name[:-len("/vs_decomposed")]
        reads = "/".join(by[k][4] if k in by else "?" for k in (base + "/show", base + "_decomposed/show"))
        model, mode = base.rsplit("_", 1)
        out.append("| %s | %s | %s | %s | %s | %s | %.1f |" % (model, mode, r[2], r[3], reads, r[5], r[6]))
    return "\n".join(out) + "\n"


def write_ops(torchtv, ops_of, out):
    proc = subprocess.run([torchtv, "show", "--op-coverage"], capture_output=True, text=True, check=True)
    known = {line.split("\t")[0] for line in proc.stdout.splitlines() if line.strip()}
    nodes, archives = collections.Counter(), collections.Counter()
    for ops in ops_of.values():
        nodes.update(ops)
        archives.update(ops.keys())
    unknown = [op for op in nodes if op not in known]
    with open(out, "w") as f:
        f.write("# Every op of tests/corpus (written by run_corpus.py --ops): op, nodes, archives holding it,\n")
        f.write("# and whether torchtv's registry knows it (`torchtv show --op-coverage`).\n")
        f.write("# %d distinct ops in %d archives; %d unknown to the registry.\n" % (len(nodes), len(ops_of), len(unknown)))
        for op in sorted(nodes):
            f.write("%-55s %6d %4d  %s\n" % (op, nodes[op], archives[op], "known" if op in known else "UNKNOWN"))


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""Differential test: torchtv never loses to random testing (issue 17, item 5).

For every planted-bug pair (tests/capture/pairs/*__*.py, and the bench generator's planted bugs at
small dims), runs both functions eagerly on the pair's example_inputs() and seeded random draws
(the draws of the eager cross-check, Note [Eager cross-check]) and compares every output with
torch.testing.assert_close at its default tolerances; then runs `torchtv verify PAIR --format
json` (for a pair file with a golden test, whose verdict the golden test enforces, its `# EXPECT:`
verdict; --run-goldens runs them too). Wherever assert_close detects the bug, torchtv must say not_equivalent (a pair whose
`# EXPECT: unknown` documents why torchtv stays unknown is listed as such), and every refutation
torchtv gives here must carry a minimized, localized counterexample (found on the graphs, shrunk,
with a first differing intermediate). Prints the table
(pair, assert_close detects?, torchtv verdict); --markdown FILE also writes it as markdown.

    /usr/bin/python3 tests/refute/differential.py --torchtv build/torchtv [--markdown FILE]
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
CAPTURE_SRC = os.path.join(REPO, "src", "capture")
GOLDEN_PAIRS = os.path.join(REPO, "tests", "capture", "pairs")  # each file is also a golden test
sys.path.insert(0, CAPTURE_SRC)
sys.path.insert(0, os.path.join(REPO, "bench"))

import torch  # noqa: E402

import gen_transformer  # noqa: E402
from torchtv_capture import eager  # noqa: E402
from torchtv_capture.pairfile import load_pair  # noqa: E402


def assert_close_detects(path):
    """'yes (INPUT, output K)' when assert_close fails on some draw, 'no', or 'n/a: why'."""
    try:
        pair = load_pair(path)
    except Exception as e:  # e.g. a pair that is meant not to capture
        return "n/a: %s" % str(e).splitlines()[0][:60]
    if pair.fake:
        return "n/a: shape-only"
    for label, draw in eager._draws(pair.example_inputs, "example_inputs()"):
        try:
            ref = eager._run_reference(pair, eager._fresh(draw))
            prod = eager._run_production(pair, eager._fresh(draw))
        except Exception:
            continue
        if len(ref) != len(prod):
            return "yes (%s: %d outputs vs %d)" % (label, len(ref), len(prod))
        for k, (r, p) in enumerate(zip(ref, prod)):
            try:
                torch.testing.assert_close(p.detach(), r.detach())
            except AssertionError:
                return "yes (%s, output %d)" % (label, k)
    return "no"


def expects_unknown(path):
    with open(path) as f:
        return any(line.strip() == "# EXPECT: unknown" for line in f)


def golden_verdict(path):
    """The verdict a pair file's `# EXPECT:` line states, when the golden test capture/pairs/FILE
    enforces it (no XFAIL); else None."""
    with open(path) as f:
        lines = [line.strip() for line in f]
    if any(line.startswith("# XFAIL:") for line in lines):
        return None
    expect = [line.split(":", 1)[1].split()[0] for line in lines if line.startswith("# EXPECT:")]
    return expect[0] if len(expect) == 1 else None


def torchtv_verdict(torchtv, path):
    """(verdict, counterexample): what `torchtv verify --format json` says."""
    env = dict(os.environ, PYTHONPATH=CAPTURE_SRC)
    proc = subprocess.run([torchtv, "verify", path, "--format", "json"], capture_output=True, text=True,
                          env=env, cwd=REPO)
    try:
        j = json.loads(proc.stdout)
        return j["verdict"], j.get("counterexample")
    except (ValueError, KeyError):
        return "error (exit %d)" % proc.returncode, None


def minimized_localized(cex):
    """'' when a refutation's counterexample is minimized and localized (found on the graphs,
    shrunk, a first differing intermediate), else what it lacks."""
    if not cex:
        return "no counterexample"
    lacks = [what for what, ok in (("inputs", cex.get("inputs")), ("shrunk", cex.get("shrunk")),
                                   ("localized", cex.get("first_difference"))) if not ok]
    return ("not " + ", not ".join(lacks)) if lacks else ""


def pairs(bench_dir, bug_layers):
    found = sorted(glob.glob(os.path.join(GOLDEN_PAIRS, "*__*.py")))
    bench = gen_transformer.generate(bench_dir, (), (), tuple(gen_transformer.BUGS), bug_layers)
    return found + sorted(bench.values())


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--torchtv", default=os.environ.get("TORCHTV_BIN") or os.path.join(REPO, "build", "torchtv"))
    ap.add_argument("--markdown", help="also write the table here")
    ap.add_argument("--bug-layers", type=int, default=gen_transformer.BUG_LAYERS,
                    help="layers of the bench generator's planted-bug pairs (default %(default)s)")
    ap.add_argument("--run-goldens", action="store_true",
                    help="run torchtv on the pair files of tests/capture/pairs too, instead of taking the verdict "
                         "their golden tests enforce")
    args = ap.parse_args(argv)
    rows, failures, not_bugs = [], [], []  # not_bugs: pairs whose # EXPECT: is equivalent
    with tempfile.TemporaryDirectory(prefix="torchtv-differential-") as bench_dir:
        for path in pairs(bench_dir, args.bug_layers):
            name = os.path.splitext(os.path.basename(path))[0]
            detects = assert_close_detects(path)
            # A pair file's golden test (ctest capture/pairs/FILE) already runs `torchtv verify` on it and
            # fails unless the verdict is its # EXPECT:, so the suite does not verify it a second time.
            has_golden = os.path.dirname(path) == GOLDEN_PAIRS
            verdict = golden_verdict(path) if has_golden and not args.run_goldens else None
            cex_note = ""
            if verdict is None:
                verdict, cex = torchtv_verdict(args.torchtv, path)
                # A refutation here must come with a minimized, localized counterexample (issue 17).
                cex_note = minimized_localized(cex) if verdict == "not_equivalent" else ""
                verdict += " (%s)" % (cex_note or "minimized and localized") if cex or cex_note else ""
            else:
                verdict += " (its golden test)"
            ok = (not detects.startswith("yes") or verdict.split()[0] == "not_equivalent") and not cex_note
            if not ok and expects_unknown(path):
                # the file documents why torchtv says unknown there (e.g. graphs equal, runs not)
                ok, verdict = True, verdict + " (as its # EXPECT: says)"
            rows.append((name, detects, verdict, "" if ok else "LOSES"))
            if golden_verdict(path) == "equivalent":
                not_bugs.append(name)
            print("%-45s  assert_close: %-40s torchtv: %s%s" % (name, detects, verdict, "" if ok else "  <- LOSES"),
                  flush=True)
            if not ok:
                failures.append(name)
    caught = sum(v.split()[0] == "not_equivalent" for _, _, v, _ in rows)
    by_ac = sum(d.startswith("yes") for _, d, _, _ in rows)
    if args.markdown:
        neither = [name for name, d, v, _ in rows if not d.startswith("yes") and v.split()[0] != "not_equivalent"
                   and name not in not_bugs]
        with open(args.markdown, "w") as f:
            f.write("Written by `/usr/bin/python3 tests/refute/differential.py --markdown FILE` (ctest "
                    "refute/differential runs the same without the file).\n\n")
            f.write("| method | planted bugs caught (of %d; not a bug: %s) |\n|---|---|\n"
                    % (len(rows) - len(not_bugs), ", ".join("`%s`" % n for n in not_bugs) or "none"))
            f.write("| `torch.testing.assert_close` (default tolerances; example_inputs() and 3 seeded draws) | %d |\n"
                    % by_ac)
            f.write("| `torchtv verify` (not_equivalent, with a counterexample) | %d |\n" % caught)
            f.write("\nCaught by neither: %s.\n\n" % (", ".join("`%s`" % n for n in neither) or "none"))
            f.write("| pair | assert_close detects? | torchtv verdict |\n|---|---|---|\n")
            for name, detects, verdict, bad in rows:
                f.write("| `%s` | %s | %s%s |\n" % (name, detects, verdict, " (**loses**)" if bad else ""))
    print("%d pairs: assert_close detects %d, torchtv refutes %d" % (len(rows), by_ac, caught))
    if failures:
        print("FAIL: assert_close detects a bug torchtv does not refute, or a refutation is not minimized and "
              "localized: " + ", ".join(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The false-alarm suite (issue 34, item 6): real equivalent code, each pair next to a
planted-bug twin, through the real CLI.

tests/trust/pairs/NAME.py reproduces real code (Megatron-LM, xformers, Unsloth,
flash-linear-attention, mamba, torch's conv-BN folding, ...) against its plain reference; each
names the file and function it follows. NAME__BUG.py is its twin with a planted bug. All of them
go through one `torchtv verify --each --format json` process (one capturing Python). The rules:

  a correct pair (no `__` in its name) is never `not_equivalent` (nor `error`): any verdict
  but a refutation passes, `unknown` included; a twin is `not_equivalent` with a counterexample.

known_false_alarms.txt lists the pairs that break their rule today, each with the issue item that
fixes it. A listed pair is a strict expected failure: while it breaks its rule the suite passes
and says so; once it keeps its rule the suite fails, telling to remove it from the list. A pair
that breaks its rule unlisted fails the suite, and so does a listed name that is no pair.

    tests/trust/run_false_alarms.py --torchtv build/torchtv [--markdown FILE] [--assert-close]

--markdown writes the results table (pair, verdict, level, reason); --assert-close (needs torch)
adds what torch.testing.assert_close at its default tolerances says on each pair's
example_inputs(): does numerical testing flag the correct pairs, does it catch the twins?
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))  # tests/
import json_stream  # noqa: E402


def is_twin(name):
    return "__" in name


def read_known(path):
    """{pair name: why it breaks its rule today, and the issue item that fixes it}."""
    known = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                name, _, why = line.partition(" ")
                known[name] = why.strip()
    return known


def first_reason(result):
    """The first undecided or refuted output's reason, else the pair's."""
    reasons = [o.get("reason", "") for o in result.get("outputs", []) if o.get("verdict") != "equivalent"]
    return (reasons or [result["reason"]])[0]


def broken_rule(name, result, require_proof=False):
    """'' when a pair's result keeps its rule, else how it breaks it. With require_proof (the
    idiom corpus) a correct pair must be proven, `unknown` breaks its rule too."""
    verdict = result["verdict"]
    if not is_twin(name):
        if verdict in ("not_equivalent", "error") or (require_proof and verdict != "equivalent"):
            return "correct code is %s: %s" % (verdict, first_reason(result))
        return ""
    if verdict != "not_equivalent":
        return "planted bug is %s, not refuted: %s" % (verdict, result["reason"])
    if not result.get("counterexample"):
        return "planted bug refuted without a counterexample"
    return ""


def verify_all(torchtv, paths, timeout):
    """{pair name: its JSON result} from one `verify --each` process, and the seconds it took."""
    start = time.monotonic()
    try:
        proc = subprocess.run([torchtv, "verify", "--each", "--format", "json", *paths], capture_output=True,
                              text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        sys.exit("torchtv verify --each ran past %.0f s (a timeout never passes)" % timeout)
    seconds = time.monotonic() - start
    docs = json_stream.documents(proc.stdout)
    if len(docs) != len(paths):
        sys.exit("torchtv verify --each gave %d results for %d pairs (exit %d); stderr:\n%s"
                 % (len(docs), len(paths), proc.returncode, proc.stderr[-4000:]))
    return {os.path.splitext(os.path.basename(p))[0]: d for p, d in zip(paths, docs)}, seconds


def assert_close_says(path):
    """What torch.testing.assert_close at its default tolerances says on the pair's
    example_inputs(): 'flags' (some output differs beyond its tolerance) or 'passes'."""
    import torch
    sys.path.insert(0, os.path.join(REPO, "src", "capture"))
    from torchtv_capture import eager
    from torchtv_capture.pairfile import load_pair
    pair = load_pair(path)
    ref = eager._run_reference(pair, eager._fresh(pair.example_inputs))
    prod = eager._run_production(pair, eager._fresh(pair.example_inputs))
    for r, p in zip(ref, prod):
        try:
            torch.testing.assert_close(p.detach(), r.detach())
        except AssertionError:
            return "flags"
    return "passes" if len(ref) == len(prod) else "flags"


def one_line(text, limit=110):
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def markdown(results, names, known, close, require_proof=False):
    lines = ["| pair | kind | verdict | level | rule | refuted outputs | assert_close | first undecided or refuted output's reason |",
             "|---|---|---|---|---|---|---|---|"]
    for name in names:
        r = results[name]
        rule = "breaks (listed)" if name in known else ("breaks" if broken_rule(name, r, require_proof) else "keeps")
        refuted = [o["name"] for o in r.get("outputs", []) if o.get("verdict") == "not_equivalent"]
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            name, "twin" if is_twin(name) else "correct", r["verdict"], r.get("level") or "", rule,
            ", ".join(refuted), close.get(name, ""), one_line(first_reason(r)).replace("|", "\\|")))
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--torchtv", required=True)
    ap.add_argument("--pairs", default=os.path.join(HERE, "pairs"))
    ap.add_argument("--known", default=os.path.join(HERE, "known_false_alarms.txt"))
    ap.add_argument("--timeout", type=float, help="seconds for the whole run (default: no limit but ctest's)")
    ap.add_argument("--markdown", help="also write the results table here")
    ap.add_argument("--assert-close", action="store_true", help="add assert_close's word on each pair")
    ap.add_argument("--require-proof", action="store_true",
                    help="a correct pair must be equivalent, not only never refuted (the idiom corpus)")
    args = ap.parse_args(argv)

    paths = sorted(glob.glob(os.path.join(args.pairs, "*.py")))
    names = [os.path.splitext(os.path.basename(p))[0] for p in paths]
    known = read_known(args.known)
    results, seconds = verify_all(args.torchtv, paths, args.timeout)
    failures = ["%s: listed in %s but there is no such pair" % (n, args.known) for n in known if n not in results]
    for name in names:
        why = broken_rule(name, results[name], args.require_proof)
        if why and name in known:
            print("XFAIL %s: %s (known: %s)" % (name, one_line(why, 200), known[name]))
        elif why:
            failures.append("%s: %s" % (name, one_line(why, 400)))
        elif name in known:
            failures.append("%s keeps its rule now (%s %s): remove it from %s"
                            % (name, results[name]["verdict"], results[name].get("level") or "", args.known))
        else:
            print("PASS %s: %s %s" % (name, results[name]["verdict"], results[name].get("level") or ""))
    close = {n: assert_close_says(p) for n, p in zip(names, paths)} if args.assert_close else {}
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as f:
            f.write(markdown(results, names, known, close, args.require_proof))
    for failure in failures:
        print("FAIL " + failure)
    twins = sum(map(is_twin, names))
    print("%d pairs (%d correct, %d twins) in %.0f s; %d known false alarms or misses; %d failures"
          % (len(names), len(names) - twins, twins, seconds, len(known), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Decides every Inductor rewrite fixture (tests/inductor/fixtures/*, made by
tools/inductor/grab.py on the GPU machine) with `torchtv check` and compares the verdict and level
with tests/inductor/expected.json, where each entry says why that verdict is right.

    tests/inductor/run_fixtures.py --torchtv build/torchtv [--table OUT.md] [--record]

With --fixtures tests/inductor/math_reference (made by tools/inductor/math_reference.py) it
decides the math-reference pairs of fusions/inductor's definitions instead, against that
directory's expected.json.

Exit 0 when every fixture gets its expected verdict and level; 1 otherwise. A pair that comes out
`unknown` passes only if `unknown` is what expected.json records for it (with the reason it
cannot be decided yet), never because a limit ran out: a timeout is always a failure. --record
rewrites expected.json's verdicts from this run (keeping the notes) for a person to review.
"""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
INDUCTOR_FUSIONS = os.path.join(os.path.dirname(os.path.dirname(HERE)), "fusions", "inductor")


def decide(torchtv, directory, timeout):
    start = time.time()
    proc = subprocess.run([torchtv, "check", directory, "--format", "json", "--timeout", str(timeout),
                           "--fusions", INDUCTOR_FUSIONS],
                          capture_output=True, text=True)
    seconds = time.time() - start
    try:
        data = json.loads(proc.stdout)
    except json.JSONDecodeError:
        return {"verdict": "crash", "level": None, "reason": proc.stderr[-400:], "timed_out": False}, seconds
    reasons = [data.get("reason") or ""] + [o.get("reason") or "" for o in data.get("outputs", [])]
    timed_out = any("timeout" in r or "time limit" in r for r in reasons)
    return {"verdict": data["verdict"], "level": data.get("level"), "reason": data["reason"],
            "timed_out": timed_out, "outputs": data.get("outputs", [])}, seconds


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--torchtv", required=True)
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--table", help="also write a markdown table of the results here")
    ap.add_argument("--record", action="store_true")
    ap.add_argument("--only", help="a substring of the fixture names to run")
    ap.add_argument("--fixtures", default=os.path.join(HERE, "fixtures"),
                    help="the pairs' directory, with index.json (default: tests/inductor/fixtures)")
    args = ap.parse_args()
    fixtures = args.fixtures
    # The rewrites' verdicts live next to this script; every other directory holds its own.
    default = os.path.abspath(fixtures) == os.path.join(HERE, "fixtures")
    expected_path = os.path.join(HERE if default else fixtures, "expected.json")
    with open(os.path.join(fixtures, "index.json")) as f:
        index = json.load(f)
    expected = {}
    if os.path.exists(expected_path):
        with open(expected_path) as f:
            expected = json.load(f)
    rows, failures = [], 0
    for config in index:
        for pair in config["pairs"]:
            name = pair["directory"]
            if not pair["changed"] or not name or (args.only and args.only not in name):
                continue
            want = expected.get(name, {})
            if want.get("skip"):  # kept for work on the prover; its note says why it is not run
                print("skip %-42s %s" % (name, want["skip"][:90]), flush=True)
                continue
            got, seconds = decide(args.torchtv, os.path.join(fixtures, name), args.timeout)
            ok = (not got["timed_out"] and got["verdict"] == want.get("verdict")
                  and got["level"] == want.get("level"))
            failures += not ok
            undecided = sorted({o["reason"][:160] for o in got.get("outputs", [])
                                if o["verdict"] != "equivalent"})
            print("%-4s %-42s %-16s %-8s %6.1f s%s" % (
                "ok" if ok else "FAIL", name, got["verdict"], got["level"] or "-", seconds,
                "" if ok else "  (expected %s %s)" % (want.get("verdict"), want.get("level"))), flush=True)
            if not ok or got["verdict"] != "equivalent":
                for r in undecided[:3]:
                    print("       " + r)
            rows.append((config, pair, got, seconds, want))
            if args.record:
                expected[name] = dict(want, verdict=got["verdict"], level=got["level"])
    if args.record:
        with open(expected_path, "w") as f:
            json.dump(expected, f, indent=1, sort_keys=True)
            f.write("\n")
    if args.table:
        with open(args.table, "w") as f:
            f.write("| model | device | mode | pass | nodes before / after | verdict | level | seconds |\n")
            f.write("|---|---|---|---|---|---|---|---|\n")
            for config, pair, got, seconds, _ in rows:
                f.write("| %s | %s | %s | %s | %s / %s | %s | %s | %.1f |\n" % (
                    config["model"], config["device"], config["mode"], pair["stage"],
                    pair["nodes_before"], pair["nodes_after"], got["verdict"], got["level"] or "-", seconds))
    print("%d pairs, %d not as expected" % (len(rows), failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

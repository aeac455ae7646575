#!/usr/bin/env python3
"""Decides the pair files captured under another torch (tools/torch2/capture_pairs.sh) with this
binary, and holds each against its pair file's expectations (# EXPECT lines, as
tests/golden/run_golden.py reads them): torch 2.x is a tested target although this machine has
torch 1.13 (README "Supported torch versions").

  tools/torch2/check_captures.py --torchtv build/torchtv tests/torch2

The folder holds what capture_pairs.sh wrote (captures.tsv, captures/NAME/*.json). A pair whose
capture failed there passes only where its file expects `error` with the reasons it names; every
other pair is decided with `torchtv check DIR --format json --self-check` and judged as golden
files are. --table prints the results as a Markdown table (tests/torch2/RESULTS.md).
"""
import argparse
import concurrent.futures
import json
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "tests", "golden"))
import run_golden  # noqa: E402


def captured(folder):
    """[(pair file path, capture exit status, the capture's error)] from captures.tsv."""
    rows = []
    with open(os.path.join(folder, "captures.tsv"), encoding="utf-8") as f:
        for line in f:
            if line.strip():
                pair, rc, err = (line.rstrip("\n").split("\t") + ["", ""])[:3]
                rows.append((pair, int(rc), err))
    return rows


def decide(pair, rc, err, folder, torchtv, timeout):
    """(verdict, level, failures) of one captured pair against its expectations."""
    path = os.path.join(REPO, pair)
    d = run_golden.directives(path)
    name = os.path.splitext(os.path.basename(pair))[0]
    if rc != 0:
        try:   # the capture's {"error", "file", "line"}, located as `torchtv verify` reports it
            e = json.loads(err)
            err = "%s (%s:%s)" % (e["error"], os.path.basename(e.get("file") or ""), e.get("line"))
        except (ValueError, KeyError, TypeError):
            pass
        result = {"verdict": "error", "level": "", "reason": err, "outputs": [], "error": err}
        return "error", "", run_golden.judge(path, d, result, None, err)
    cmd = run_golden.command_for("x.tvir", d, torchtv) + [os.path.join(folder, "captures", name)]
    got = run_golden.run(cmd, run_golden.environment(d), timeout)
    if got is None:
        return "timeout", "", run_golden.fail(path, f"timed out after {timeout} s")
    stdout, stderr, code = got
    try:
        result = json.loads(stdout)
    except json.JSONDecodeError:
        return "no result", "", run_golden.fail(path, f"no JSON on stdout (exit {code}); stderr:\n{stderr}")
    return result["verdict"], result.get("level") or "", run_golden.judge(path, d, result, code, stdout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--torchtv", required=True)
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--table", action="store_true", help="print a Markdown table of the results")
    ap.add_argument("folder")
    args = ap.parse_args()
    rows = captured(args.folder)
    failures, table = 0, []
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        decided = list(pool.map(lambda row: decide(*row, args.folder, args.torchtv, args.timeout), rows))
    for (pair, rc, err), (verdict, level, failed) in zip(rows, decided):
        failures += failed
        expect = (run_golden.directives(os.path.join(REPO, pair))["EXPECT"] or ["equivalent"])[0]
        table.append((pair, "captured" if rc == 0 else "capture error", f"{verdict} {level}".strip(), expect,
                      "fails" if failed else "as expected"))
    if args.table:
        print("| pair file | capture | torchtv check | expected | |\n|---|---|---|---|---|")
        for row in table:
            print("| `%s` | %s | %s | %s | %s |" % row)
    print(f"{len(rows) - failures} of {len(rows)} pairs captured under {open(os.path.join(args.folder, 'versions.txt')).read().split()[-1]} as expected")
    return 1 if failures or not rows else 0


if __name__ == "__main__":
    sys.exit(main())

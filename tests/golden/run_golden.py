#!/usr/bin/env python3
"""Runs one golden pair file through the real CLI and checks its expectations.

A golden file is a .tvir file with @reference and @production graphs (run with
`torchtv check`), or a Python pair file (run with `torchtv verify`, which
captures it). Its expectations are comment lines:
  # EXPECT: equivalent bitwise     verdict, optionally the level
  # EXPECT-REASON: some text       the reason (or error message) contains this text
  # EXPECT-OUTPUT: name verdict    one output's verdict
  # ARGS: --require bitwise        extra arguments for `torchtv check`
  # NEVER: equivalent              a verdict that must never come out, checked even
                                   under XFAIL (soundness invariants)
  # XFAIL: why                     the expectations are known not to hold yet: the
                                   test passes while they fail, and fails once they
                                   hold (then remove the line). NEVER still applies.
  # ENV: NAME=value                an environment variable for the run (fault injection)
A file that cannot hold comments (empty, binary) takes them from FILE.expect.
A file without `# EXPECT:` must verify (verdict equivalent, any level).
A timeout is a failure, never a pass.
Every run uses --self-check: an `equivalent` verdict whose self-check (both
graphs evaluated on seeded random inputs) disagrees is a failure.
"""
import argparse
import json
import os
import subprocess
import sys

EXIT_CODES = {"equivalent": 0, "not_equivalent": 1, "unknown": 2, "error": 3}


def directives(path):
    found = {"EXPECT": [], "EXPECT-REASON": [], "EXPECT-OUTPUT": [], "ARGS": [], "NEVER": [], "XFAIL": [],
             "ENV": []}
    sources = [path] + ([path + ".expect"] if os.path.exists(path + ".expect") else [])
    for source in sources:
        with open(source, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
        for line in lines:
            line = line.strip()
            if not line.startswith("#"):
                continue
            body = line[1:].strip()
            for key in found:
                if body.startswith(key + ":"):
                    found[key].append(body[len(key) + 1:].strip())
    return found


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--torchtv", required=True)
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("file")
    args = ap.parse_args()

    d = directives(args.file)
    if len(d["EXPECT"]) > 1:
        return fail(args.file, "more than one EXPECT line")
    expect = (d["EXPECT"][0] if d["EXPECT"] else "equivalent").split()
    extra = " ".join(d["ARGS"]).split()
    command = "verify" if args.file.endswith(".py") else "check"
    # Every equivalent verdict is re-checked by evaluating both graphs (--self-check).
    cmd = [args.torchtv, command, args.file, "--format", "json", "--self-check", *extra]
    env = dict(os.environ)
    for assignment in d["ENV"]:
        name, _, value = assignment.partition("=")
        env[name.strip()] = value.strip()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout, env=env)
    except subprocess.TimeoutExpired:
        return fail(args.file, f"timed out after {args.timeout} s (a timeout never passes)")
    try:
        result = json.loads(proc.stdout)
    except json.JSONDecodeError:
        return fail(args.file, f"no JSON on stdout (exit {proc.returncode}); stderr:\n{proc.stderr}")

    problems = []
    verdict, level = result["verdict"], result["level"]
    if verdict != expect[0]:
        problems.append(f"verdict {verdict}, expected {expect[0]}")
    if len(expect) > 1 and level != expect[1]:
        problems.append(f"level {level}, expected {expect[1]}")
    if proc.returncode != EXIT_CODES.get(verdict, -1):
        problems.append(f"exit code {proc.returncode} does not match verdict {verdict}")
    check = result.get("self_check")
    if verdict == "equivalent" and check and check.get("ran") and not check.get("agreed"):
        problems.append(f"self-check disagrees with the proof: {check.get('detail')}")
    text = result["reason"] + " " + json.dumps(result.get("error")) + " " + json.dumps(result["outputs"])
    for want in d["EXPECT-REASON"]:
        if want not in text:
            problems.append(f"reason lacks {want!r}")
    outputs = {o["name"]: o for o in result["outputs"]}
    for spec in d["EXPECT-OUTPUT"]:
        name, want = spec.split()[:2]
        got = outputs.get(name, {}).get("verdict")
        if got != want:
            problems.append(f"output {name}: {got}, expected {want}")
    for banned in d["NEVER"]:
        if verdict == banned.split()[0]:
            return fail(args.file, f"verdict {verdict} must never come out here\n" + proc.stdout)
    if d["XFAIL"]:
        if problems:
            print(f"XFAIL {args.file}: {'; '.join(problems)} ({d['XFAIL'][0]})")
            return 0
        return fail(args.file, "expectations hold now: remove the XFAIL line")
    if problems:
        return fail(args.file, "; ".join(problems) + "\n" + proc.stdout)
    print(f"PASS {args.file}: {verdict} {level or ''}")
    return 0


def fail(path, message):
    print(f"FAIL {path}: {message}")
    return 1


if __name__ == "__main__":
    sys.exit(main())

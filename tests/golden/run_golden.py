#!/usr/bin/env python3
"""Runs golden pair files through the real CLI and checks their expectations.

A golden file is a .tvir file with @reference and @production graphs (run with
`torchtv check`), or a Python pair file (run with `torchtv verify`, which
captures it). Its expectations are comment lines:
  # EXPECT: equivalent bitwise     verdict, optionally the level
  # EXPECT-REASON: some text       the reason (or error message, an assumption, the counterexample:
                                   where it is localized, a capture warning) contains this text
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
A timeout is a failure, never a pass. Given a folder, it runs every .tvir and .py file in it,
those of one kind with the same ARGS (and no ENV) in one `torchtv check --each` or
`torchtv verify --each` process.
Every run uses --self-check: an `equivalent` verdict whose self-check (both
graphs evaluated on seeded random inputs) disagrees is a failure.
"""
import argparse
import glob
import json
import os
import shlex
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/
import json_stream  # noqa: E402

EXIT_CODES = {"equivalent": 0, "not_equivalent": 1, "unknown": 2, "error": 3}
# A run's exit code is its worst verdict's (severity() in src/verify/verdict.h).
WORST_FIRST = ["equivalent", "unknown", "not_equivalent", "error"]
SEVERITY = {v: k for k, v in enumerate(WORST_FIRST)}


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


def run(cmd, env, timeout):
    """(stdout, stderr, exit code), or None when the command outran `timeout`."""
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return None
    return proc.stdout, proc.stderr, proc.returncode


def judge(path, d, result, exit_code, raw):
    """0 when `result` (one pair's JSON) meets the file's expectations, else 1; prints why.
    exit_code is the pair's own exit code, or None where it was checked with others."""
    expect = (d["EXPECT"][0] if d["EXPECT"] else "equivalent").split()
    problems = []
    verdict, level = result["verdict"], result["level"]
    if verdict != expect[0]:
        problems.append(f"verdict {verdict}, expected {expect[0]}")
    if len(expect) > 1 and level != expect[1]:
        problems.append(f"level {level}, expected {expect[1]}")
    if exit_code is not None and exit_code != EXIT_CODES.get(verdict, -1):
        problems.append(f"exit code {exit_code} does not match verdict {verdict}")
    check = result.get("self_check")
    if verdict == "equivalent" and check and check.get("ran") and not check.get("agreed"):
        problems.append(f"self-check disagrees with the proof: {check.get('detail')}")
    text = (result["reason"] + " " + json.dumps(result.get("error")) + " " + json.dumps(result["outputs"]) + " " +
            json.dumps(result.get("assumptions"), ensure_ascii=False) + " " + json.dumps(result.get("counterexample")) +
            " " + " ".join(result.get("warnings") or []))
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
            return fail(path, f"verdict {verdict} must never come out here\n" + raw)
    if d["XFAIL"]:
        if problems:
            print(f"XFAIL {path}: {'; '.join(problems)} ({d['XFAIL'][0]})")
            return 0
        return fail(path, "expectations hold now: remove the XFAIL line")
    if problems:
        return fail(path, "; ".join(problems) + "\n" + raw)
    print(f"PASS {path}: {verdict} {level or ''}")
    return 0


def command_for(path, d, torchtv):
    command = "verify" if path.endswith(".py") else "check"
    # Every equivalent verdict is re-checked by evaluating both graphs (--self-check).
    return [torchtv, command, "--format", "json", "--self-check", *shlex.split(" ".join(d["ARGS"]))]


def environment(d):
    env = dict(os.environ)
    for assignment in d["ENV"]:
        name, _, value = assignment.partition("=")
        env[name.strip()] = value.strip()
    return env


def check_alone(path, d, torchtv, timeout):
    got = run(command_for(path, d, torchtv) + [path], environment(d), timeout)
    if got is None:
        return fail(path, f"timed out after {timeout} s (a timeout never passes)")
    stdout, stderr, code = got
    try:
        result = json.loads(stdout)
    except json.JSONDecodeError:
        return fail(path, f"no JSON on stdout (exit {code}); stderr:\n{stderr}")
    return judge(path, d, result, code, stdout)


def check_together(paths, found, torchtv, timeout):
    """Files of one kind (.tvir or .py) with the same ARGS and no ENV, in one `torchtv check
    --each` or `verify --each` process (Note [Checking each file]): LibTorch, which the
    self-check loads, starts once, and so does the Python that captures pair files. A file left
    without a result (the process ended early) is checked alone, so its failure is its own."""
    first = found[paths[0]]
    got = run(command_for(paths[0], first, torchtv) + ["--each", *paths], environment(first),
              timeout * len(paths))
    docs = json_stream.documents(got[0]) if got else []
    worst = max((SEVERITY[doc["verdict"]] for doc in docs), default=0)
    failures = 0
    if got and len(docs) == len(paths) and got[2] != EXIT_CODES[WORST_FIRST[worst]]:
        failures += fail(" ".join(paths), f"exit code {got[2]} is not the worst verdict's ({WORST_FIRST[worst]})")
    for k, path in enumerate(paths):
        if k < len(docs):
            failures += judge(path, found[path], docs[k], None, json.dumps(docs[k], indent=1))
        else:
            failures += check_alone(path, found[path], torchtv, timeout)
    return failures


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--torchtv", required=True)
    ap.add_argument("--timeout", type=float, default=300, help="seconds per file")
    ap.add_argument("paths", nargs="+", help="golden files, or folders of .tvir golden files")
    args = ap.parse_args()

    files = []
    for path in args.paths:
        files += sorted(glob.glob(os.path.join(path, "*.tvir")) + glob.glob(os.path.join(path, "*.py"))) \
            if os.path.isdir(path) else [path]
    found = {path: directives(path) for path in files}
    failures = 0
    groups = {}
    for path in files:
        d = found[path]
        if len(d["EXPECT"]) > 1:
            failures += fail(path, "more than one EXPECT line")
        elif d["ENV"]:
            failures += check_alone(path, d, args.torchtv, args.timeout)
        else:
            groups.setdefault((path.endswith(".py"), tuple(d["ARGS"])), []).append(path)
    for paths in groups.values():
        failures += check_together(paths, found, args.torchtv, args.timeout)
    print(f"{len(files) - failures} of {len(files)} golden files pass")
    return 1 if failures else 0


def fail(path, message):
    print(f"FAIL {path}: {message}")
    return 1


if __name__ == "__main__":
    sys.exit(main())

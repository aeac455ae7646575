#!/usr/bin/python3
"""Which refutations of the test suite's planted bugs are shrunk and localized (issue 17).

Runs `torchtv check` (a .tvir golden) or `torchtv verify` (a pair file) with `--format json` on
every golden file that expects `not_equivalent` (tests/golden/**) and every planted-bug pair file
(tests/capture/pairs/*__*.py), and lists per file: the verdict, whether its counterexample is
shrunk, where it is localized (the first differing intermediate: production's op and line or
value), or why not (what torchtv says: the counterexample's note, else the refuted output's
reason). Writes the markdown table to stdout, or to --markdown FILE.

    /usr/bin/python3 bench/counterexamples.py --torchtv build/torchtv [--markdown FILE]
"""
import argparse
import glob
import json
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tests", "golden"))

from run_golden import directives  # noqa: E402


def planted_bug_files():
    """(path, how to run it) for every file whose expectation is not_equivalent."""
    files = []
    for path in sorted(glob.glob(os.path.join(REPO, "tests", "golden", "**", "*.tvir"), recursive=True)):
        d = directives(path)
        if d["EXPECT"] and d["EXPECT"][0].split()[0] == "not_equivalent" and not d["ENV"]:
            files.append((path, ["check"] + " ".join(d["ARGS"]).split()))
    for path in sorted(glob.glob(os.path.join(REPO, "tests", "capture", "pairs", "*__*.py"))):
        d = directives(path)
        if not d["EXPECT"] or d["EXPECT"][0].split()[0] == "not_equivalent":
            files.append((path, ["verify"]))
    return files


def where(site):
    loc = site.get("loc") or ""
    return "`%s` %s" % (site.get("op", "?"), ("line " + loc.rsplit(":", 1)[1]) if ":" in loc else "(`%%%s`)" % site.get("value", "?"))


def row(torchtv, path, how):
    cmd = [torchtv] + how[:1] + [path, "--format", "json"] + how[1:]
    env = dict(os.environ, TORCHTV_CACHE="off")
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    try:
        result = json.loads(p.stdout)
    except ValueError:
        return ["error", "", "exit %d: %s" % (p.returncode, (p.stderr.strip().splitlines() or ["?"])[-1][:120])]
    verdict = result.get("verdict", "?")
    cex = result.get("counterexample") or {}
    if not cex:
        return [verdict, "", "no counterexample"]
    shrunk = "yes" if cex.get("shrunk") else "no"
    first = cex.get("first_difference")
    if first:
        text = where(first["production"]) + " (reference " + where(first["reference"]) + ")"
        if first.get("type_difference"):
            text += ", " + first["type_difference"]
        return [verdict, shrunk, text]
    why = cex.get("why_not_localized") or cex.get("note") or ""
    return [verdict, shrunk, "not localized: " + why[:200]]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--torchtv", default=os.path.join(REPO, "build", "torchtv"))
    ap.add_argument("--markdown")
    args = ap.parse_args(argv)
    lines = ["| file | verdict | shrunk | first differing intermediate (production), or why not |",
             "|---|---|---|---|"]
    counts = {"files": 0, "shrunk": 0, "localized": 0}
    for path, how in planted_bug_files():
        verdict, shrunk, text = row(args.torchtv, path, how)
        counts["files"] += 1
        counts["shrunk"] += shrunk == "yes"
        counts["localized"] += not text.startswith(("not localized", "no counterexample", "exit"))
        lines.append("| `%s` | %s | %s | %s |" % (os.path.relpath(path, REPO), verdict, shrunk or "-", text.replace("|", "/")))
        print(lines[-1], file=sys.stderr, flush=True)
    lines.append("")
    lines.append("%(files)d files: %(shrunk)d shrunk, %(localized)d localized." % counts)
    text = "\n".join(lines) + "\n"
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()

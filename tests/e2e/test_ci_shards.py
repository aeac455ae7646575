#!/usr/bin/env python3
"""`torchtv ci --shard K/N` and `torchtv ci merge` (Note [CI shards] in src/cli/ci_command.cpp):
the shards split the manifest's pairs without overlap or loss, each shard's JUnit and SARIF
are complete on their own, the merge has every pair once in manifest order with the worst
verdict's exit code, and a merge that lacks a shard is an error."""
import json
import os
import tempfile

from e2e_util import EXIT_CODES, SEVERITY, Checker, args, junit_cases, run, sarif_errors

a = args()
c = Checker("ci shards")
examples = os.path.join(os.path.abspath(a.source_dir), "examples")
golden = os.path.join(os.path.abspath(a.source_dir), "tests", "golden")
# Graph files only (no capture): quick, and with every verdict kind.
pairs = [("rmsnorm", f'reference = "{examples}/rmsnorm_reference.tvir"\nproduction = "{examples}/rmsnorm_production.tvir"'),
         ("one-output-differs", f'graphs = "{golden}/structural/one_output_differs.tvir"'),
         ("output-dtype-mismatch", f'graphs = "{golden}/structural/output_dtype_mismatch.tvir"'),
         ("bad-graph-file", f'graphs = "{golden}/errors/unknown_op.tvir"'),
         ("rmsnorm-bitwise", f'reference = "{examples}/rmsnorm_reference.tvir"\n'
                             f'production = "{examples}/rmsnorm_production.tvir"\nrequire = "bitwise"')]
names = [n for n, _ in pairs]


def verdicts(out):
    return {n: json.load(open(os.path.join(out, n + ".json")))["verdict"]
            for n in names if os.path.exists(os.path.join(out, n + ".json"))}


with tempfile.TemporaryDirectory() as tmp:
    manifest = os.path.join(tmp, "m.toml")
    with open(manifest, "w") as f:
        f.write("".join(f'[[pair]]\nname = "{n}"\n{body}\n\n' for n, body in pairs))
    shards, seen = [], []
    for k in (1, 2, 3):
        out = os.path.join(tmp, f"shard{k}")
        p = run([a.torchtv, "ci", manifest, "--shard", f"{k}/3", "--out", out, "--no-cache"])
        got = verdicts(out)
        shards.append(out)
        seen += list(got)
        worst = max(got.values(), key=SEVERITY.get, default="equivalent")
        c.check(p.returncode == EXIT_CODES[worst], f"shard {k}: exit {p.returncode}, worst {worst}")
        cases = junit_cases(os.path.join(out, "junit.xml"))
        c.check({case[0] for case in cases} == set(got), f"shard {k}: JUnit suites {cases} for pairs {list(got)}")
        errors = sarif_errors(a.source_dir, os.path.join(out, "results.sarif"))
        c.check(not errors, f"shard {k}: SARIF invalid: {errors[:3]}")
        # The same shard twice holds the same pairs.
        again = os.path.join(tmp, f"again{k}")
        run([a.torchtv, "ci", manifest, "--shard", f"{k}/3", "--out", again, "--no-cache"])
        c.check(sorted(verdicts(again)) == sorted(got), f"shard {k} is not deterministic")
    c.check(sorted(seen) == sorted(names), f"shards hold {sorted(seen)}, the manifest {sorted(names)}")

    merged = os.path.join(tmp, "merged")
    p = run([a.torchtv, "ci", "merge", *shards, "--out", merged])
    got = verdicts(merged)
    c.check(sorted(got) == sorted(names), f"merge holds {sorted(got)}")
    worst = max(got.values(), key=SEVERITY.get, default="equivalent")
    c.check(p.returncode == EXIT_CODES[worst], f"merge: exit {p.returncode}, worst {worst}\n{p.stdout}{p.stderr}")
    order = [line.split()[0] for line in p.stdout.splitlines()[1:] if line.split() and line.split()[0] in names]
    c.check(order == names, f"merged summary order {order}, manifest order {names}")
    suites = [case[0] for case in junit_cases(os.path.join(merged, "junit.xml"))]
    c.check(sorted(set(suites)) == sorted(names), f"merged JUnit suites {sorted(set(suites))}")
    errors = sarif_errors(a.source_dir, os.path.join(merged, "results.sarif"))
    c.check(not errors, f"merged SARIF invalid: {errors[:3]}")
    unsharded = os.path.join(tmp, "all")
    full = run([a.torchtv, "ci", manifest, "--out", unsharded, "--no-cache"])
    c.check(verdicts(unsharded) == got, "the merge decided otherwise than one unsharded run")
    c.check(full.returncode == p.returncode, "the merge's exit code differs from an unsharded run's")

    lacking = run([a.torchtv, "ci", "merge", shards[0], shards[2], "--out", os.path.join(tmp, "lacking")])
    c.check(lacking.returncode == 3 and "shard 2/3 is missing" in lacking.stderr,
            f"a merge without shard 2: exit {lacking.returncode} {lacking.stderr}")
    bad = run([a.torchtv, "ci", manifest, "--shard", "4/3", "--out", os.path.join(tmp, "bad")])
    c.check(bad.returncode == 3 and "K/N" in bad.stderr, f"--shard 4/3: exit {bad.returncode} {bad.stderr}")
c.done()

#!/usr/bin/env python3
"""A gate adopted step by step (Note [Expected verdicts] in src/cli/ci_manifest.h): a manifest's
`expect` accepts a pair's or an output's unknown or known bug, the exit code counts only what it
does not accept, every report still shows the accepted verdicts (JUnit skipped, SARIF suppressed),
an expectation met by `equivalent` is named stale, one naming no output is named, an error is never
accepted, and sharded runs merge to the same gate. `--baseline` (an earlier run's report
folder, Note [Baseline] in src/cli/ci_command.cpp) accepts what failed there and nothing new."""
import json
import os
import tempfile
import xml.etree.ElementTree as ET

from e2e_util import Checker, args, run, sarif_errors

a = args()
c = Checker("ci expectations")
src = a.source_dir
differs = os.path.join(src, "tests/golden/structural/one_output_differs.tvir")  # loss equivalent, grad refuted
undecided = os.path.join(src, "tests/golden/soundness/random_prims_never_equal.tvir")  # y unknown
bad = os.path.join(src, "tests/golden/errors/unknown_op.tvir")
rms_ref, rms_prod = (os.path.join(src, "examples/rmsnorm_%s.tvir" % side) for side in ("reference", "production"))


def ci(d, text, *extra, out="reports"):
    path = os.path.join(d, "manifest.toml")
    with open(path, "w") as f:
        f.write('[defaults]\nreport = "never"\n\n' + text)
    out = os.path.join(d, out)
    return run([a.torchtv, "ci", path, "--out", out, *extra]), out


adopted = f'''[[pair]]
name = "known-bug"
graphs = "{differs}"
expect = {{ grad = "not_equivalent" }}
why = "grad is zeros, issue #7"

[[pair]]
name = "undecided"
graphs = "{undecided}"
expect = "unknown"
why = "random prims have no semantics"

[[pair]]
name = "now-proven"
reference = "{rms_ref}"
production = "{rms_prod}"
expect = "unknown"
'''

with tempfile.TemporaryDirectory() as d:
    p, out = ci(d, adopted)
    c.check(p.returncode == 0, f"every failure is expected, yet exit {p.returncode}\n{p.stdout}{p.stderr}")
    c.check("known-bug" in p.stdout and "not_equivalent, expected" in p.stdout, "summary does not mark the known bug expected\n" + p.stdout)
    c.check("unknown, expected" in p.stdout, "summary does not mark the unknown pair expected\n" + p.stdout)
    c.check("expected: known-bug: grad (expected not_equivalent: grad is zeros, issue #7)" in p.stdout,
            "summary does not list the accepted output with its reason\n" + p.stdout)
    c.check("stale expectation: now-proven: every output is now equivalent" in p.stdout,
            "an expectation met by equivalent is not named stale\n" + p.stdout)
    c.check("worst: equivalent (exit 0)" in p.stdout, "summary's worst is not the gate's\n" + p.stdout)
    # Note [Annotations from ci]: nothing the manifest accepts is annotated.
    with open(os.path.join(out, "annotations.txt")) as f:
        notes = f.read()
    c.check("::error" not in notes, "an accepted failure is annotated:\n" + notes[:600])
    # The pair's own JSON is the checker's: its verdict is kept as decided.
    with open(os.path.join(out, "known-bug.json")) as f:
        c.check(json.load(f)["verdict"] == "not_equivalent", "known-bug.json lost its verdict")
    root = ET.parse(os.path.join(out, "junit.xml")).getroot()
    cases = {(s.get("name"), t.get("name")): t for s in root.iter("testsuite") for t in s.iter("testcase")}
    grad = cases.get(("known-bug", "output grad"))
    if c.check(grad is not None, "JUnit lacks known-bug's grad"):
        c.check(grad.find("skipped") is not None and grad.find("failure") is None, "an accepted output is not skipped in JUnit")
        c.check("issue #7" in (grad.find("skipped").get("message") if grad.find("skipped") is not None else ""),
                "JUnit's skipped message lacks the manifest's why")
    c.check(root.get("failures") == "0" and root.get("skipped") == "2", f"JUnit counts: failures={root.get('failures')} skipped={root.get('skipped')}")
    sarif = os.path.join(out, "results.sarif")
    errors = sarif_errors(src, sarif)
    c.check(not errors, "SARIF does not match the schema:\n" + "\n".join(errors[:10]))
    with open(sarif) as f:
        results = json.load(f)["runs"][0]["results"]
    failing = [r for r in results if r.get("properties", {}).get("verdict") != "equivalent"]
    c.check(len(failing) == 2 and all(r.get("suppressions") for r in failing),
            f"the two accepted results are not suppressed in SARIF: {failing}")
    c.check(any("issue #7" in s["justification"] for r in results for s in r.get("suppressions", [])),
            "SARIF's suppression lacks the manifest's why")

    # Sharded, then merged: the same gate.
    path = os.path.join(d, "manifest.toml")
    for k in (1, 2):
        run([a.torchtv, "ci", path, "--shard", f"{k}/2", "--out", os.path.join(d, f"s{k}")])
    m = run([a.torchtv, "ci", "merge", os.path.join(d, "s1"), os.path.join(d, "s2"), "--out", os.path.join(d, "merged")])
    c.check(m.returncode == 0, f"merged shards: exit {m.returncode}\n{m.stdout}{m.stderr}")
    c.check("stale expectation: now-proven" in m.stdout, "the merged summary loses the stale expectation")

# Each: (what, one pair's manifest table, the exit code, a line the summary must hold or None).
gates = [
    ("a new failure (the expectation names the other output) fails",
     f'name = "regressed"\ngraphs = "{differs}"\nexpect = {{ loss = "unknown" }}\n', 1,
     "stale expectation: regressed: loss"),
    ("expect = unknown does not accept a refutation (the summary names the output and where it diverges)",
     f'name = "worse"\ngraphs = "{differs}"\nexpect = "unknown"\n', 1, "1 output: grad (not_equivalent) at production's"),
    ("a typo in an output's name accepts nothing and is named",
     f'name = "typo"\ngraphs = "{undecided}"\nexpect = {{ why = "unknown" }}\n', 2,
     'expectation names no output: typo: "why"'),
    ("an error is never accepted: the pair was not compared",
     f'name = "broken"\ngraphs = "{bad}"\nexpect = "not_equivalent"\n', 3, None),
]
for what, table, code, line in gates:
    with tempfile.TemporaryDirectory() as d:
        p, _ = ci(d, "[[pair]]\n" + table)
        c.check(p.returncode == code, f"{what}: exit {p.returncode}, expected {code}\n{p.stdout}")
        c.check(line is None or line in p.stdout, f"{what}: the summary lacks '{line}'\n{p.stdout}")
# Note [Baseline]: an earlier run's folder accepts what failed there, and only that.
with tempfile.TemporaryDirectory() as d:
    two = f'[[pair]]\nname = "known-bug"\ngraphs = "{differs}"\n\n[[pair]]\nname = "undecided"\ngraphs = "{undecided}"\n'
    first, before = ci(d, two, out="baseline")
    c.check(first.returncode == 1, f"without a baseline the known bug fails: exit {first.returncode}\n{first.stdout}")
    again, _ = ci(d, two, "--baseline", before)
    c.check(again.returncode == 0, f"every failure is in the baseline, yet exit {again.returncode}\n{again.stdout}{again.stderr}")
    c.check("expected: known-bug: grad (not_equivalent in the baseline" in again.stdout,
            "the summary does not say the baseline accepted grad\n" + again.stdout)
    # A pair new since the baseline must pass on its own.
    grown, _ = ci(d, two + f'\n[[pair]]\nname = "new-bug"\ngraphs = "{differs}"\n', "--baseline", before)
    c.check(grown.returncode == 1, f"a new pair's failure passed through the baseline: exit {grown.returncode}\n{grown.stdout}")
    # A baseline that cannot be read stops the run.
    with open(os.path.join(before, "undecided.json"), "w") as f:
        f.write("{not json")
    broken, _ = ci(d, two, "--baseline", before)
    c.check(broken.returncode == 3 and "cannot read the baseline" in broken.stderr and "undecided.json" in broken.stderr,
            f"a damaged baseline: exit {broken.returncode}\n{broken.stderr}")
c.done()

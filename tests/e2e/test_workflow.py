#!/usr/bin/env python3
"""Runs the torchtv steps of docs/github-workflow.yml and scripts/pre-commit, so
that the workflow docs/ci.md offers is the one the tests exercise.

The workflow's install and build steps (scripts/install-deps.sh,
scripts/build.sh) are what the test suite itself was built with; the other
`run:` steps are run here as written, with build/torchtv standing for the
binary under test and the report folder moved to a temporary one."""
import json
import os
import re
import subprocess
import tempfile

from e2e_util import Checker, args, run, sarif_errors

a = args()
c = Checker("github workflow and pre-commit hook")
with open(os.path.join(a.source_dir, "docs/github-workflow.yml")) as f:
    workflow = f.read()
with open(os.path.join(a.source_dir, "docs/ci.md")) as f:
    c.check("```yaml\n" + workflow + "```" in f.read(), "docs/ci.md's workflow differs from docs/github-workflow.yml")
runs = re.findall(r"^\s*run:\s*(.+)$", workflow, re.M)
c.check(runs[:2] == ["scripts/install-deps.sh", "scripts/build.sh"], f"unexpected setup steps: {runs[:2]}")
steps = runs[2:]
c.check(steps and all(s.startswith("build/torchtv ") for s in steps), f"unexpected torchtv steps: {steps}")
uploads = re.findall(r"^\s*(?:sarif_file|path):\s*(\S+)$", workflow, re.M)

with tempfile.TemporaryDirectory() as d:
    out = os.path.join(d, "torchtv-reports")
    for step in steps:
        c.check(" torchtv-reports" in step, f"step does not write torchtv-reports/: {step}")
        cmd = step.replace("build/torchtv", a.torchtv, 1).replace(" torchtv-reports", " " + out)
        p = subprocess.run(["bash", "-c", cmd], cwd=a.source_dir, capture_output=True, text=True, timeout=600)
        c.check(p.returncode == 0, f"`{step}` exited {p.returncode}:\n{p.stdout}{p.stderr}")
    for upload in uploads:
        path = os.path.join(d, upload)
        c.check(os.path.exists(path), f"the workflow uploads {upload}, which the steps did not write")
    sarif = os.path.join(out, "results.sarif")
    if os.path.exists(sarif):
        errors = sarif_errors(a.source_dir, sarif)
        c.check(not errors, f"workflow SARIF invalid: {errors[:5]}")

    hook_reports = os.path.join(d, "hook-reports")
    env = {**os.environ, "TORCHTV": a.torchtv, "TORCHTV_REPORTS": hook_reports}
    p = run([os.path.join(a.source_dir, "scripts/pre-commit")], cwd=a.source_dir, env=env)
    c.check(p.returncode == 0, f"pre-commit hook exited {p.returncode}:\n{p.stdout}{p.stderr}")
    c.check(os.path.exists(os.path.join(hook_reports, "junit.xml")), "pre-commit hook wrote no reports")
    # The hook refuses a commit when a pair fails.
    bad = os.path.join(d, "bad.toml")
    with open(bad, "w") as f:
        f.write('[[pair]]\nname = "bug"\nreference = "%s"\nproduction = "%s"\n' % (
            os.path.join(a.source_dir, "examples/rmsnorm_reference.tvir"),
            os.path.join(a.source_dir, "examples/rmsnorm_production_bug.tvir")))
    p = run([os.path.join(a.source_dir, "scripts/pre-commit")], cwd=a.source_dir,
            env={**env, "TORCHTV_MANIFEST": bad})
    c.check(p.returncode == 1 and "torchtv ci failed" in p.stderr, f"hook let a failing pair pass: {p.returncode}")
c.done()

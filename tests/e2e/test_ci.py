#!/usr/bin/env python3
"""`torchtv ci` on the example pairs with -j 2: the exit code is the worst verdict
the pairs got, every pair has its HTML and JSON report, the combined SARIF is
schema-valid and the combined JUnit has one testcase per output."""
import glob
import json
import os
import tempfile

from e2e_util import EXIT_CODES, SEVERITY, Checker, args, junit_cases, run, sarif_errors

a = args()
c = Checker("ci example pairs")
manifest = os.path.join(a.source_dir, "tests/e2e/manifests/example_pairs.toml")
names = ["rmsnorm", "rmsnorm-bitwise", "one-output-differs", "output-dtype-mismatch", "bad-graph-file",
         "layernorm_train", "layernorm_train__bias_grad", "mlp_fused_train"]
has_verify = run([a.torchtv, "verify", "--help"]).returncode == 0

with tempfile.TemporaryDirectory() as out:
    p = run([a.torchtv, "ci", manifest, "-j", "2", "--out", out], cwd=a.source_dir)
    results = {}
    for name in names:
        path = os.path.join(out, name + ".json")
        if c.check(os.path.exists(path), f"no {name}.json"):
            with open(path) as f:
                results[name] = json.load(f)
        html = os.path.join(out, name + ".html")
        # report = "failures" (the default): a page for each pair that is not equivalent, none for the others.
        if results.get(name, {}).get("verdict") == "equivalent":
            c.check(not os.path.exists(html), f"{name} is equivalent but has an HTML report")
        elif c.check(os.path.exists(html), f"no {name}.html"):
            with open(html) as f:
                text = f.read()
            c.check(text.startswith("<!DOCTYPE html>") and text.rstrip().endswith("</html>"), f"{name}.html is cut")
            c.check('id="verdict-table"' in text, f"{name}.html has no verdict table")

    worst = max((r["verdict"] for r in results.values()), key=SEVERITY.get, default="error")
    c.check(p.returncode == EXIT_CODES[worst], f"exit {p.returncode}, but the worst verdict is {worst}\n{p.stdout}{p.stderr}")
    # A bad pair never stops the others: the good ones still got decided.
    c.check(results.get("rmsnorm", {}).get("verdict") == "equivalent", "rmsnorm was not decided equivalent")
    c.check(results.get("bad-graph-file", {}).get("verdict") == "error", "a bad graph file is not an error")
    c.check("unknown op" in results.get("bad-graph-file", {}).get("reason", ""), "the error does not name the cause")
    if not has_verify:
        for name in ("layernorm_train", "mlp_fused_train"):
            c.check("torchtv verify" in results.get(name, {}).get("reason", ""),
                    f"{name}: without `verify` the reason must say so")
    for name in names:
        c.check(any(line.startswith(name + " ") for line in p.stdout.splitlines()), f"summary lacks {name}")
    c.check(not p.stdout.count("\033["), "progress bar escapes on a non-terminal stdout")
    c.check(f"worst: {worst} (exit {EXIT_CODES[worst]})" in p.stdout, "summary lacks the worst verdict")

    sarif = os.path.join(out, "results.sarif")
    if c.check(os.path.exists(sarif), "no results.sarif"):
        errors = sarif_errors(a.source_dir, sarif)
        c.check(not errors, "SARIF does not match the schema:\n" + "\n".join(errors[:10]))
        with open(sarif) as f:
            log = json.load(f)
        # One result per cause of failing outputs (Note [One alert per cause]), one per pair in error.
        failing = sum(len(r["causes"]) for r in results.values() if r["verdict"] != "error")
        failing += sum(1 for r in results.values() if r["verdict"] == "error")
        c.check(len(log["runs"][0]["results"]) == failing,
                f"{len(log['runs'][0]['results'])} SARIF results for {failing} causes/pairs in error")
        grouped = sum(1 for r in results.values() for o in r["outputs"] if o["verdict"] != "equivalent")
        c.check(failing - sum(1 for r in results.values() if r["verdict"] == "error") <= grouped,
                "more causes than failing outputs")
    # Note [Annotations from ci]: one ::error per cause or pair in error, the same count as SARIF's
    # results, each pair the gate fails on named; none for an equivalent pair.
    notes = os.path.join(out, "annotations.txt")
    if c.check(os.path.exists(notes), "no annotations.txt"):
        with open(notes) as f:
            lines = [l for l in f.read().splitlines() if l.startswith("::error ")]
        failing = sum(len(r["causes"]) for r in results.values() if r["verdict"] != "error")
        failing += sum(1 for r in results.values() if r["verdict"] == "error")
        c.check(len(lines) == failing, f"{len(lines)} annotations for {failing} causes/pairs in error:\n" + "\n".join(lines[:6]))
        c.check(all("file=" in l and "title=torchtv" in l for l in lines), "an annotation without file= or title=")
    junit = os.path.join(out, "junit.xml")
    if c.check(os.path.exists(junit), "no junit.xml"):
        cases = junit_cases(junit)
        expected = sum(max(1, len(r["outputs"])) for r in results.values())
        c.check(len(cases) == expected, f"{len(cases)} testcases, expected {expected}")
        kinds = {(s, n): k for s, n, k, _ in cases}
        c.check(kinds.get(("rmsnorm", "output y")) == "pass", "rmsnorm/y is not a passing testcase")
        c.check(kinds.get(("output-dtype-mismatch", "output y")) == "failure", "dtype mismatch is not a failure")
        c.check(kinds.get(("bad-graph-file", "check")) == "error", "bad graph file is not an <error>")
        cex = [t for s, n, k, t in cases if s == "output-dtype-mismatch"]
        c.check(cex and "counterexample" in cex[0], "the failure does not carry the counterexample")
    c.check(not glob.glob(os.path.join(out, "*.tmp.*")), "temporary files left behind")

# A pair whose HTML report cannot be written (a folder is in the way) is an
# error, never a pass, even though its check said equivalent; the others go on.
with tempfile.TemporaryDirectory() as out:
    os.makedirs(os.path.join(out, "rmsnorm.html"))
    ex = os.path.join(a.source_dir, "examples")
    gate = os.path.join(out, "gate.toml")
    with open(gate, "w") as f:
        f.write('[defaults]\nreport = "always"\n')
        for name, req in (("rmsnorm", "real"), ("rmsnorm-bitwise", "bitwise")):
            f.write(f'[[pair]]\nname = "{name}"\nrequire = "{req}"\nreference = "{ex}/rmsnorm_reference.tvir"\n'
                    f'production = "{ex}/rmsnorm_production.tvir"\n')
    p = run([a.torchtv, "ci", gate, "-j", "2", "--out", out])
    c.check(p.returncode == 3, f"an unwritable report: exit {p.returncode}, expected 3\n{p.stdout}")
    lines = {l.split()[0]: l for l in p.stdout.splitlines() if l.strip()}
    c.check("error" in lines.get("rmsnorm", ""), f"rmsnorm should be an error: {lines.get('rmsnorm')}")
    c.check("equivalent" in lines.get("rmsnorm-bitwise", ""), "the other pair was not decided")
c.done()

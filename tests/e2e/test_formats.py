#!/usr/bin/env python3
"""`check` with --format sarif|junit|github, --explain and --report, through the real CLI."""
import html as entities
import os
import re
import tempfile

from e2e_util import Checker, args, junit_cases, run, sarif_errors

a = args()
c = Checker("output formats")
ex = lambda name: os.path.join(a.source_dir, "examples", name)
golden = lambda name: os.path.join(a.source_dir, "tests/golden", name)
bug = [a.torchtv, "check", ex("rmsnorm_reference.tvir"), ex("rmsnorm_production_bug.tvir")]

with tempfile.TemporaryDirectory() as d:
    # SARIF: schema-valid for every kind of verdict, located at the production source line.
    for label, cmd in {
        "unknown": bug,
        "equivalent": [a.torchtv, "check", ex("rmsnorm_reference.tvir"), ex("rmsnorm_production.tvir")],
        "not_equivalent": [a.torchtv, "check", golden("structural/output_dtype_mismatch.tvir")],
        "error": [a.torchtv, "check", golden("errors/unknown_op.tvir")],
    }.items():
        p = run(cmd + ["--format", "sarif"])
        path = os.path.join(d, label + ".sarif")
        with open(path, "w") as f:
            f.write(p.stdout)
        errors = sarif_errors(a.source_dir, path)
        c.check(not errors, f"{label}: SARIF invalid: {errors[:5]}")
    with open(os.path.join(d, "unknown.sarif")) as f:
        text = f.read()
    c.check('"uri": "fast_rmsnorm.py"' in text and '"startLine": 11' in text,
            "SARIF result is not at the production source line fast_rmsnorm.py:11")

    # JUnit: one testcase per output.
    p = run([a.torchtv, "check", golden("structural/one_output_differs.tvir"), "--format", "junit"])
    path = os.path.join(d, "j.xml")
    with open(path, "w") as f:
        f.write(p.stdout)
    cases = junit_cases(path)
    c.check([(n, k) for _, n, k, _ in cases] == [("output loss", "pass"), ("output grad", "failure")],
            f"JUnit testcases: {cases}")
    c.check(p.returncode == 1, f"junit run exit {p.returncode}")  # grad is refuted

    # GitHub: an ::error at the production source line.
    p = run(bug + ["--format", "github"])
    c.check(re.search(r"^::error file=fast_rmsnorm\.py,line=11,title=torchtv%3A output y not_equivalent::", p.stdout, re.M),
            f"no GitHub annotation at fast_rmsnorm.py:11:\n{p.stdout}")
    p = run([a.torchtv, "check", golden("errors/unknown_op.tvir"), "--format", "github"])
    c.check(re.search(r"^::error file=[^,]*unknown_op\.tvir,line=4,col=16,", p.stdout, re.M),
            f"error annotation lacks file/line/col:\n{p.stdout}")

    # --explain: both sides with their source lines; no colour when piped; JSON stays clean.
    p = run(bug + ["--explain"])
    c.check("! %e = aten::add.Scalar(%ms) {alpha=1, other=1e-06}" in p.stdout, "explain lacks the reference side")
    c.check("! %t2 = aten::add.Scalar(%t1) {alpha=1, other=1e-05}" in p.stdout, "explain lacks the production side")
    c.check("rmsnorm.py:6" in p.stdout and "fast_rmsnorm.py:11" in p.stdout, "explain lacks source lines")
    c.check("\033[" not in p.stdout, "colour codes on a pipe")
    p = run(bug + ["--explain", "--color", "always"])
    c.check("\033[" in p.stdout, "--color always has no colour")
    p = run(bug + ["--explain", "--format", "json"])
    c.check(p.stdout.lstrip().startswith("{") and "explain:" in p.stderr, "--explain with json must go to stderr")

    # --report: drawn with Graphviz, or tables when dot is missing; written whole.
    report = os.path.join(d, "r.html")
    p = run(bug + ["--report", report])
    with open(report) as f:
        html = entities.unescape(f.read())  # Graphviz writes '-' in ids as &#45;
    c.check("<svg" in html and 'class="node tv-divergence"' in html, "report lacks the drawn divergence")
    c.check(html.count('id="ref-n') >= 8 and html.count('id="prod-n') >= 8, "report lacks node ids")
    c.check("http://" not in html.replace('xmlns="http://www.w3.org', "").replace('xmlns:xlink="http://www.w3.org', "")
            .replace('"http://www.w3.org/1999/xlink"', ""), "report refers to a remote resource")
    p = run(bug + ["--report", report], env={**os.environ, "TORCHTV_DOT": "/nonexistent/dot"})
    with open(report) as f:
        html = f.read()
    c.check('id="no-graphviz"' in html and "<svg" not in html and 'class="node tv-divergence"' in html,
            "without dot the report must show tables and say why")
    p = run(bug + ["--report", os.path.join(d, "missing-dir", "r.html")])
    c.check(p.returncode == 3 and "missing-dir" in p.stderr, f"unwritable report: exit {p.returncode} {p.stderr}")
    c.check(not [f for f in os.listdir(d) if ".tmp." in f], "temporary files left behind")
c.done()

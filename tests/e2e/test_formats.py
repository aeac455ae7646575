#!/usr/bin/env python3
"""`check` with --format sarif|junit|github, --explain and --report, through the real CLI."""
import glob
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
# Every format x verdict x --require says what the exit code says (issue 19, item 1).
# The verdicts are not written here: each pair's JSON verdict is the truth, and each
# other format must agree with it and with the exit code.
import json
import xml.etree.ElementTree as ET
pairs = {
    "bitwise-equal": [ex("rmsnorm_reference.tvir"), ex("rmsnorm_production.tvir")],
    "real-only": [golden("normalize/softmax_expanded.tvir")],
    "rounded-only": [golden("prover/rounding/taylor_train_one_24th.tvir")],
    "refuted": [golden("structural/one_output_differs.tvir")],
    "uninterpreted": [golden("normalize/custom_op_uninterpreted.tvir")],
    "bad-input": [golden("errors/unknown_op.tvir")],
}
FAILS = {"equivalent": False, "not_equivalent": True, "unknown": True, "error": True}
with tempfile.TemporaryDirectory() as d:
    seen = set()
    for label, files in pairs.items():
        verdicts = {}
        for require in ("rounded", "real", "bitwise"):
            base = [a.torchtv, "check", *files, "--require", require]
            j = run(base + ["--format", "json"])
            tag = f"{label} --require {require}"
            try:
                verdict = json.loads(j.stdout)["verdict"]
            except ValueError:
                c.check(False, f"{tag}: no JSON: {j.stdout[:300]} {j.stderr[:300]}")
                continue
            verdicts[require] = (verdict, json.loads(j.stdout).get("level"))
            seen.add(verdict)
            fails = FAILS[verdict]
            c.check(j.returncode == {"equivalent": 0, "not_equivalent": 1, "unknown": 2, "error": 3}[verdict],
                    f"{tag}: exit {j.returncode} for verdict {verdict}")
            t = run(base)
            c.check(t.returncode == j.returncode and t.stdout.startswith("torchtv: " + verdict),
                    f"{tag}: text says {t.stdout.splitlines()[:1]}, exit {t.returncode}")
            x = run(base + ["--format", "junit"])
            root = ET.fromstring(x.stdout)
            bad = int(root.get("failures")) + int(root.get("errors"))
            stems = [os.path.splitext(os.path.basename(f))[0] for f in files]
            want = stems[0] if len(stems) == 1 else " vs ".join(stems)
            c.check([s.get("name") for s in root.iter("testsuite")] == [want],
                    f"{tag}: the JUnit suite is not named after the pair ({want})")
            c.check(x.returncode == j.returncode and (bad > 0) == fails,
                    f"{tag}: JUnit failures+errors={bad} for {verdict} (exit {x.returncode})")
            sf = run(base + ["--format", "sarif"])
            path = os.path.join(d, "m.sarif")
            with open(path, "w") as f:
                f.write(sf.stdout)
            errors = sarif_errors(a.source_dir, path)
            c.check(not errors, f"{tag}: SARIF invalid: {errors[:3]}")
            results = json.loads(sf.stdout)["runs"][0]["results"]
            c.check(sf.returncode == j.returncode and bool(results) == fails,
                    f"{tag}: {len(results)} SARIF results for {verdict}")
            g = run(base + ["--format", "github"])
            c.check(g.returncode == j.returncode and ("\n::error " in g.stdout) == fails,
                    f"{tag}: GitHub annotations do not match {verdict}:\n{g.stdout[:500]}")
            report = os.path.join(d, "m.html")
            h = run(base + ["--report", report])
            with open(report) as f:
                page = f.read()
            c.check(h.returncode == j.returncode and f'<header class="v-{verdict}">' in page,
                    f"{tag}: the HTML report's header does not say {verdict}")
        # A real-only proof fails --require bitwise in every format (checked above per format);
        # a rounded-only one fails --require real and bitwise (Note [Equivalence up to rounding]).
        if verdicts.get("real") == ("equivalent", "real"):
            c.check(verdicts.get("bitwise", ("",))[0] == "unknown",
                    f"{label}: equivalent (real) but --require bitwise gives {verdicts.get('bitwise')}")
        if verdicts.get("rounded") == ("equivalent", "rounded"):
            c.check(verdicts.get("real", ("",))[0] == "unknown" and verdicts.get("bitwise", ("",))[0] == "unknown",
                    f"{label}: equivalent (rounded) but --require real gives {verdicts.get('real')}")
    c.check(seen == set(FAILS), f"the matrix covers only the verdicts {sorted(seen)}")

    # The same through `torchtv ci`: a pair's testsuite fails exactly when its verdict does.
    manifest = os.path.join(d, "m.toml")
    with open(manifest, "w") as f:
        for label, files in pairs.items():
            for require in ("rounded", "real", "bitwise"):
                files = [os.path.abspath(f) for f in files]  # the manifest's folder is elsewhere
                keys = (f'reference = "{files[0]}"\nproduction = "{files[1]}"\n' if len(files) == 2
                        else f'graphs = "{files[0]}"\n')
                f.write(f'[[pair]]\nname = "{label}-{require}"\nrequire = "{require}"\n{keys}')
    out = os.path.join(d, "ci")
    p = run([a.torchtv, "ci", manifest, "--out", out, "--no-report"])
    c.check(p.returncode in (1, 3), f"ci: exit {p.returncode}\n{p.stdout}{p.stderr}")
    suites = {s.get("name"): s for s in ET.parse(os.path.join(out, "junit.xml")).getroot().iter("testsuite")}
    with open(os.path.join(out, "results.sarif")) as f:
        sarif_pairs = {r["properties"]["pair"] for r in json.load(f)["runs"][0]["results"]}
    summary = {l.split()[0]: l.split()[1] for l in p.stdout.splitlines()[1:] if l.strip() and not l.startswith("worst")}
    for name, s in suites.items():
        with open(os.path.join(out, name + ".json")) as f:
            verdict = json.load(f)["verdict"]
        fails = int(s.get("failures")) + int(s.get("errors")) > 0
        c.check(fails == FAILS[verdict], f"ci {name}: testsuite failing={fails} but verdict {verdict}")
        c.check((name in sarif_pairs) == FAILS[verdict], f"ci {name}: SARIF results do not match {verdict}")
        c.check(summary.get(name) == verdict, f"ci {name}: summary says {summary.get(name)}, JSON {verdict}")
    c.check(len(suites) == 3 * len(pairs), f"ci: {len(suites)} testsuites")
    c.check(not glob.glob(os.path.join(out, "*.html")), "ci --no-report wrote HTML reports")

    # SARIF paths for code scanning (item 6): repository-relative URIs against %SRCROOT%,
    # which originalUriBaseIds gives as an absolute file URI ending in '/'; the same
    # relative path in ::error annotations. GitHub's documented requirements: ruleId,
    # message.text, and locations whose physicalLocation.artifactLocation.uri is relative
    # to the repository root; region.startLine >= 1 when a region is given.
    tv, src = os.path.abspath(a.torchtv), os.path.abspath(a.source_dir)
    bug_abs = [tv, "check", os.path.abspath(ex("rmsnorm_reference.tvir")),
               os.path.abspath(ex("rmsnorm_production_bug.tvir")), "--source-root", src]
    sf = run(bug_abs + ["--format", "sarif"], cwd=d)
    log = json.loads(sf.stdout)
    run0 = log["runs"][0]
    root_uri = run0.get("originalUriBaseIds", {}).get("%SRCROOT%", {}).get("uri", "")
    c.check(root_uri.startswith("file:///") and root_uri.endswith("/"), f"originalUriBaseIds: {root_uri!r}")
    uris = []
    for r in run0["results"]:
        c.check(r.get("ruleId") and r.get("message", {}).get("text"), "a result lacks ruleId or message.text")
        for loc in r.get("locations", []) + r.get("relatedLocations", []):
            art = loc["physicalLocation"]["artifactLocation"]
            uris.append(art["uri"])
            c.check(art.get("uriBaseId") == "%SRCROOT%" and not art["uri"].startswith(("/", "file:")),
                    f"artifact location not relative to %SRCROOT%: {art}")
            region = loc["physicalLocation"].get("region")
            c.check(region is None or region.get("startLine", 0) >= 1, f"bad region {region}")
    c.check("examples/rmsnorm_production_bug.tvir" in uris, f"the graph file is not repository-relative: {uris}")
    g = run(bug_abs + ["--format", "github"], cwd=d)
    c.check(re.search(r"^::error file=fast_rmsnorm\.py,line=11,", g.stdout, re.M), f"annotation path:\n{g.stdout[:300]}")
    g = run([tv, "check", os.path.abspath(golden("errors/unknown_op.tvir")), "--format", "github",
             "--source-root", src], cwd=d)
    c.check(re.search(r"^::error file=tests/golden/errors/unknown_op\.tvir,line=4,", g.stdout, re.M),
            f"error annotation is not repository-relative:\n{g.stdout[:300]}")

    # A drawing that cannot finish says so (item 2): not "install graphviz" when dot is there.
    slow = os.path.join(d, "slow-dot")
    with open(slow, "w") as f:
        f.write("#!/bin/sh\nsleep 30\n")
    os.chmod(slow, 0o755)
    report = os.path.join(d, "slow.html")
    p = run(bug + ["--report", report], env={**os.environ, "TORCHTV_DOT": slow}, timeout=120)
    with open(report) as f:
        page = f.read()
    c.check('id="no-graphviz"' in page and "within the report" in page and "Install" not in page,
            "a drawing that ran out of time must say so, without an install hint")
    c.check('class="node tv-divergence"' in page, "the timed-out drawing has no table fallback")

# Level rounded names what was rounded where, with its bound, in every format (issue 34, item 2).
rounded = [a.torchtv, "check", golden("prover/rounding/taylor_train_one_24th.tvir")]
site = "constants 1/24 (reference) and 0.041666666666666664 (production), computed in f64, taylor.py:14"
t = run(rounded)
c.check(t.returncode == 0 and t.stdout.startswith("torchtv: equivalent (rounded)") and "  rounded: " + site in t.stdout
        and "not of the outputs" in t.stdout, f"text lacks the rounded site:\n{t.stdout}")
j = json.loads(run(rounded + ["--format", "json"]).stdout)
first = (j.get("roundings") or [{}])[0]
c.check(j["level"] == "rounded" and first.get("kind") == "constants" and first.get("location") == "taylor.py:14"
        and first.get("reference") == "1/24" and 0 < first.get("bound", 0) < 2 ** -52,
        f"JSON roundings: {j.get('roundings')}")
c.check(any(o.get("roundings") for o in j["outputs"]), "JSON outputs carry no roundings")
x = run(rounded + ["--format", "junit"]).stdout
c.check('name="rounded"' in x and "taylor.py:14" in x, f"JUnit lacks the rounded property:\n{x[:800]}")
sf = json.loads(run(rounded + ["--format", "sarif"]).stdout)
props = sf["runs"][0].get("properties", {}).get("roundings", [])
c.check(any(r.get("location") == "taylor.py:14" for r in props), f"SARIF lacks the roundings: {props}")
g = run(rounded + ["--format", "github"]).stdout
c.check(re.search(r"^::notice file=taylor\.py,line=14,title=torchtv%3A equal up to rounding::constants 1/24", g, re.M),
        f"no GitHub notice at taylor.py:14:\n{g}")
with tempfile.TemporaryDirectory() as d:
    report = os.path.join(d, "rounded.html")
    run(rounded + ["--report", report])
    with open(report) as f:
        page = entities.unescape(f.read())
    c.check('id="roundings"' in page and site in page, "the HTML report lacks the rounded sites")
    t = run(rounded + ["--require", "real"])
    c.check(t.returncode == 2 and "--require real was given" in t.stdout and "  rounded: " + site in t.stdout,
            f"--require real: exit {t.returncode}:\n{t.stdout}")

c.done()


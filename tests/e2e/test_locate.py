#!/usr/bin/env python3
"""Issue 36, items 1 and 2: the root cause named first, at any depth, and one alert per cause.

tests/e2e/locate/dk_scale_backward.py is a transformer train step (attention and a ReLU MLP per
layer, hand-written forward and backward against autograd) whose attention backward scales by
1/dk where the reference's is 1/sqrt(dk), at line 13, in every layer. It is verified at 4 layers
and at 64 (smaller dims, the same lines), in every format (JSON, JUnit and SARIF from one `torchtv
ci` run, its annotations.txt as `verify --format github` writes them, text at 4 layers):

- text: the first site named is line 13 (not the ReLU mask `u > 0`, whose autograd counterpart is
  the complementary `u <= 0`), with the run of that line ("run k of N of this line"), and the
  first differing intermediate is at line 13; the gradients of `*ws` are numbered from ws[0];
- github: one annotation at line 13, the first one; SARIF: one result at line 13, the first;
  JSON: one cause at line 13 holding the refuted outputs; JUnit: every refuted output names it.

Before the change the text named `aten::gt.Scalar` at line 59 first and the first differing
intermediate at line 68; github gave one annotation per output (20 at line 59 at 4 layers).
"""
import json
import os
import re
import tempfile

from e2e_util import Checker, args, junit_cases, run

a = args()
c = Checker("locate")
PAIR = os.path.join(a.source_dir, "tests/e2e/locate/dk_scale_backward.py")
BUG_LINE = 13


def variant(d, layers, dims):
    """The pair at `layers` layers and dims (B, T, D, F): lines 9 and 10 rewritten, so every
    other line keeps its number."""
    with open(PAIR) as f:
        lines = f.read().split("\n")
    assert lines[8].startswith("N_LAYERS = ") and lines[9].startswith("B, T, D, F = ")
    lines[8] = "N_LAYERS = %d" % layers
    lines[9] = "B, T, D, F = %d, %d, %d, %d" % dims
    folder = os.path.join(d, "L%d" % layers)
    os.makedirs(folder)
    path = os.path.join(folder, "dk_scale_backward.py")
    with open(path, "w") as f:
        f.write("\n".join(lines))
    return path


def at_bug(loc):
    return loc is not None and re.search(r"dk_scale_backward\.py:%d$" % BUG_LINE, loc)


with tempfile.TemporaryDirectory() as d:
    # Each depth is decided once by `torchtv ci` (its JSON, JUnit, SARIF and annotations of one
    # decision); the text once more at 4 layers. The proof cache is shared.
    cache = os.path.join(d, "cache.sqlite")
    for layers, dims in ((4, (2, 4, 16, 32)), (64, (1, 4, 8, 16))):
        pair = variant(d, layers, dims)
        tag = "%d layers" % layers
        cwd = os.path.dirname(pair)
        with open(os.path.join(cwd, "torchtv-ci.toml"), "w") as f:
            f.write('[defaults]\nreport = "never"\ntimeout = 1500\n\n[[pair]]\nname = "dk"\npair = "%s"\n'
                    % os.path.basename(pair))
        out = os.path.join(cwd, "out")
        p = run([a.torchtv, "ci", "torchtv-ci.toml", "--out", out, "--cache", cache], timeout=1600, cwd=cwd)
        c.check(p.returncode == 1, f"{tag}: ci exit {p.returncode}, expected 1 (not_equivalent): {p.stderr[-500:]}")
        if not os.path.exists(os.path.join(out, "dk.json")):
            continue
        with open(os.path.join(out, "dk.json")) as f:
            result = json.load(f)
        refuted = [o["name"] for o in result["outputs"] if o["verdict"] == "not_equivalent"]
        causes = result["causes"]
        c.check(refuted, f"{tag}: nothing refuted")
        c.check(causes and at_bug((causes[0]["production_site"] or {}).get("loc")),
                f"{tag}: the first cause is not line {BUG_LINE}: {causes[:2]}")
        at_line = [x for x in causes if at_bug((x["production_site"] or {}).get("loc"))]
        c.check(len(at_line) == 1, f"{tag}: {len(at_line)} causes at line {BUG_LINE}, expected one")
        c.check(at_line and set(refuted) <= set(at_line[0]["outputs"]),
                f"{tag}: refuted outputs not grouped under line {BUG_LINE}: {refuted} vs {at_line[:1]}")
        site = (causes[0]["production_site"] or {}) if causes else {}
        c.check(site.get("runs") == layers and 1 <= site.get("run", 0) <= layers,
                f"{tag}: the cause does not say which of the {layers} runs of line {BUG_LINE} it is: {site}")
        first = (result["counterexample"] or {}).get("first_difference") or {}
        c.check(at_bug((first.get("production") or {}).get("loc")),
                f"{tag}: the first differing intermediate is not at line {BUG_LINE}: {first.get('production')}")
        c.check(not [o for o in result["outputs"] if o["name"].startswith("grad_ws") and o["name"] != "grad_ws0"
                     and o["name"][len("grad_ws"):].isdigit() and int(o["name"][len("grad_ws"):]) >= 6 * layers],
                f"{tag}: *ws gradients are not numbered from 0")

        with open(os.path.join(out, "results.sarif")) as f:
            results = json.load(f)["runs"][0]["results"]
        lines = [r["locations"][0]["physicalLocation"].get("region", {}).get("startLine") for r in results]
        c.check(lines and lines[0] == BUG_LINE and lines.count(BUG_LINE) == 1,
                f"{tag}: SARIF results at lines {lines[:5]}, expected one, first, at {BUG_LINE}")
        c.check(len(results) == len(causes), f"{tag}: {len(results)} SARIF results for {len(causes)} causes")

        failing = {n[len("output "):]: text for _, n, k, text in junit_cases(os.path.join(out, "junit.xml"))
                   if k == "failure"}
        missing = [o for o in refuted if "dk_scale_backward.py:%d" % BUG_LINE not in failing.get(o, "")]
        c.check(not missing, f"{tag}: JUnit failures of {missing[:3]} do not name line {BUG_LINE}")

        # ci's annotations.txt: the workflow commands `verify --format github` writes (one emitter,
        # Note [Annotations from ci]), from the same decision, which costs no second one
        with open(os.path.join(out, "annotations.txt")) as f:
            errors = re.findall(r"^::error file=([^,]*),line=(\d+)", f.read(), re.M)
        c.check(errors and errors[0] == ("dk_scale_backward.py", str(BUG_LINE)),
                f"{tag}: the first annotation is {errors[:1]}, not line {BUG_LINE}")
        c.check(errors.count(("dk_scale_backward.py", str(BUG_LINE))) == 1,
                f"{tag}: {errors.count(('dk_scale_backward.py', str(BUG_LINE)))} annotations at line {BUG_LINE}")
        c.check(len(errors) <= len(causes), f"{tag}: {len(errors)} annotations for {len(causes)} causes")

        if layers == 4:
            p = run([a.torchtv, "verify", pair, "--cache", cache], timeout=1600, cwd=cwd)
            named = re.findall(r"production(?: diverges at|'s) %\S+ = \S+ \(([^,)]+)", p.stdout)
            c.check(named and at_bug(named[0]), f"{tag}: the text names {named[:1]} first, not line {BUG_LINE}")
            c.check(re.search(r"first differing intermediate: production %%\S+ = \S+ at \S*dk_scale_backward\.py:%d "
                              % BUG_LINE, p.stdout), f"{tag}: text's first differing intermediate is not at line {BUG_LINE}")
            c.check("of %d of this line" % layers in p.stdout, f"{tag}: the text does not name the run of the line")
c.done()

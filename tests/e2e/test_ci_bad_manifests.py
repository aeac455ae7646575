#!/usr/bin/env python3
"""Bad manifests exit 3 before running anything, naming the entry and its line."""
import os
import tempfile

from e2e_util import Checker, args, run

a = args()
c = Checker("ci bad manifests")
ref = os.path.join(a.source_dir, "examples/rmsnorm_reference.tvir")
prod = os.path.join(a.source_dir, "examples/rmsnorm_production.tvir")
good = f'[[pair]]\nname = "ok"\nreference = "{ref}"\nproduction = "{prod}"\n'

cases = {
    "missing file": (good + '\n[[pair]]\nname = "lost"\nreference = "nope.tvir"\nproduction = "' + prod + '"\n',
                     ['pair "lost"', "nope.tvir", "does not exist", "manifest.toml:8"]),
    "bad key": (good + '\n[[pair]]\nname = "typo"\ngraph = "x.tvir"\n', ['pair "typo"', 'unknown key "graph"']),
    "duplicate name": (good + "\n" + good, ['pair "ok"', "duplicate name", "manifest.toml:7"]),
    "bad require": (good + 'require = "exact"\n', ['pair "ok"', '"require" must be']),
    "bad report policy": (good + 'report = "sometimes"\n', ['pair "ok"', '"report" must be "always", "failures" or "never"']),
    "two kinds": (good + 'graphs = "x.tvir"\n', ['pair "ok"', "exactly one of"]),
    "no pairs": ("[defaults]\ntimeout = 5\n", ["lists no pairs"]),
    "toml syntax": ('[[pair]]\nname = "x\n', ["not a valid TOML manifest", "manifest.toml:2"]),
    "unsafe name": (good.replace('"ok"', '"../evil"'), ['pair "../evil"', "may only hold"]),
    "top-level key": ("pairs = 1\n" + good, ['unknown top-level key "pairs"']),
    # Note [Manifest timeouts]: each overflowed the runner's integer milliseconds.
    "nan timeout": (good + "timeout = nan\n", ['pair "ok"', '"timeout" must be a positive number', "at most 604800"]),
    "inf timeout": ("[defaults]\ntimeout = inf\n" + good, ['"timeout" must be a positive number']),
    "huge timeout": (good + "timeout = 1e300\n", ['pair "ok"', "at most 604800"]),
    "untrusted not a bool": (good + "untrusted = \"yes\"\n", ['pair "ok"', '"untrusted" must be true or false']),
    # Note [Expected verdicts]: only what a gate can accept, and a reason only with an expectation.
    "expect equivalent": (good + 'expect = "equivalent"\n', ['pair "ok"', '"expect" must be "unknown" or "not_equivalent"']),
    "expect an output to error": (good + 'expect = { loss = "error" }\n', ['pair "ok"', '"expect" must be']),
    "expect no outputs": (good + 'expect = {}\n', ['pair "ok"', '"expect" names no outputs']),
    "why without expect": (good + 'why = "flaky"\n', ['pair "ok"', '"why" explains an "expect"']),
}
for label, (text, wants) in cases.items():
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "manifest.toml")
        with open(path, "w") as f:
            f.write(text)
        out = os.path.join(d, "reports")
        p = run([a.torchtv, "ci", path, "--out", out])
        c.check(p.returncode == 3, f"{label}: exit {p.returncode}, expected 3\n{p.stderr}")
        for want in wants:
            c.check(want in p.stderr, f"{label}: stderr lacks {want!r}: {p.stderr.strip()}")
        c.check(not os.path.exists(os.path.join(out, "ok.json")), f"{label}: pairs ran despite a bad manifest")
# Note [Manifests must be UTF-8]: a bad byte in a string once overflowed toml11's buffer.
with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "manifest.toml")
    with open(path, "wb") as f:
        f.write(good.encode() + b"require = '\xff\xfe'\n")
    p = run([a.torchtv, "ci", path, "--out", os.path.join(d, "reports")])
    c.check(p.returncode == 3 and "manifest.toml:5:12" in p.stderr and "not UTF-8" in p.stderr,
            f"a manifest that is not UTF-8: exit {p.returncode} {p.stderr}")
with tempfile.TemporaryDirectory() as d:
    p = run([a.torchtv, "ci", os.path.join(d, "absent.toml")])
    c.check(p.returncode == 3 and "absent.toml" in p.stderr, f"a missing manifest: exit {p.returncode} {p.stderr}")
c.done()

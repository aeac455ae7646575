#!/usr/bin/env python3
"""The CLI's own words (issue 19): usage errors with a suggestion and exit 3, --stop-after
saying it decided nothing, the text summary at scale, and --timeout bounding the capture."""
import os
import re
import sys
import tempfile

from e2e_util import Checker, args, run

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/
import json_stream  # noqa: E402

a = args()
c = Checker("cli")
tv = a.torchtv
ex = lambda name: os.path.join(a.source_dir, "examples", name)
pair = [ex("rmsnorm_reference.tvir"), ex("rmsnorm_production.tvir")]


def usage(cmd, *wants):
    p = run([tv] + cmd)
    c.check(p.returncode == 3, f"{cmd}: exit {p.returncode}, want 3 (usage error)\n{p.stderr}")
    for w in wants:
        c.check(w in p.stderr, f"{cmd}: stderr lacks {w!r}:\n{p.stderr}")
    c.check("not expected" not in p.stderr and "FAILED" not in p.stderr and "subcommand" not in p.stderr,
            f"{cmd}: CLI11's words leak:\n{p.stderr}")
    return p


usage(["check", *pair, "--requre", "bitwise"], "unknown option --requre; did you mean --require?")
usage(["frobnicate"], "unknown command 'frobnicate'; commands are: check, verify")
usage(["verfy", "x.py"], "did you mean verify?")
usage([], "a command is required")
p = usage(["check", *pair, "--timeout", "-1"], "--timeout", "-1", ">= 0")
c.check(not re.search(r"\d{20}", p.stderr), f"a huge bound is printed:\n{p.stderr}")
usage(["check", *pair, "--timeout", "soon"], "'soon' is not a number")
usage(["check", *pair, "--format", "xml"], "unknown format 'xml'; one of text, json, sarif, junit, github")
usage(["check", *pair, "--require", "exact"], "unknown level 'exact'; one of rounded, real, bitwise")
usage(["ci", "m.toml", "-j", "0"], "--jobs", ">= 1")
usage(["show", "model.py"], "torchtv capture model.py", "torchtv verify model.py")
c.check(run([tv, "check", "--help"]).returncode == 0, "--help is not exit 0")


def refused(cmd, *wants):
    """An input error (exit 3) whose message says what to do instead."""
    p = run([tv] + cmd)
    c.check(p.returncode == 3, f"{cmd}: exit {p.returncode}, want 3\n{p.stdout}{p.stderr}")
    for w in wants:
        c.check(w in p.stdout + p.stderr, f"{cmd}: output lacks {w!r}:\n{p.stdout}{p.stderr}")


# A newcomer's first commands (issue 36, item 7): global flags after the command, a folder, a
# README or a graph file where a pair file goes, a pair file where graph files go.
with tempfile.TemporaryDirectory() as tmp:
    refused(["verify", "-v", os.path.join(tmp, "absent.py")], "no such pair file")
    refused(["verify", tmp], "is a directory without pair files")
    open(os.path.join(tmp, "p.py"), "w").close()
    refused(["verify", tmp], "torchtv verify --each " + tmp + "/*.py")
    refused(["verify", os.path.join(a.source_dir, "README.md")], "is not a Python pair file")
    refused(["verify", pair[0]], "a graph file is decided with torchtv check")
    refused(["check", os.path.join(tmp, "p.py"), pair[1]], "torchtv verify " + os.path.join(tmp, "p.py"))
    # a train step's tuple returned without MODE = "train_step": the capture says to set it
    with open(os.path.join(tmp, "no_mode.py"), "w") as f:
        f.write("import torch\n"
                "def example_inputs():\n    return (torch.randn(3, requires_grad=True),)\n"
                "def reference(x):\n    return (x * x).sum()\n"
                "def production(x):\n    return (x * x).sum(), 2 * x\n")
    refused(["verify", "--no-cache", os.path.join(tmp, "no_mode.py")], 'set MODE = "train_step"')

# --stop-after: nothing decided, so never the exit code of a verdict that passes.
bug = [ex("rmsnorm_reference.tvir"), ex("rmsnorm_production_bug.tvir")]
for stage in ("read", "normalize"):
    p = run([tv, "check", *bug, "--stop-after", stage])
    c.check(p.returncode == 2 and "nothing was decided" in p.stdout,
            f"--stop-after {stage}: exit {p.returncode}: {p.stdout}{p.stderr}")

# --each (Note [Checking each file]): one-file pairs decided in one process, one JSON document
# each, in order, with the worst verdict's exit code; what fits one pair only is refused.
golden = os.path.join(a.source_dir, "tests", "golden")
same = os.path.join(golden, "prover", "elementwise", "double_as_add.tvir")
differs = os.path.join(golden, "prover", "elementwise", "reassociated_add__wrong_operand.tvir")
broken = os.path.join(golden, "errors", "wrong_arity.tvir")
for files, want_codes, want_exit in (([same, same], [0, 0], 0), ([same, differs, same], [0, 1, 0], 1),
                                     ([broken, differs], [3, 1], 3)):
    p = run([tv, "check", "--each", *files, "--format", "json"])
    docs = json_stream.documents(p.stdout)
    c.check([d["exit_code"] for d in docs] == want_codes and p.returncode == want_exit,
            f"--each {files}: exit {p.returncode}, per file {[d['exit_code'] for d in docs]}\n{p.stderr}")
usage(["check", "--each", same, same, "--format", "sarif"], "--each prints text or json", "torchtv ci")
usage(["check", "--each", same, "--report", "r.html"], "--each does not take --report")
usage(["check", same, same, same], "check takes REF PROD", "--each")

with tempfile.TemporaryDirectory() as d:
    # Text at scale: the counts first, then the failing outputs, then one line for the proven.
    names = [f"o{i}" for i in range(12)]
    sig = ", ".join("f32[4]" for _ in names)
    def graph(tag, last_op):
        body = "".join(f"  %{n}: f32[4] = aten::{'neg' if i < len(names) - 2 else last_op}(%x)\n"
                       for i, n in enumerate(names))
        return f"graph @{tag}(%x: f32[4]) -> ({sig}) {{\n{body}  return {', '.join('%' + n for n in names)}\n}}\n"
    path = os.path.join(d, "many.tvir")
    with open(path, "w") as f:
        f.write(graph("reference", "relu") + graph("production", "abs"))
    p = run([tv, "check", path])
    lines = p.stdout.splitlines()
    c.check(p.returncode == 1, f"many outputs: exit {p.returncode}\n{p.stdout}{p.stderr}")
    counts = re.search(r"(\d+) outputs: (\d+) proven, (\d+) refuted, (\d+) unknown", lines[1] if len(lines) > 1 else "")
    c.check(counts and counts.groups() == ("12", "10", "2", "0"), f"no counts line second:\n{p.stdout}")
    # o10 and o11 are one node after CSE: one cause, its outputs listed under it
    failing = [i for i, l in enumerate(lines) if re.match(r" +output o1[01]: not_equivalent", l)]
    proven = [i for i, l in enumerate(lines) if l.startswith("  proven equivalent: ")]
    c.check(len(failing) == 2 and len(proven) == 1 and failing[-1] < proven[0],
            f"failing outputs, then one line for the proven ones:\n{p.stdout}")
    c.check(not any(re.match(r"  output o[0-9]: equivalent", l) for l in lines), "proven outputs listed without -v")
    v = run([tv, "-v", "check", path])
    c.check(sum(1 for l in v.stdout.splitlines() if re.match(r"  output o\d+: equivalent", l)) == 10,
            f"-v does not list each proven output:\n{v.stdout}")
    s = run([tv, "check", *pair, "--self-check"])
    c.check(re.search(r"^  self-check: .*agreed", s.stdout, re.M), f"--self-check outcome not shown:\n{s.stdout}")
    s = run([tv, "check", *bug, "--self-check"])
    c.check(re.search(r"^  self-check: not run", s.stdout, re.M), f"--self-check not-run not shown:\n{s.stdout}")

    # --timeout bounds the capture: a pair whose example_inputs() sleeps far longer
    # comes back unknown, naming the time limit, not with a verdict after the sleep.
    slow = os.path.join(d, "slow_pair.py")
    with open(slow, "w") as f:
        f.write("import time\nimport torch\n\n\ndef example_inputs():\n    time.sleep(120)\n"
                "    return (torch.randn(4),)\n\n\ndef reference(x):\n    return x * 2\n\n\n"
                "def production(x):\n    return x + x\n")
    try:
        p = run([tv, "verify", slow, "--timeout", "3", "--format", "json"], timeout=100)
        c.check(p.returncode == 2 and '"unknown"' in p.stdout and "time limit" in p.stdout,
                f"verify --timeout 3 on a slow capture: exit {p.returncode}\n{p.stdout[:600]}{p.stderr[-600:]}")
    except Exception as e:  # the capture was not bounded
        c.check(False, f"verify --timeout 3 did not bound the capture: {e}")

    # Progress on a terminal only (Note [Progress line]): a pair whose capture sleeps
    # past the line's first second shows the stage on a terminal, nothing on a pipe.
    napping = os.path.join(d, "napping_pair.py")
    with open(napping, "w") as f:
        f.write("import time\nimport torch\n\n\ndef example_inputs():\n    time.sleep(3)\n"
                "    return (torch.randn(4),)\n\n\ndef reference(x):\n    return x * 2\n\n\n"
                "def production(x):\n    return x + x\n")
    import pty
    import subprocess
    master, slave = pty.openpty()
    proc = subprocess.Popen([tv, "verify", napping], stdout=subprocess.PIPE, stderr=slave, text=True)
    os.close(slave)
    seen = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    out = proc.communicate(timeout=120)[0]
    os.close(master)
    c.check(b"torchtv: capturing the pair file" in seen, f"no progress line on a terminal: {seen[-300:]!r}")
    c.check(out.startswith("torchtv: "), f"the result is not on stdout: {out[:200]}")
    p = run([tv, "verify", napping])
    c.check("\r" not in p.stderr and "capturing" not in p.stderr, f"progress on a pipe: {p.stderr[-300:]!r}")
c.done()

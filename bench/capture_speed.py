#!/usr/bin/python3
"""torchtv's capture against torch's own make_fx on the same functions (issue 22 item 3).

    /usr/bin/python3 bench/capture_speed.py                        # real L8, L64; 405b L126
    /usr/bin/python3 bench/capture_speed.py --pairs real:8 --baseline-package OLD/src/capture

For each pair (bench/gen_transformer.py sizes and layer counts; shape-only, fake tensors) a child
forked once torch is imported loads the pair file and measures, alternately, --repeat times
after one round that warms up (lazy imports and caches of the first trace in a process):
  make_fx  torch's make_fx of the same two functions torchtv traces, in the same mode (the
           FakeTensorMode of torchtv_capture.fake, the same fake inputs): the reference's joint
           forward+backward (loss, then autograd.grad of it w.r.t. the inputs requiring grad) and
           production on detached inputs; nothing else
  capture  torchtv_capture's whole capture of the loaded pair, written to a directory: both
           traces, the fusion graphs, the JSON graphs, the eager cross-check, the code files
and the capture's CPU time by phase (exclusive: a phase's time excludes the phases it calls).
Times are the least of the repeats, wall and CPU (the process's; other load on a shared machine
inflates wall only). --baseline-package DIR (a directory holding an older torchtv_capture, e.g.
from `git archive`) measures that package too, in the same run. Then each package's capture is
run as its own process (`python -m torchtv_capture PAIR -o DIR`, what `torchtv capture` runs):
end to end, with Python's start and torch's import, and the peak memory; against it the make_fx
of the same two functions as a process of its own (`capture_speed.py --make-fx-only PAIR`: the
same imports, the pair file loaded, the two traces). Writes --out/capture.md and capture.json
(default bench/results).
"""
import argparse
import datetime
import json
import os
import resource
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cuts  # noqa: E402
import gen_transformer  # noqa: E402
import measure  # noqa: E402

REPO = measure.REPO
PACKAGE = measure.CAPTURE_SRC
MAX_RATIO = 1.5   # issue 22: capture within 1.5x of make_fx


def _clock():
    return time.perf_counter(), time.process_time()


# The capture's phases: functions of torchtv_capture.capture's namespace (or cli's), by the name
# the capture calls them; a package without one of them just lacks the phase.
PHASES = {"trace_joint": "trace", "trace_forward": "trace", "trace_production": "trace",
          "_capture_fusion": "fusions", "graph_to_json": "export", "eager_check": "eager check",
          "code_files": "code files", "write_dir": "write"}


def _instrument(modules, times):
    stack = []

    def wrap(fn, phase):
        def timed(*args, **kwargs):
            start = time.process_time()
            stack.append(0.0)
            try:
                return fn(*args, **kwargs)
            finally:
                took = time.process_time() - start
                inner = stack.pop()
                times[phase] = times.get(phase, 0.0) + took - inner
                if stack:
                    stack[-1] += took
        return timed

    for mod in modules:
        for name, phase in PHASES.items():
            if hasattr(mod, name):
                setattr(mod, name, wrap(getattr(mod, name), phase))


def _plain_make_fx(pair, torch, make_fx):
    """make_fx of the joint reference and of production, as torch traces them (no torchtv)."""
    inputs = pair.example_inputs
    detached = tuple(t.detach() for t in inputs)
    if pair.mode == "train_step":
        req = [i for i, t in enumerate(inputs) if t.requires_grad]

        def joint(*args):
            loss = pair.reference(*args)
            grads = torch.autograd.grad(loss, [args[i] for i in req], allow_unused=True)
            return (loss,) + tuple(torch.zeros_like(args[i]) if g is None else g
                                   for i, g in zip(req, grads))
        ref = make_fx(joint)(*inputs)
    else:
        ref = make_fx(pair.reference)(*detached)
    prod = make_fx(pair.production)(*detached)
    return len(ref.graph.nodes), len(prod.graph.nodes)


def _measure_in_child(pair_path, package, repeat):
    """Runs in the forked child: the in-process numbers of one pair with one package."""
    sys.path.insert(0, package)
    import torch
    from torch.fx.experimental.proxy_tensor import make_fx
    from torchtv_capture import capture as cap, cli
    from torchtv_capture.fake import fake_capture
    from torchtv_capture.pairfile import load_pair
    phases = {}
    _instrument((cap, cli), phases)
    pair = load_pair(pair_path)
    out_dir = tempfile.mkdtemp(prefix="capture-speed-")
    best = {}

    def keep(key, wall, cpu, extra=None):
        if key not in best or wall < best[key]["seconds"]:
            best[key] = dict(extra or {}, seconds=wall, cpu_seconds=cpu)

    try:
        for k in range(repeat + 1):   # the first round warms up (lazy imports, caches): not kept
            w, c = _clock()
            with fake_capture(pair):
                nodes = _plain_make_fx(pair, torch, make_fx)
            w2, c2 = _clock()
            if k:
                keep("make_fx", w2 - w, c2 - c, {"nodes": nodes})
            phases.clear()
            result = cap.capture_loaded_pair(pair)
            cli.write_dir(result, os.path.join(out_dir, "cap"), True)
            w3, c3 = _clock()
            if k:
                keep("capture", w3 - w2, c3 - c2, {"phases": dict(phases)})
    finally:
        shutil.rmtree(out_dir, ignore_errors=True)
    best["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    return best


def in_process(pair_path, package, repeat):
    """Forks a child (torch is imported, no pair file is loaded) that measures; its result."""
    rd, wr = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(rd)
        code = 1
        try:
            res = _measure_in_child(pair_path, package, repeat)
            code = 0
        except BaseException as e:  # reported, not raised: the parent goes on with other pairs
            res = {"error": "%s: %s" % (type(e).__name__, str(e)[:300])}
        with os.fdopen(wr, "w") as f:
            json.dump(res, f)
        os._exit(code)
    os.close(wr)
    with os.fdopen(rd) as f:
        data = f.read()
    os.waitpid(pid, 0)
    return json.loads(data) if data else {"error": "the child died"}


def _process(cmd, package, repeat, timeout):
    """Best of `repeat` runs of cmd as its own process, with `package` on PYTHONPATH."""
    env = dict(os.environ, PYTHONPATH=package)
    runs = [measure.run(cmd, timeout, env) for _ in range(repeat)]
    best = min(runs, key=lambda r: r.seconds)
    return {"seconds": best.seconds, "cpu_seconds": min(r.cpu_seconds for r in runs),
            "peak_mb": max(r.peak_mb for r in runs), "ok": all(r.rc == 0 for r in runs),
            "error": next((r.stderr[-300:] for r in runs if r.rc != 0), None)}


def end_to_end(pair_path, package, repeat, timeout):
    out = tempfile.mkdtemp(prefix="capture-speed-")
    try:
        return _process([measure.TORCH_PYTHON, "-m", "torchtv_capture", pair_path, "-o",
                         os.path.join(out, "cap"), "--force"], package, repeat, timeout)
    finally:
        shutil.rmtree(out, ignore_errors=True)


def make_fx_process(pair_path, repeat, timeout):
    return _process([measure.TORCH_PYTHON, os.path.abspath(__file__), "--make-fx-only", pair_path],
                    PACKAGE, repeat, timeout)


def make_fx_only(pair_path):
    """The make_fx of a pair's two functions and nothing else, in this process (imports included)."""
    import torch
    from torch.fx.experimental.proxy_tensor import make_fx
    from torchtv_capture.fake import fake_capture
    from torchtv_capture.pairfile import load_pair
    pair = load_pair(pair_path)
    with fake_capture(pair):
        _plain_make_fx(pair, torch, make_fx)
    return 0


def startup(package, repeat):
    """Python's start and the imports a capture needs (torch, make_fx), as a process."""
    return _process([measure.TORCH_PYTHON, "-c", "import torchtv_capture.capture"], package, repeat,
                    None)["seconds"]


def _f(x, fmt="%.2f"):
    return "-" if x is None else fmt % x


def _ratio(a, b):
    return a / b if a is not None and b else None


def markdown(res, args, head, load):
    lines = ["# Capture speed: torchtv capture against make_fx (issue 22)", "",
             "Commit %s; %s; load average %s at the start, %s at the end; best of %d."
             % (head, res["date"], load[0], load[1], args.repeat), "",
             "Reproduce: `/usr/bin/python3 bench/capture_speed.py%s`" % res["argv"], "",
             "In one process per pair (torch imported): `make_fx` traces the two functions torchtv "
             "traces (joint reference, production) in torchtv's fake mode; `capture` is torchtv's "
             "whole capture to a directory. Wall seconds (CPU seconds). Target: capture / make_fx "
             "<= %.1f." % MAX_RATIO, ""]
    pkgs = [p for p in ("current", "baseline") if p in res["packages"]]
    hdr = "| pair | nodes (ref/prod) | make_fx | capture | capture / make_fx (CPU) |"
    sep = "|---|---|---|---|---|"
    if "baseline" in pkgs:
        hdr += " baseline capture | baseline / make_fx (CPU) | baseline / capture |"
        sep += "---|---|---|"
    lines += [hdr, sep]
    for p in res["pairs"]:
        cur = p["current"]
        if "error" in cur:
            lines.append("| %s | error: %s |" % (p["name"], cur["error"]))
            continue
        mf, c = cur["make_fx"], cur["capture"]
        row = "| %s | %d/%d | %s (%s) | %s (%s) | %sx (%sx) |" % (
            p["name"], mf["nodes"][0], mf["nodes"][1], _f(mf["seconds"]), _f(mf["cpu_seconds"]),
            _f(c["seconds"]), _f(c["cpu_seconds"]), _f(_ratio(c["seconds"], mf["seconds"])),
            _f(_ratio(c["cpu_seconds"], mf["cpu_seconds"])))
        if "baseline" in pkgs:
            b = p["baseline"].get("capture")
            bm = p["baseline"].get("make_fx")
            row += " %s (%s) | %sx (%sx) | %sx |" % (
                _f(b and b["seconds"]), _f(b and b["cpu_seconds"]),
                _f(b and _ratio(b["seconds"], bm["seconds"])),
                _f(b and _ratio(b["cpu_seconds"], bm["cpu_seconds"])),
                _f(b and _ratio(b["seconds"], c["seconds"])))
        lines.append(row)
    lines += ["", "Where the capture's time goes (CPU seconds, exclusive: `trace` is the two traces, "
              "`fusions` the FUSIONS graphs' traces, `export` the JSON graphs, `other` the rest):", ""]
    names = ["trace", "fusions", "export", "eager check", "code files", "write", "other"]
    lines += ["| pair | package | " + " | ".join(names) + " |", "|---|---|" + "---|" * len(names)]
    for p in res["pairs"]:
        for pkg in pkgs:
            c = p[pkg].get("capture")
            if not c:
                continue
            ph = dict(c["phases"])
            ph["other"] = c["cpu_seconds"] - sum(ph.values())
            lines.append("| %s | %s | %s |" % (p["name"], pkg, " | ".join(_f(ph.get(n)) for n in names)))
    lines += ["", "End to end, each as its own process: `capture` is `python -m torchtv_capture PAIR -o "
              "DIR` (what `torchtv capture` runs), `make_fx` is `capture_speed.py --make-fx-only PAIR` "
              "(the same imports, the pair file loaded, the two traces); wall seconds (CPU seconds), "
              "peak memory; `startup` is Python's start and the imports alone (`import "
              "torchtv_capture.capture`: torch, make_fx), wall.", ""]
    lines += ["| pair | package | make_fx | capture | capture / make_fx (CPU) | peak MB | startup |",
              "|---|---|---|---|---|---|---|"]
    for p in res["pairs"]:
        m = p["make_fx_process"]
        for pkg in pkgs:
            e = p[pkg + "_process"]
            lines.append("| %s | %s | %s (%s) | %s (%s)%s | %sx (%sx) | %.0f | %s |" % (
                p["name"], pkg, _f(m["seconds"]), _f(m["cpu_seconds"]), _f(e["seconds"]),
                _f(e["cpu_seconds"]), "" if e["ok"] else " FAILED", _f(_ratio(e["seconds"], m["seconds"])),
                _f(_ratio(e["cpu_seconds"], m["cpu_seconds"])), e["peak_mb"], _f(res["startup"][pkg])))
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pairs", default="real:8,real:64,405b:126", help="SIZE:LAYERS,... (default %(default)s)")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--baseline-package", metavar="DIR", help="a directory holding another torchtv_capture")
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--out", default=os.path.join(REPO, "bench", "results"))
    ap.add_argument("--make-fx-only", metavar="PAIR", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.make_fx_only:
        return make_fx_only(args.make_fx_only)
    argv = "".join(" " + a for a in sys.argv[1:])
    pair_dir = os.path.join(REPO, "build", "bench-capture-pairs")
    packages = {"current": PACKAGE}
    if args.baseline_package:
        packages["baseline"] = os.path.abspath(args.baseline_package)
    load = [os.getloadavg()[0]]
    import torch  # noqa: F401  (imported once; each child forks from here)
    import torch.fx.experimental.proxy_tensor  # noqa: F401
    res = {"date": datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC"), "argv": argv,
           "packages": packages, "pairs": [],
           "startup": {k: startup(v, args.repeat) for k, v in packages.items()}}
    for spec in args.pairs.split(","):
        size, layers = spec.split(":")
        path = os.path.join(pair_dir, gen_transformer.pair_name(size, int(layers)) + ".py")
        os.makedirs(pair_dir, exist_ok=True)
        gen_transformer.write(path, gen_transformer.render(size, int(layers)))
        entry = {"name": "%s L%s" % (size, layers),
                 "make_fx_process": make_fx_process(path, args.repeat, args.timeout)}
        for k, pkg in packages.items():
            entry[k] = in_process(path, pkg, args.repeat)
            entry[k + "_process"] = end_to_end(path, pkg, args.repeat, args.timeout)
            print("%s %s: %s" % (entry["name"], k, json.dumps({x: entry[k].get(x) for x in
                                                               ("make_fx", "capture", "error")})), flush=True)
        res["pairs"].append(entry)
    load.append(os.getloadavg()[0])
    head = cuts.git_head()
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "capture.json"), "w") as f:
        json.dump(res, f, indent=1)
    md = markdown(res, args, head, ["%.1f" % x for x in load])
    with open(os.path.join(args.out, "capture.md"), "w") as f:
        f.write(md)
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())

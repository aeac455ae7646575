#!/usr/bin/python3
"""torchtv benchmark: scaling with model depth, and which bugs each checking method catches.

    /usr/bin/python3 bench/run.py            # full: small and realistic dims, N = 1 .. 64
    /usr/bin/python3 bench/run.py --quick    # small dims, N = 1, two pairs for detection

Needs build/torchtv (cmake --build build). Writes results.json, scaling.md, detection.md and
scaling.png into --out (full: bench/results; quick: build/bench-quick). Captures are cached
in --cache (default build/bench-cache) keyed by the pair file and the capture package.

For each size and layer count N it measures:
  capture    torchtv capture PAIR -o DIR (runs torch; reported apart, cached)
  decide     torchtv check DIR: wall time and peak memory of the process (best of --repeat)
  floor      torchtv check DIR --stop-after normalize (else read, while the CLI has no
             normalize stage): reading (and normalizing) both graphs, no decision
  numerical  eager torch on the pair's seeded example inputs, assert_close and bit for bit
             (bench/numerical.py; small dims only)
  monolithic torchtv check DIR --monolithic --timeout T --rlimit 0 (each output's whole graph
             in one Z3 query, no structural matching; T = --mono-timeout, default 60 s, quick
             30 s): unknown when T runs out; "not implemented" while the CLI has no such flag
"""
import argparse
import concurrent.futures
import datetime
import json
import os
import platform
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_transformer  # noqa: E402
import measure  # noqa: E402
import report  # noqa: E402

REPO = measure.REPO
TEST_PAIRS = os.path.join(REPO, "tests", "capture", "pairs")


def load_directives():
    """The golden runner's reader of `# EXPECT:` lines, so both agree on what a pair expects."""
    sys.path.insert(0, os.path.join(REPO, "tests", "golden"))
    from run_golden import directives
    return directives


def truth(path, directives):
    """'bug', 'equivalent', or None (pairs that are expected to fail to capture, or to stay
    unknown, are not in the detection table)."""
    expect = directives(path)["EXPECT"]
    verdict = expect[0].split()[0] if expect else "equivalent"
    return {"not_equivalent": "bug", "equivalent": "equivalent"}.get(verdict)


def decide(args, cap_dir):
    r = measure.best_of([args.torchtv, "check", cap_dir, "--format", "json"], args.repeat, args.timeout)
    j = r.json() or {}
    stats = j.get("stats", {})
    # The top-level reason of an unknown is generic; the outputs' reasons name the op or limit.
    why = dict.fromkeys(part.strip() for o in j.get("outputs") or [] if o.get("verdict") not in
                        ("equivalent", "not_equivalent") for part in (o.get("reason") or "").split("; "))
    reason = j.get("reason") or r.stderr.strip()[-300:]
    return {"seconds": r.seconds, "peak_mb": r.peak_mb,
            "verdict": "timeout" if r.timed_out else j.get("verdict", "error"),
            "reason": "; ".join([reason] + [w for w in why if w]),
            "ref_nodes": stats.get("reference_nodes"), "prod_nodes": stats.get("production_nodes"),
            "cut_points": stats.get("cut_points"), "cut_attempts": stats.get("cut_point_attempts")}


def _flag_missing(r, flag):
    """Did the CLI refuse an option it does not know (as opposed to failing on the input)?"""
    return r.rc != 0 and flag in r.stderr and ("not expected" in r.stderr or "FAILED" in r.stderr
                                               or "unknown option" in r.stderr)


def floor(args, cap_dir, stage):
    cmd = [args.torchtv, "check", cap_dir, "--stop-after", stage]
    r = measure.best_of(cmd, args.repeat, args.timeout)
    return {"seconds": r.seconds, "peak_mb": r.peak_mb, "stage": stage,
            # exit 2 since --stop-after says it decided nothing (0 before)
            "ok": r.rc in (0, 2) and "stopped after" in r.stdout, "missing": _flag_missing(r, "--stop-after")}


def floor_stage(args, cap_dir):
    """normalize if this torchtv has that stage, else read."""
    return "read" if floor(args, cap_dir, "normalize")["missing"] else "normalize"


def monolithic(args, cap_dir):
    """The baseline under torchtv's own global limit (--timeout: what it has not decided by then
    is unknown); the process gets a minute more for reading, normalizing and the report."""
    cmd = [args.torchtv, "check", cap_dir, "--monolithic", "--timeout", str(args.mono_timeout),
           "--rlimit", "0", "--format", "json"]
    r = measure.run(cmd, args.mono_timeout + 60)
    if _flag_missing(r, "--monolithic"):
        return {"available": False}
    j = r.json() or {}
    timed_out = r.timed_out or any("time limit" in (o.get("reason") or "") for o in j.get("outputs") or [])
    return {"available": True, "seconds": r.seconds, "peak_mb": r.peak_mb, "limit": args.mono_timeout,
            "verdict": "timeout" if r.timed_out else j.get("verdict", "error"), "hit_limit": timed_out}


def numerical(args, pair_path):
    r = measure.run([measure.TORCH_PYTHON, os.path.join(REPO, "bench", "numerical.py"), pair_path],
                    args.timeout, measure.python_env())
    res = r.json() or {"status": "error", "reason": r.stderr.strip()[-300:]}
    res["process_seconds"] = r.seconds
    return res


def capture_all(args, paths):
    """Captures every pair (args.jobs at a time); returns {name: capture result}."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futs = {n: pool.submit(measure.capture, args.torchtv, p, args.cache, args.timeout)
                for n, p in paths.items()}
        return {n: f.result() for n, f in futs.items()}


def scaling(args, paths, caps):
    rows, stage = [], None
    for size in args.sizes:
        for n in args.layers:
            name = gen_transformer.pair_name(size, n)
            cap = caps[name]
            row = {"size": size, "layers": n, "pair": name, "capture": cap}
            print("  %s" % name, flush=True)
            if cap["error"]:
                rows.append(row)
                continue
            stage = stage or floor_stage(args, cap["dir"])
            row["decide"] = decide(args, cap["dir"])
            row["floor"] = floor(args, cap["dir"], stage)
            row["monolithic"] = monolithic(args, cap["dir"]) if not args.no_monolithic else {"available": False}
            row["numerical"] = numerical(args, paths[name])
            rows.append(row)
    return rows


def detection(args, paths, caps, measured):
    """measured: the scaling rows by pair; a pair measured there is not decided again."""
    directives = load_directives()
    rows = []
    for name, path in paths.items():
        t = truth(path, directives)
        if t is None:
            continue
        print("  %s" % name, flush=True)
        cap = caps[name]
        row = {"pair": name, "truth": t, "capture_error": cap["error"]}
        done = measured.get(name, {})
        if not cap["error"]:
            d = done.get("decide") or decide(args, cap["dir"])
            row["torchtv"], row["torchtv_reason"] = d["verdict"], d["reason"]
        row["numerical"] = done.get("numerical") or numerical(args, path)
        rows.append(row)
    return rows


def environment(torchtv):
    def git(*a):
        try:
            return subprocess.run(["git", *a], cwd=REPO, capture_output=True, text=True).stdout.strip()
        except OSError:
            return ""
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), "")
    except OSError:
        pass
    torch_version = subprocess.run([measure.TORCH_PYTHON, "-c", "import torch; print(torch.__version__)"],
                                   capture_output=True, text=True).stdout.strip()
    return {"commit": git("rev-parse", "--short", "HEAD"), "dirty": bool(git("status", "--porcelain", "-uno")),
            "date": datetime.datetime.now().strftime("%Y-%m-%d %H:%M"), "cpus": os.cpu_count(),
            "load_average": [round(x, 2) for x in os.getloadavg()],
            "cpu": cpu, "python": platform.python_version(), "torch": torch_version,
            "torchtv": subprocess.run([torchtv, "--version"], capture_output=True,
                                      text=True).stdout.strip()}


def parse_args(argv):
    ap = argparse.ArgumentParser(description="torchtv benchmark (see the module docstring)")
    ap.add_argument("--quick", action="store_true", help="small dims, N = 1, two detection pairs")
    ap.add_argument("--sizes", help="comma-separated (small,real)")
    ap.add_argument("--layers", help="comma-separated layer counts")
    ap.add_argument("--out", help="results folder")
    ap.add_argument("--cache", default=os.path.join(REPO, "build", "bench-cache"))
    ap.add_argument("--pairs-dir", default=os.path.join(REPO, "bench", "pairs"))
    ap.add_argument("--torchtv", default=os.path.join(REPO, "build", "torchtv"))
    ap.add_argument("--repeat", type=int, help="timed runs per measurement, the best is kept")
    ap.add_argument("--jobs", type=int, default=2, help="captures run at once")
    ap.add_argument("--timeout", type=float, default=900, help="limit per command, seconds")
    ap.add_argument("--mono-timeout", type=float, help="limit of the monolithic baseline, seconds")
    ap.add_argument("--no-monolithic", action="store_true")
    args = ap.parse_args(argv)
    q = args.quick
    args.sizes = (args.sizes or ("small" if q else "small,real")).split(",")
    args.layers = [int(x) for x in (args.layers or ("1" if q else "1,2,4,8,16,32,64")).split(",")]
    if not args.out:
        args.out = os.path.join(REPO, "build", "bench-quick") if q else os.path.join(REPO, "bench", "results")
    args.repeat = args.repeat or (1 if q else 3)
    args.mono_timeout = args.mono_timeout or (30 if q else 60)
    return args


def main(argv=None):
    args = parse_args(argv)
    # The scaling and detection tables measure proving: no run may answer from the proof
    # cache (bench/cache_bench.py measures that).
    os.environ["TORCHTV_CACHE"] = "off"
    if not os.path.exists(args.torchtv):
        sys.exit("bench: %s not found; build first (cmake --build build)" % args.torchtv)
    bugs = ("tiny_term",) if args.quick else tuple(gen_transformer.BUGS)
    bug_layers = 1 if args.quick else gen_transformer.BUG_LAYERS
    scale_paths = gen_transformer.generate(args.pairs_dir, args.sizes, args.layers, ())
    det_paths = gen_transformer.generate(args.pairs_dir, ("small",), (bug_layers,), bugs, bug_layers)
    if not args.quick:
        directives = load_directives()
        for f in sorted(os.listdir(TEST_PAIRS)):
            path = os.path.join(TEST_PAIRS, f)
            if f.endswith(".py") and truth(path, directives):
                det_paths[f[:-3]] = path
    print("bench: capturing %d pairs" % len(set(scale_paths) | set(det_paths)), flush=True)
    caps = capture_all(args, dict(scale_paths, **det_paths))
    print("bench: scaling", flush=True)
    results = {"environment": environment(args.torchtv), "quick": args.quick, "repeat": args.repeat,
               "mono_timeout": args.mono_timeout, "scaling": scaling(args, scale_paths, caps)}
    print("bench: detection", flush=True)
    results["detection"] = detection(args, det_paths, caps, {row["pair"]: row for row in results["scaling"]})
    # The machine is shared: the load during the run says how far to trust the times.
    results["environment"]["load_average_end"] = [round(x, 2) for x in os.getloadavg()]
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump(results, f, indent=1)
    written = report.write_all(results, args.out)
    print("bench: wrote " + ", ".join(written))
    return 0


if __name__ == "__main__":
    sys.exit(main())

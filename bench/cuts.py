#!/usr/bin/python3
"""The cut search at model scale (issue 22): candidates tried per cut found, and decide against
the read + normalize floor, in one run.

    /usr/bin/python3 bench/cuts.py                                   # real L16, L64; 405b L126
    /usr/bin/python3 bench/cuts.py --pairs real:4 --baseline OTHER_TORCHTV --out build/cuts-quick

For each pair (bench/gen_transformer.py sizes and layer counts) it captures (cached in
build/bench-cache like run.py; --fresh-capture measures the capture again), then measures with
TORCHTV_CACHE=off:
  floor    torchtv check DIR --stop-after normalize (read and normalize both graphs)
  decide   torchtv check DIR --format json: wall time, peak RSS, verdict, stats.cut_points and
           stats.cut_point_attempts
  baseline the same decide with --baseline (another torchtv build, e.g. the commit before the
           change), so before and after share the run's load
Each is the best of --repeat runs, run one after the other so that the ratios share one load.
Writes --out/cuts.json and --out/cuts.md (default bench/results).
"""
import argparse
import datetime
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_transformer  # noqa: E402
import measure  # noqa: E402

REPO = measure.REPO
# Issue 22's targets.
MAX_RATIO = 5.0
MAX_END_TO_END = 15.0   # seconds, capture + decide, the 126-layer 405B-shaped pair
MAX_PEAK_MB = 1024.0


def decide(torchtv, cap_dir, repeat, timeout):
    r = measure.best_of([torchtv, "check", cap_dir, "--format", "json"], repeat, timeout)
    j = r.json() or {}
    stats = j.get("stats", {})
    return {"seconds": r.seconds, "cpu_seconds": r.cpu_seconds, "peak_mb": r.peak_mb,
            "verdict": "timeout" if r.timed_out else j.get("verdict", "error"), "level": j.get("level"),
            "outputs": [[o.get("verdict"), o.get("level")] for o in j.get("outputs") or []],
            "cuts": stats.get("cut_points"), "attempts": stats.get("cut_point_attempts"),
            "ref_nodes": stats.get("reference_nodes"), "prod_nodes": stats.get("production_nodes")}


def floor(torchtv, cap_dir, repeat, timeout):
    r = measure.best_of([torchtv, "check", cap_dir, "--stop-after", "normalize"], repeat, timeout)
    return {"seconds": r.seconds, "cpu_seconds": r.cpu_seconds, "peak_mb": r.peak_mb,
            "ok": r.rc in (0, 2) and "stopped after" in r.stdout}


def git_head():
    try:
        return subprocess.run(["git", "-C", REPO, "log", "-1", "--format=%h %s"], capture_output=True,
                              text=True).stdout.strip()[:100]
    except OSError:
        return "?"


def fmt_per_cut(d):
    if not d or not d.get("cuts"):
        return "-"
    return "%d / %d = %.2f" % (d["attempts"], d["cuts"], d["attempts"] / d["cuts"])


def ratios(d, fl):
    return "%.1fx, %.1fx" % (d["seconds"] / fl["seconds"], d["cpu_seconds"] / fl["cpu_seconds"])


def markdown(res):
    env = res["environment"]
    out = ["# Cut search at model scale (issue 22)", "",
           "Written by `%s` on %s, commit `%s`; %s; load average %s at the start, %s at the end; "
           "best of %d runs per measurement, all in this one run, `TORCHTV_CACHE=off`." %
           (env["command"], env["date"], env["commit"], env["cpus"], env["load_start"], env["load_end"],
            res["repeat"]), ""]
    base = res.get("baseline_torchtv")
    head = ["pair", "nodes (ref / prod)", "capture", "floor (read + normalize): wall, CPU", "decide: wall, CPU",
            "decide / floor: wall, CPU", "peak (decide)", "verdict", "tried / cuts"]
    if base:
        head += ["before: decide", "before: decide / floor", "before: tried / cuts", "verdicts same"]
    out += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in res["rows"]:
        cap, fl, de = row["capture"], row["floor"], row["decide"]
        cells = [row["pair"], "%s / %s" % (de.get("ref_nodes"), de.get("prod_nodes")),
                 "%.1f s, %.0f MB%s" % (cap["seconds"], cap["peak_mb"], " (cached)" if cap.get("cached") else ""),
                 "%.2f s, %.2f s" % (fl["seconds"], fl["cpu_seconds"]),
                 "%.2f s, %.2f s" % (de["seconds"], de["cpu_seconds"]), ratios(de, fl),
                 "%.0f MB" % de["peak_mb"], "%s %s" % (de["verdict"], de.get("level") or ""), fmt_per_cut(de)]
        if base:
            b = row["baseline"]
            cells += ["%.2f s, %.2f s" % (b["seconds"], b["cpu_seconds"]), ratios(b, fl), fmt_per_cut(b),
                      "yes" if row["verdicts_same"] else "**no**"]
        out.append("| " + " | ".join(cells) + " |")
    out += ["", "## Targets", ""]
    for row in res["rows"]:
        de, fl, cap = row["decide"], row["floor"], row["capture"]
        ratio = de["seconds"] / fl["seconds"]
        line = "- %s: decide / floor %.1fx wall (target <= %.0fx: %s), %.1fx CPU; peak %.0f MB decide, %.0f MB capture " \
               "(target < %.0f MB: %s)" % (row["pair"], ratio, MAX_RATIO, "met" if ratio <= MAX_RATIO else "missed",
                                           de["cpu_seconds"] / fl["cpu_seconds"], de["peak_mb"], cap["peak_mb"], MAX_PEAK_MB,
                                           "met" if max(de["peak_mb"], cap["peak_mb"]) < MAX_PEAK_MB else "missed")
        if row["layers"] == 126:
            total = cap["seconds"] + de["seconds"]
            line += "; end to end (capture + decide) %.1f s (target <= %.0f s: %s)" % (
                total, MAX_END_TO_END, "met" if total <= MAX_END_TO_END else "missed")
        out.append(line)
    return "\n".join(out) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", default="real:16,real:64,405b:126", help="size:layers,...")
    ap.add_argument("--torchtv", default=os.path.join(REPO, "build", "torchtv"))
    ap.add_argument("--baseline", help="another torchtv binary, decided in the same run")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=900)
    ap.add_argument("--cache", default=os.path.join(REPO, "build", "bench-cache"))
    ap.add_argument("--pairs-dir", default=os.path.join(REPO, "bench", "pairs"))
    ap.add_argument("--fresh-capture", action="store_true", help="capture again even when cached")
    ap.add_argument("--out", default=os.path.join(REPO, "bench", "results"))
    args = ap.parse_args(argv)
    os.environ["TORCHTV_CACHE"] = "off"
    todo = [(s, int(n)) for s, n in (p.split(":") for p in args.pairs.split(",") if p)]
    env = {"command": "bench/cuts.py " + " ".join(argv if argv is not None else sys.argv[1:]),
           "date": datetime.date.today().isoformat(), "commit": git_head(),
           "cpus": "%d cores" % os.cpu_count(), "load_start": [round(x, 1) for x in os.getloadavg()]}
    rows = []
    for size, layers in todo:
        path = gen_transformer.generate(args.pairs_dir, (size,), (layers,), ())[gen_transformer.pair_name(size, layers)]
        name = gen_transformer.pair_name(size, layers)
        if args.fresh_capture:
            stamp = os.path.join(args.cache, name + ".stamp.json")
            if os.path.exists(stamp):
                os.remove(stamp)
        cap = measure.capture(args.torchtv, path, args.cache, args.timeout)
        if cap["error"]:
            sys.exit("%s: capture failed: %s" % (name, cap["error"]))
        cap_dir = os.path.join(args.cache, name)
        print("  %s" % name, flush=True)
        row = {"pair": name, "size": size, "layers": layers, "capture": cap,
               "floor": floor(args.torchtv, cap_dir, args.repeat, args.timeout),
               "decide": decide(args.torchtv, cap_dir, args.repeat, args.timeout)}
        if args.baseline:
            row["baseline"] = decide(args.baseline, cap_dir, args.repeat, args.timeout)
            # every output's verdict and level, compared here and not stored (thousands of them)
            row["verdicts_same"] = row["baseline"].pop("outputs") == row["decide"]["outputs"]
        row["decide"].pop("outputs")
        rows.append(row)
    env["load_end"] = [round(x, 1) for x in os.getloadavg()]
    res = {"environment": env, "repeat": args.repeat, "baseline_torchtv": args.baseline, "rows": rows}
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "cuts.json"), "w") as f:
        json.dump(res, f, indent=1)
    with open(os.path.join(args.out, "cuts.md"), "w") as f:
        f.write(markdown(res))
    print(os.path.join(args.out, "cuts.md"))
    return 0


if __name__ == "__main__":
    sys.exit(main())

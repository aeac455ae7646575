#!/usr/bin/python3
"""The metamorphic campaign (issue 18): many generated pairs (tools/metamorphic/), tabulated by
rewrite class and size, written to bench/results/metamorphic.md.

    /usr/bin/python3 bench/metamorphic.py [--torchtv build/torchtv] [--count 80] [--real-count 16]
        [--seed b1] [--timeout 60] [-j 2] [--out FILE]

small: every seed pair at its small dims; real: every train step of issue 18's item 2 (the seeds of
metamorphic.REAL_SHAPES) and the bench transformer (one layer) at realistic dims (D=4096, T=2048,
F=11008, V=32000, 32 heads of 128), captured shape-only, refuted at their small_inputs(). A class is
the generated pair's bug, or else its weakest preserving rewrite. Exit 1 when any verdict is
unsound (see tools/metamorphic/metamorphic.py for the judgement).
"""
import argparse
import datetime
import os
import platform
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "tools", "metamorphic"))

import metamorphic  # noqa: E402
import rewrites  # noqa: E402

OUTCOMES = ("proven", "proven_weaker", "unknown", "refuted", "unsound", "error")


def table(rows_by_size, sizes):
    head = "| class | level | " + " | ".join(
        "%s: n / proven / weaker / unknown / refuted / FAIL | %s: median s" % (s, s) for s in sizes) + " |"
    lines = [head, "|" + "---|" * (2 + 2 * len(sizes))]
    for r in rewrites.CATALOG:
        cells = []
        seen = False
        for s in sizes:
            cs = [c for c in rows_by_size[s] if c.rewrite_class == r.name]
            seen = seen or bool(cs)
            n = {o: sum(1 for c in cs if c.outcome == o) for o in OUTCOMES}
            times = sorted(c.seconds for c in cs)
            cells.append("%d / %d / %d / %d / %d / %d" % (len(cs), n["proven"], n["proven_weaker"], n["unknown"],
                                                          n["refuted"], n["unsound"] + n["error"]) if cs else "-")
            cells.append("%.1f" % times[len(times) // 2] if times else "-")
        if seen:
            lines.append("| `%s` | %s | %s |" % (r.name, r.level, " | ".join(cells)))
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--torchtv", default=os.environ.get("TORCHTV_BIN", os.path.join(REPO, "build", "torchtv")))
    ap.add_argument("--seed", default="b1")
    ap.add_argument("--count", type=int, default=80, help="generated pairs at small dims")
    ap.add_argument("--real-count", type=int, default=16, help="generated pairs at realistic dims (0: none)")
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--out", default=os.path.join(HERE, "results", "metamorphic.md"))
    args = ap.parse_args(argv)

    sizes = ["small"] + (["real"] if args.real_count else [])
    sources = metamorphic.seed_sources(sizes)
    small_seeds = [n for n in sources if metamorphic.size_of(n) == "small"]
    real_seeds = [n for n in sources if metamorphic.size_of(n) == "real"]
    runs, dropped, wall = {}, {}, {}
    for size, count, seeds in (("small", args.count, small_seeds), ("real", args.real_count, real_seeds)):
        if not count:
            continue
        t0 = time.time()
        runs[size], dropped[size] = metamorphic.campaign(args.torchtv, args.seed, count, sources, seeds,
                                                         jobs=args.jobs, timeout=args.timeout)
        wall[size] = time.time() - t0
    cases = [c for s in sizes for c in runs[s]]
    # Note [Equivalence up to rounding]: the pairs proven only at level rounded (constants rounded
    # from one real; before the level existed they were unknown).
    rounding = [c for c in cases if c.result.get("level") == "rounded"]
    failures = [c for c in cases if c.failure]
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=REPO).stdout.strip()
    cmd = "/usr/bin/python3 bench/metamorphic.py --seed %s --count %d --real-count %d --timeout %g -j %d" % (
        args.seed, args.count, args.real_count, args.timeout, args.jobs)
    out = ["# torchtv metamorphic campaign: generated pairs by rewrite class and size", "",
           "Measured %s at commit `%s` on %d CPU(s) (%s), load average at the end %s. Reproduce: `%s`" % (
               datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC"), commit, os.cpu_count(),
               platform.machine(), ", ".join("%.2f" % x for x in os.getloadavg()), cmd),
           "(docs/metamorphic.md explains the generator and the judgement).", "",
           "Each cell: generated pairs / proven at the expected level / proven at a weaker level (a bitwise "
           "rewrite proven real) / unknown (a generality gap) / refuted / soundness failures (must be 0). "
           "Preserving classes should be proven, bug classes refuted. `real`: every item-2 train step (MLPs, "
           "norms, cross-entropy, attention) and the bench transformer (one layer) at D=4096, T=2048, "
           "F=11008, V=32000, 32 heads of 128, shape-only. Times are the median `torchtv check` "
           "seconds of a pair (capture excluded), --timeout %g, on a shared machine." % args.timeout, "",
           table(runs, sizes), ""]
    for s in sizes:
        n = {o: sum(1 for c in runs[s] if c.outcome == o) for o in OUTCOMES}
        out.append("- %s: %d pairs in %.0f s (generation, eager ground truth, capture, decision); %s; %d generated "
                   "pairs dropped before deciding (a mutation without effect, a rewrite that breaks a shape)." % (
                       s, len(runs[s]), wall[s], ", ".join("%s %d" % kv for kv in n.items()), len(dropped[s])))
    out.append("- %d pairs are proven only at level rounded (constants rounded from one real, counted as "
               "proven weaker)." % len(rounding))
    out += ["", "## Gaps (unknown verdicts)", "",
            "The first undecided output's reason, by seed pair (what issue 18, item 2 is about):", ""]
    gaps = {}
    for c in cases:
        if c.outcome in ("unknown", "proven_weaker"):
            gaps.setdefault(c.seed, []).append(c)
    for seed in sorted(gaps):
        out.append("- `%s` (%d): " % (seed, len(gaps[seed])) + "; ".join(
            "`%s` %s" % (c.rewrite_class, ("(proven rounded: %s)" % c.result["reason"][-120:].replace("|", "/")
                                           if c.result.get("level") == "rounded" else "(proven real, not bitwise)")
                         if c.outcome == "proven_weaker"
                         else c.result["reason"][:160].replace("|", "/")) for c in gaps[seed][:3]))
    if failures:
        out += ["", "## Soundness failures", ""] + ["- %s: %s" % (c.name, c.failure) for c in failures]
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        f.write("\n".join(out) + "\n")
    print("\n".join(out))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

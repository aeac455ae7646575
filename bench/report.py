"""Markdown tables and the plot of a benchmark run (results.json as bench/run.py builds it)."""
import os
import re

import gen_transformer

DECIDED = ("equivalent", "not_equivalent")
TARGET_SECONDS, TARGET_MB, TARGET_DEPTH_RATIO, TARGET_FLOOR_RATIO = 10.0, 2048.0, 20.0, 5.0


def _f(x, digits=2):
    return "-" if x is None else ("%.*f" % (digits, x))


def _ratio(a, b):
    return None if a is None or not b else a / b


def _get(row, *keys):
    for k in keys:
        if not isinstance(row, dict) or row.get(k) is None:
            return None
        row = row[k]
    return row


def header(res, title):
    e = res["environment"]
    lines = ["# %s" % title, "",
             "Measured %s at commit `%s`%s with %s, torch %s, on %s CPU(s) (%s). "
             "Reproduce: `/usr/bin/python3 bench/run.py%s` (see bench/README.md)." % (
                 e["date"], e["commit"], " (with uncommitted changes)" if e["dirty"] else "",
                 e["torchtv"], e["torch"], e["cpus"], e["cpu"], " --quick" if res["quick"] else ""),
             "Times are wall-clock seconds, best of %d runs; the machine is shared with other builds, "
             "so they are indicative, not precise." % res["repeat"], ""]
    load = e.get("load_average")
    if load:
        lines += ["Load average (1, 5, 15 min) at the start: %s; at the end: %s." % (
            ", ".join("%.2f" % x for x in load),
            ", ".join("%.2f" % x for x in e.get("load_average_end", [])) or "-"), ""]
    rows = res["scaling"] + res["detection"]
    verdicts = {_get(r, "decide", "verdict") or r.get("torchtv") for r in rows} - {None}
    if "equivalent" not in verdicts:
        lines += ["**No equivalent pair was proven at this commit.** See the reasons of the "
                  "undecided verdicts below.", ""]
    return lines


def undecided_md(res):
    """Every distinct reason of a verdict that is not a decision, with the pairs that gave it."""
    def key(verdict, reason):
        # the source locations differ from pair to pair; the op or limit is what groups them
        return verdict, re.sub(r" at \S+:\d+", "", reason or "")
    reasons = {}
    for r in res["scaling"]:
        d = r.get("decide")
        if d and d["verdict"] not in DECIDED:
            reasons.setdefault(key(d["verdict"], d.get("reason")), []).append(r["pair"])
    for r in res["detection"]:
        if r.get("torchtv") and r["torchtv"] not in DECIDED:
            reasons.setdefault(key(r["torchtv"], r.get("torchtv_reason")), []).append(r["pair"])
    if not reasons:
        return []
    out = ["## Why a pair was not decided", "", "| verdict | reason | pairs |", "|---|---|---|"]
    for (verdict, reason), pairs in reasons.items():
        out.append("| %s | %s | %s |" % (verdict, reason.replace("|", "\\|").replace("\n", " "),
                                        ", ".join(dict.fromkeys(pairs))))
    return out + [""]


def _dims(size):
    d, t, h, fh, v, shape_only = gen_transformer.SIZES[size]
    return "D=%d, T=%d, H=%d, F=%d, V=%d%s" % (d, t, h, fh, v, "; captured shape-only (fake tensors)"
                                               if shape_only else "")


def scaling_md(res):
    out = header(res, "torchtv benchmark: cost against depth")
    for size in dict.fromkeys(r["size"] for r in res["scaling"]):
        rows = [r for r in res["scaling"] if r["size"] == size]
        base = next((_get(r, "decide", "seconds") for r in rows if r["layers"] == 1), None)
        stage = next((_get(r, "floor", "stage") for r in rows if _get(r, "floor")), "read")
        out += ["## %s dims (%s)" % (size, _dims(size)), "",
                "| N | nodes ref / prod | capture s (MB) | floor (%s) s | decide s | decide MB | verdict "
                "| decide / floor | decide(N) / decide(1) | cut points (tried) | numerical s | decide / numerical "
                "| assert_close | bit for bit | monolithic |" % stage,
                "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for r in rows:
            cap = r["capture"]
            capture = "%s (%.0f)%s" % (_f(cap["seconds"], 1), cap["peak_mb"], " cached" if cap["cached"] else "")
            if cap["error"]:
                out.append("| %d | capture failed: %s |%s" % (r["layers"], cap["error"][:150], " |" * 13))
                continue
            d, fl, num, mono = r["decide"], r["floor"], r["numerical"], r["monolithic"]
            ok = num.get("status") == "ok"
            mono_s = ("not implemented" if not mono["available"] else
                      "%s s, %s%s" % (_f(mono["seconds"]), mono["verdict"],
                                      " (hit the %.0f s limit)" % mono["limit"] if mono.get("hit_limit") else ""))
            cuts = ("%s (%s)" % (d["cut_points"], d.get("cut_attempts")) if d.get("cut_points") is not None
                    else "-")
            out.append("| %d | %s / %s | %s | %s | %s | %.0f | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                r["layers"], d["ref_nodes"], d["prod_nodes"], capture, _f(fl["seconds"] if fl["ok"] else None),
                _f(d["seconds"]), d["peak_mb"], d["verdict"], _f(_ratio(d["seconds"], fl["seconds"])),
                _f(_ratio(d["seconds"], base)), cuts, _f(num.get("seconds"), 3) if ok else num.get("status"),
                _f(_ratio(d["seconds"], num.get("seconds")), 1) if ok else "-",
                num.get("assert_close", "-"), num.get("bitwise", "-"), mono_s))
        out.append("")
    out += targets_md(res)
    out += undecided_md(res)
    return "\n".join(out) + "\n"


def targets_md(res):
    rows = res["scaling"]
    real = {r["layers"]: r for r in rows if r["size"] == "real" and r.get("decide")}
    out = ["## Targets (issue 7)", "", "| target | measured | met |", "|---|---|---|"]

    def decided(r):
        return _get(r, "decide", "verdict") in DECIDED

    r64, r1 = real.get(64), real.get(1)
    if r64:
        s, mb = r64["decide"]["seconds"], r64["decide"]["peak_mb"]
        met = "yes" if decided(r64) and s < TARGET_SECONDS else (
            "no: not decided (verdict %s)" % r64["decide"]["verdict"] if not decided(r64)
            else "no: %.1fx over" % (s / TARGET_SECONDS))
        out.append("| 64 layers, realistic dims, decided in < 10 s | %.2f s, verdict %s | %s |"
                   % (s, r64["decide"]["verdict"], met))
        out.append("| peak memory of that run < 2 GB | %.0f MB | %s |"
                   % (mb, "yes" if mb < TARGET_MB else "no: %.1fx over" % (mb / TARGET_MB)))
    if r64 and r1:
        q = r64["decide"]["seconds"] / r1["decide"]["seconds"]
        met = ("yes" if q <= TARGET_DEPTH_RATIO else "no: %.1fx over" % (q / TARGET_DEPTH_RATIO))
        if not (decided(r64) and decided(r1)):
            met = "not measurable: a pair was not decided (verdict unknown); the time ratio alone: %s" % met
        out.append("| time(64 layers) / time(1 layer) <= 20, realistic dims | %.1f | %s |" % (q, met))
    ratios = [(r["layers"], r["size"], r["decide"]["seconds"] / r["floor"]["seconds"]) for r in rows
              if r.get("decide") and r["layers"] >= 8 and r["floor"]["ok"]]
    if ratios:
        n, size, worst = max(ratios, key=lambda x: x[2])
        met = "yes" if worst <= TARGET_FLOOR_RATIO else "no: %.1fx over" % (worst / TARGET_FLOOR_RATIO)
        if not all(decided(r) for r in rows if r.get("decide") and r["layers"] >= 8):
            met = "not measurable: a pair was not decided (verdict unknown); the time ratio alone: %s" % met
        out.append("| decide <= 5x the read/normalize floor for N >= 8 | worst %.1fx (%s, N=%d) | %s |"
                   % (worst, size, n, met))
    mono = [r for r in rows if _get(r, "monolithic", "available")]
    out.append("| monolithic baseline, numerical testing and torchtv in one table | monolithic: %s | %s |"
               % ("measured" if mono else "not implemented (this torchtv has no --monolithic flag; no number is given)",
                  "yes" if mono else "no"))
    return out + [""]


def detection_md(res):
    out = header(res, "torchtv benchmark: bugs caught and false alarms")
    out += ["Pairs: the planted bugs and equivalent pairs of the test suite (`tests/capture/pairs`, "
            "expectation from their `# EXPECT:` line) and of the transformer generator. "
            "Numerical methods run eager torch on each pair's seeded example inputs: "
            "`torch.testing.assert_close` with default tolerances, and bit-for-bit equality.", "",
            "| pair | truth | torchtv | assert_close | bit for bit |", "|---|---|---|---|---|"]
    rows = res["detection"]
    for r in rows:
        num = r["numerical"]
        tv = r.get("torchtv") or "capture failed: %s" % (r["capture_error"] or "")[:80]
        ac, bw = (num["assert_close"], num["bitwise"]) if num.get("status") == "ok" else (num.get("status"),) * 2
        out.append("| %s | %s | %s | %s | %s |" % (r["pair"], r["truth"], tv, ac, bw))
    bugs = [r for r in rows if r["truth"] == "bug"]
    good = [r for r in rows if r["truth"] == "equivalent"]

    def counts(flagged, decided):
        return (sum(flagged(r) for r in bugs), sum(flagged(r) for r in good),
                sum(not decided(r) for r in rows))

    methods = [
        ("torchtv", lambda r: r.get("torchtv") == "not_equivalent", lambda r: r.get("torchtv") in DECIDED),
        ("assert_close", lambda r: r["numerical"].get("assert_close") == "fail",
         lambda r: r["numerical"].get("status") == "ok"),
        ("bit for bit", lambda r: r["numerical"].get("bitwise") == "fail",
         lambda r: r["numerical"].get("status") == "ok"),
    ]
    out += ["", "| method | bugs caught (of %d) | false alarms (of %d equivalent) | no answer |"
            % (len(bugs), len(good)), "|---|---|---|---|"]
    for name, flagged, decided in methods:
        out.append("| %s | %d | %d | %d |" % ((name,) + counts(flagged, decided)))
    out += [""] + undecided_md(res) + ["torchtv's \"no answer\" counts `unknown` and `error` verdicts: an unknown is "
            "never counted as a catch or as a false alarm."]
    return "\n".join(out) + "\n"


def plot(res, path):
    """Time and peak memory against N: one colour per measurement, one line style per size."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (ax_t, ax_m) = plt.subplots(1, 2, figsize=(11, 4.2))
    styles = {"small": "--", "real": "-"}
    colours = {"decide": "C0", "floor": "C1", "capture": "C2", "numerical": "C3"}
    for size in dict.fromkeys(r["size"] for r in res["scaling"]):
        rows = [r for r in res["scaling"] if r["size"] == size and r.get("decide")]
        ns = [r["layers"] for r in rows]
        series = [("decide", [r["decide"]["seconds"] for r in rows]),
                  ("floor", [r["floor"]["seconds"] for r in rows]),
                  ("capture", [r["capture"]["seconds"] for r in rows])]
        nums = [r["numerical"].get("seconds") for r in rows]
        if all(x is not None for x in nums):
            series.append(("numerical", nums))
        for label, ys in series:
            ax_t.plot(ns, ys, styles.get(size, ":"), color=colours[label], marker="o",
                      label="%s (%s)" % (label, size))
        for label, ys in (("decide", [r["decide"]["peak_mb"] for r in rows]),
                          ("capture", [r["capture"]["peak_mb"] for r in rows])):
            ax_m.plot(ns, ys, styles.get(size, ":"), color=colours[label], marker="o",
                      label="%s (%s)" % (label, size))
    for ax, ylabel in ((ax_t, "seconds"), (ax_m, "peak resident memory, MB")):
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("layers N")
        ax.set_ylabel(ylabel)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    ax_t.set_title("time against depth")
    ax_m.set_title("peak memory against depth")
    e = res["environment"]
    fig.suptitle("%s at %s (%s)" % (e["torchtv"], e["commit"], e["date"]), fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_all(res, out_dir):
    written = []
    for name, text in (("scaling.md", scaling_md(res)), ("detection.md", detection_md(res))):
        p = os.path.join(out_dir, name)
        with open(p, "w") as f:
            f.write(text)
        written.append(p)
    if any(r.get("decide") for r in res["scaling"]):
        p = os.path.join(out_dir, "scaling.png")
        plot(res, p)
        written.append(p)
    return written

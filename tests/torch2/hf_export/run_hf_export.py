"""torch.export archives as users make them (issue 35, item 5), decided by the binary.

The archives (README.md here) were made on the GPU machine with torch 2.11 and transformers 5.17 by
tools/torch2/export_hf_attention.py. Each case below runs `torchtv check A B` (or `torchtv show A`)
and holds the verdict against the recorded one; `never` is a verdict that would be a soundness
bug (a planted bug proven equivalent, a correct pair refuted). Cases marked slow run only with
--all: every decoder pair runs to its time limit today (README.md says why).

    tests/torch2/hf_export/run_hf_export.py --torchtv build/torchtv [--all] [--only SUBSTRING]
"""
import argparse
import glob
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DECODERS = ("llama", "mistral", "qwen2", "gemma2", "gemma2_nocap", "gpt_neox", "gpt2")


def cases():
    """(name, files, options, verdict, never, reason substring, slow)."""
    out = []
    for f in sorted(glob.glob(os.path.join(HERE, "*.pt2"))):  # every archive reads
        out.append(("read/" + os.path.basename(f)[:-4], [f], ["show"], "read", None, None, False))

    def pair(a, b, want, never=None, reason=None, slow=False, options=()):
        out.append(("%s/vs/%s" % (a, b), [a + ".pt2", b + ".pt2"], list(options), want, never, reason, slow))

    # Higher-order ops (Note [Higher-order ops in .pt2 programs]): the cf_*.pt2 programs.
    for name in ("grad_off", "autocast_off", "subgraph", "cond_const", "cond_data", "map_rows"):
        pair("cf_" + name, "cf_%s_plain" % name, "equivalent", never="not_equivalent")
    for name in ("subgraph", "map_rows"):
        pair("cf_" + name, "cf_%s_bug" % name, "not_equivalent", never="equivalent")
    pair("cf_cond_data", "cf_cond_data_bug", "unknown", never="equivalent", reason="higher_order::cond")
    pair("cf_loop", "cf_loop_plain", "unknown", never="not_equivalent", reason="higher_order::while_loop")
    pair("cf_autocast_on", "cf_autocast_on_plain", "unknown", never="not_equivalent",
         reason="higher_order::wrap_with_autocast")
    # Eager against sdpa attention, and sdpa with a planted bug (scale inverted, mask negated).
    for arch in ("bert",) + DECODERS:
        slow = arch != "bert"
        for mode in ("inference", "training"):
            slow_here = slow or mode == "training"
            eager = "%s_eager_%s" % (arch, mode)
            want = "equivalent" if arch == "bert" and mode == "inference" else "unknown"
            pair(eager, "%s_sdpa_%s" % (arch, mode), want, never="not_equivalent", slow=slow_here,
                 options=["--timeout", "45"])
            for bug in ("bad_scale", "bad_mask"):
                want = "not_equivalent" if arch == "bert" and mode == "inference" else "unknown"
                pair(eager, "%s_%s_%s" % (arch, bug, mode), want, never="equivalent", slow=slow_here,
                     options=["--timeout", "45"])
    return out


def run(torchtv, files, options):
    env = dict(os.environ, TORCHTV_CACHE="off")
    if options[:1] == ["show"]:
        p = subprocess.run([torchtv, "show", files[0]], capture_output=True, text=True, env=env, timeout=120)
        return ("read" if p.returncode == 0 else "error"), p.stderr.strip()[-300:]
    p = subprocess.run([torchtv, "check"] + [os.path.join(HERE, f) for f in files] + options, capture_output=True,
                       text=True, env=env, timeout=600)
    first = (p.stdout.strip().splitlines() or [""])[0]
    verdict = first.split(":", 1)[1].strip().split(" ")[0] if first.startswith("torchtv:") else "error"
    return verdict, p.stdout + p.stderr


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--torchtv", required=True)
    ap.add_argument("--all", action="store_true", help="also the slow cases")
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    failed = 0
    for name, files, options, want, never, reason, slow in cases():
        if (slow and not args.all) or args.only not in name:
            continue
        t = time.time()
        got, text = run(args.torchtv, files, options)
        ok = got == want and (reason is None or reason in text)
        bad = never is not None and got == never
        status = "ok" if ok else ("SOUNDNESS" if bad else "FAIL")
        failed += not ok
        print("%-9s %-60s %-15s (want %s) %.1fs" % (status, name, got, want, time.time() - t), flush=True)
        if not ok:
            print("   " + text.strip()[:1500].replace("\n", "\n   "))
    print("%d failed" % failed)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

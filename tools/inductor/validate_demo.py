"""torchtv.inductor.validate() end to end on one model: compiles it with Inductor (training, so
both the joint-graph and the post-grad passes run), lets torchtv check every rewrite as it
happens, and prints what it said. Needs torch >= 2.4 and a built torchtv ($TORCHTV_BIN):

    PYTHONPATH=src/capture python3 tools/inductor/validate_demo.py [--model gpt2] [--device cuda]
"""
import argparse
import json
import logging
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="gpt2")
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--json", help="write the results here")
    args = ap.parse_args()
    import torch
    import torchtv.inductor
    from models import MODELS
    logging.basicConfig(level=logging.WARNING)
    torch.manual_seed(0)
    model, inputs, loss_fn = MODELS[args.model]()
    model = model.to(args.device).train()
    inputs = tuple(x.to(args.device) for x in inputs)
    start = time.time()
    with torchtv.inductor.validate(on_failure="log", keep="all") as validator:
        step = torch.compile(lambda *a: loss_fn(model(*a)), dynamic=False)
        step(*inputs).backward()
    results = [r.to_json() for r in validator.results]
    for r in results:
        print("%-9s nodes %s -> %s  changed=%s  %s %s  %s" % (
            r["stage"], r["nodes_before"], r["nodes_after"], r["changed"], r["verdict"], r["level"] or "",
            (r["reason"] or r["error"] or "")[:160]))
    print("compile + backward with validation: %.1f s; pairs in %s" % (time.time() - start, validator.out_dir))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0 if results and all(r["error"] is None for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())

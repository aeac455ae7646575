"""Captures Inductor's graph rewrites of real models as torchtv pairs (issue 9's fixtures).

For every model of models.py, on CPU and (where there is one) CUDA, in inference and in
training, it runs torch.compile(backend="inductor") with torchtv.inductor's hooks installed in
recording mode (check=False): each graph is snapshotted just before and just after Inductor's
joint-graph passes and its post-grad passes, and every pair that the passes changed is written
as a capture directory that `torchtv check DIR` reads. Needs torch >= 2.4 (the GPU machine has
2.11 with transformers and timm):

    PYTHONPATH=src/capture python3 tools/inductor/grab.py --out /tmp/inductor [--jobs 8]

Each configuration runs in its own process (a crash or hang of one costs only that one);
OUT/index.json lists every pair with its node counts, and the failures with their reason.
"""
import argparse
import json
import os
import subprocess
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))


def run_one(model_name, device, mode, out):
    import torch
    import torch._dynamo
    import torch._inductor.config as iconfig
    sys.path.insert(0, HERE)
    from models import MODELS
    from torchtv.inductor import Validator

    iconfig.compile_threads = 1
    torch.manual_seed(0)
    model, inputs, loss_fn = MODELS[model_name]()
    model = model.to(device)
    inputs = tuple(x.to(device) for x in inputs)
    name = "%s_%s_%s" % (model_name, device, mode)
    validator = Validator(check=False, keep="changed", out_dir=out, name=name)
    status, error = "ok", None
    start = time.time()
    try:
        with validator:
            if mode == "inference":
                model.eval()
                compiled = torch.compile(model, backend="inductor", dynamic=False)
                with torch.no_grad():
                    compiled(*inputs)
            else:
                model.train()
                compiled = torch.compile(lambda *a: loss_fn(model(*a)), backend="inductor",
                                         dynamic=False)
                compiled(*inputs).backward()
    except Exception as e:  # the passes may have run before a later stage failed: keep them
        status, error = "compile failed", "%s: %s" % (type(e).__name__, str(e)[:600])
        traceback.print_exc()
    pairs = [dict(r.to_json(), directory=os.path.basename(r.directory) if r.directory else None)
             for r in validator.results]
    return {"model": model_name, "device": device, "mode": mode, "status": status, "error": error,
            "seconds": round(time.time() - start, 1), "torch": torch.__version__, "pairs": pairs}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--jobs", type=int, default=4)
    ap.add_argument("--models", default="block,block_nomask,gpt2,llama,bert,vit,resnet")
    ap.add_argument("--devices", default="cpu,cuda")
    ap.add_argument("--modes", default="inference,training")
    ap.add_argument("--timeout", type=int, default=420)
    ap.add_argument("--one", nargs=3, metavar=("MODEL", "DEVICE", "MODE"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    if args.one:
        res = run_one(*args.one, out=args.out)
        with open(os.path.join(args.out, "%s_%s_%s.json" % tuple(args.one)), "w") as f:
            json.dump(res, f, indent=1)
        return 0
    import torch
    devices = [d for d in args.devices.split(",") if d != "cuda" or torch.cuda.is_available()]
    configs = [(m, d, mo) for m in args.models.split(",") for d in devices for mo in args.modes.split(",")]
    running, results = [], []
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    while configs or running:
        while configs and len(running) < args.jobs:
            cfg = configs.pop(0)
            logf = open(os.path.join(args.out, "%s_%s_%s.log" % cfg), "w")
            p = subprocess.Popen([sys.executable, __file__, "--out", args.out, "--one", *cfg],
                                 stdout=logf, stderr=subprocess.STDOUT, env=env)
            running.append((cfg, p, time.time(), logf))
        time.sleep(1)
        for item in list(running):
            cfg, p, t0, logf = item
            if p.poll() is None and time.time() - t0 < args.timeout:
                continue
            if p.poll() is None:
                p.kill()
                p.wait()
            logf.close()
            running.remove(item)
            path = os.path.join(args.out, "%s_%s_%s.json" % cfg)
            if os.path.exists(path):
                with open(path) as f:
                    results.append(json.load(f))
            else:
                results.append({"model": cfg[0], "device": cfg[1], "mode": cfg[2], "pairs": [],
                                "status": "process died" if p.returncode else "no result",
                                "error": "exit %s after %.0f s" % (p.returncode, time.time() - t0)})
            r = results[-1]
            print("%-8s %-5s %-9s %-14s %d changed pairs %s" % (
                r["model"], r["device"], r["mode"], r["status"],
                sum(1 for x in r["pairs"] if x["changed"]), r.get("error") or ""), flush=True)
    results.sort(key=lambda r: (r["model"], r["device"], r["mode"]))
    with open(os.path.join(args.out, "index.json"), "w") as f:
        json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

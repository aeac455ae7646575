#!/usr/bin/python3
"""The numerical test people use today, on one pair file: run reference (with autograd in
train_step mode) and production eagerly in torch on the pair's seeded example inputs, then
compare every output with torch.testing.assert_close (default tolerances) and bit for bit.

    PYTHONPATH=src/capture /usr/bin/python3 bench/numerical.py PAIR.py

Prints one JSON object: {"status": "ok", "seconds": run+compare time, "assert_close": "pass" |
"fail", "bitwise": "pass" | "fail", "detail": first failure} or {"status": "n/a" | "error",
"reason": ...}. Pairs with meta example inputs (shape-only, realistic dims) are "n/a": running
them would allocate the model. Bit for bit: equal bit patterns, every NaN equal to every NaN,
+0.0 and -0.0 different (the `bitwise` level, README.md "Verdicts and exit codes").
"""
import json
import sys
import time

import torch


def run_pair(pair):
    """(reference outputs, production outputs) as tuples of tensors."""
    inputs = pair.example_inputs
    if pair.mode == "train_step":
        req = [t for t in inputs if t.requires_grad]
        loss = pair.reference(*inputs)
        grads = torch.autograd.grad(loss, req, allow_unused=True)
        ref = (loss,) + tuple(torch.zeros_like(t) if g is None else g for t, g in zip(req, grads))
    else:
        ref = pair.reference(*[t.detach() for t in inputs])
    try:
        with torch.no_grad():
            prod = pair.production(*[t.detach() for t in inputs])
    except RuntimeError:   # production that itself calls autograd
        prod = pair.production(*inputs)
    as_tuple = lambda r: tuple(r) if isinstance(r, (tuple, list)) else (r,)
    return as_tuple(ref), as_tuple(prod)


def _bits(t):
    t = t.detach().contiguous()
    if not t.dtype.is_floating_point:
        return t
    ints = {2: torch.int16, 4: torch.int32, 8: torch.int64}[t.element_size()]
    return t.view(ints)


def bitwise_equal(a, b):
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    same = _bits(a) == _bits(b)
    if a.dtype.is_floating_point:
        same = same | (a.isnan() & b.isnan())
    return bool(same.all())


def compare(ref, prod):
    """{"assert_close": ..., "bitwise": ..., "detail": ...} over all outputs."""
    res = {"assert_close": "pass", "bitwise": "pass", "detail": ""}
    if len(ref) != len(prod):
        return {"assert_close": "fail", "bitwise": "fail",
                "detail": "%d outputs vs %d" % (len(ref), len(prod))}
    for i, (r, p) in enumerate(zip(ref, prod)):
        r, p = r.detach(), p.detach()
        try:
            torch.testing.assert_close(p, r)
        except AssertionError as e:
            if res["assert_close"] == "pass":
                res["detail"] = "output %d: %s" % (i, " ".join(str(e).split())[:200])
            res["assert_close"] = "fail"
        if not bitwise_equal(r, p):
            res["bitwise"] = "fail"
    return res


def main(argv):
    from torchtv_capture.errors import CaptureError
    from torchtv_capture.pairfile import load_pair
    try:
        pair = load_pair(argv[1])
    except CaptureError as e:
        return {"status": "error", "reason": e.message}
    if pair.fake:
        n = sum(t.numel() * t.element_size() for t in pair.example_inputs)
        return {"status": "n/a", "reason": "shape-only pair: its inputs alone would take %.1f GiB"
                % (n / 2 ** 30)}
    start = time.perf_counter()
    try:
        ref, prod = run_pair(pair)
        res = compare(ref, prod)
    except Exception as e:   # a pair that fails to run is reported, not hidden
        return {"status": "error", "reason": "%s: %s" % (type(e).__name__, str(e)[:300])}
    res.update(status="ok", seconds=time.perf_counter() - start)
    return res


if __name__ == "__main__":
    print(json.dumps(main(sys.argv)))

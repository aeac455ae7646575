#!/usr/bin/env python3
"""External oracle for fusions/prims.tvir (issue 16): PyTorch's own reference implementations.

torch._refs writes each torch function in Python over prims (torch.ops.prims.*). One pair file
is written whose reference calls torch functions as eager code does (captured as ATen ops) and
whose production calls the same functions under torch._prims.context.TorchRefsMode (captured as
the prims torch._refs lowers them to). Each case is one output; `torchtv verify` decides them
all in one run. The prims each case exercises are listed from a trace of its production.

Fails when:
  - an output is not_equivalent or an error;
  - an output not listed in KNOWN_GAPS is not proven equivalent;
  - an output listed in KNOWN_GAPS is proven (then its entry is stale: remove it);
  - fewer prims are exercised than MIN_PRIMS (the oracle stopped testing the definitions).

  /usr/bin/python3 tests/oracle/run_refs_oracle.py --torchtv build/torchtv
"""
import argparse
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/
import json_stream  # noqa: E402

# Why these outputs do not come out equivalent; each states the gap precisely.
KNOWN_GAPS = {
}

MIN_PRIMS = 80

# name -> (expression over the inputs, inputs): "x", "y" are f32 [3, 5], "p", "q" positive f32 [3, 5],
# "u" in (-1, 1), "i", "j" int64 [3, 5], "b" bool [3, 5]. torch functions only (TorchRefsMode
# maps them to torch._refs).
CASES = {
    # elementwise, one operand
    **{f: (f"torch.{f}(x)", "x") for f in ["abs", "atan", "asinh", "ceil", "cos", "cosh", "erf", "erfc", "exp", "exp2",
                                           "expm1", "floor", "isfinite", "neg", "round", "sign", "signbit", "sin",
                                           "sinh", "tan", "tanh", "trunc", "sigmoid", "reciprocal"]},
    **{f: (f"torch.{f}(p)", "p") for f in ["log", "log10", "log1p", "log2", "sqrt", "rsqrt", "lgamma", "digamma",
                                           "i0", "acosh"]},
    **{f: (f"torch.{f}(u)", "u") for f in ["acos", "asin", "atanh", "erfinv"]},
    **{f"special_{f}": (f"torch.special.{f}(x)", "x") for f in ["i0e", "i1", "i1e", "bessel_j0", "bessel_j1",
                                                                "spherical_bessel_j0"]},
    "bitwise_not": ("torch.bitwise_not(i)", "i"),
    # elementwise, two operands
    **{f: (f"torch.{f}(x, y)", "xy") for f in ["add", "sub", "mul", "div", "atan2", "eq", "ne", "ge", "gt", "le",
                                               "lt", "fmax", "fmin", "fmod", "hypot", "maximum", "minimum",
                                               "nextafter", "remainder"]},
    **{f: (f"torch.{f}(p, q)", "pq") for f in ["pow", "igamma", "igammac"]},
    **{f: (f"torch.{f}(i, j)", "ij") for f in ["bitwise_and", "bitwise_or", "bitwise_xor"]},
    "gcd": ("torch.gcd(i, j)", "ij"),
    "shift_left": ("torch.bitwise_left_shift(i, 3)", "i"),
    "shift_right": ("torch.bitwise_right_shift(i, 2)", "i"),
    "special_zeta": ("torch.special.zeta(p + 1, q)", "pq"),
    "div_trunc_int": ("torch.div(i, j + 10, rounding_mode='trunc')", "ij"),
    "add_number": ("torch.add(x, 2.5)", "x"),
    "where": ("torch.where(b, x, y)", "bxy"),
    "where_number": ("torch.where(x > 0, x, 0.0)", "x"),
    "clamp": ("torch.clamp(x, -0.5, 0.5)", "x"),
    # reductions
    "sum_dim": ("torch.sum(x, 1)", "x"),
    "sum_keepdim": ("torch.sum(x, 0, keepdim=True)", "x"),
    "amax": ("torch.amax(x, 1)", "x"),
    "amin": ("torch.amin(x, 0)", "x"),
    "mean": ("torch.mean(x, 1)", "x"),
    "var": ("torch.var(x, 1)", "x"),
    "prod": ("torch.prod(x, 1)", "x"),
    "prod_all": ("torch.prod(x)", "x"),
    # views and copies
    "permute": ("torch.permute(x, (1, 0))", "x"),
    "flip": ("torch.flip(x, (0,))", "x"),
    "narrow": ("torch.narrow(x, 1, 1, 3)", "x"),
    "squeeze": ("torch.squeeze(x.unsqueeze(0), 0)", "x"),
    "reshape": ("torch.reshape(x.t(), (5, 3))", "x"),
    "flatten": ("torch.flatten(x)", "x"),
    "unflatten": ("x.unflatten(1, (1, 5))", "x"),
    "cat": ("torch.cat([x, y], 1)", "xy"),
    "expand": ("x[:, :1].expand(3, 5) * 1", "x"),
    "to_double": ("x.to(torch.float64)", "x"),
    "full_like": ("torch.full_like(x, 2.0)", "x"),
    "arange_gather": ("torch.gather(x, 1, torch.arange(3).unsqueeze(1))", "x"),
}

PAIR = '''import torch
from torch._prims.context import TorchRefsMode

CASES = {cases}


def example_inputs():
    g = torch.Generator().manual_seed(0)
    x, y = torch.randn(3, 5, generator=g), torch.randn(3, 5, generator=g)
    p, q = torch.rand(3, 5, generator=g) + 0.5, torch.rand(3, 5, generator=g) + 0.5
    u = torch.rand(3, 5, generator=g) * 1.8 - 0.9
    i, j = torch.randint(-20, 20, (3, 5), generator=g), torch.randint(1, 20, (3, 5), generator=g)
    b = torch.rand(3, 5, generator=g) > 0.5
    return x, y, p, q, u, i, j, b


def _all(x, y, p, q, u, i, j, b):
    env = dict(torch=torch, x=x, y=y, p=p, q=q, u=u, i=i, j=j, b=b)
    return tuple(eval(expr, env) for expr, _ in CASES.values())


def reference(*inputs):
    return _all(*inputs)


def production(*inputs):
    with TorchRefsMode():
        return _all(*inputs)
'''


def prims_exercised():
    """{case: sorted prims its production calls}, from make_fx traces under TorchRefsMode."""
    import torch
    from torch._prims.context import TorchRefsMode
    from torch.fx.experimental.proxy_tensor import make_fx
    ns = {}
    exec(PAIR.format(cases=repr(CASES)), ns)
    inputs = ns["example_inputs"]()
    names = "x y p q u i j b".split()
    out = {}
    for name, (expr, _) in CASES.items():
        fn = eval("lambda " + ", ".join(names) + ": " + expr, {"torch": torch})

        def traced(*a, fn=fn):
            with TorchRefsMode():
                return fn(*a)
        g = make_fx(traced)(*inputs)
        out[name] = sorted({str(n.target).split(".")[1] for n in g.graph.nodes
                            if n.op == "call_function" and str(n.target).startswith("prims.")})
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--torchtv", required=True)
    args = ap.parse_args()
    used = prims_exercised()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "refs_oracle.py")
        with open(path, "w", encoding="utf-8") as fp:
            fp.write(PAIR.format(cases=repr(CASES)))
        p = subprocess.run([args.torchtv, "verify", path, "--format", "json", "--no-cache"], capture_output=True,
                           text=True, timeout=600)
    docs = json_stream.documents(p.stdout)
    if not docs:
        print("FAIL torchtv verify gave no result: " + (p.stderr or p.stdout)[-2000:])
        return 1
    outs = docs[0].get("outputs", [])
    failures = []
    if len(outs) != len(CASES):
        failures.append(f"{len(outs)} outputs for {len(CASES)} cases: {docs[0].get('reason', '')}")
    print(f"{'case':28} {'verdict':15} {'level':8} prims")
    for name, o in zip(CASES, outs):
        v, level, reason = o.get("verdict"), o.get("level", ""), o.get("reason", "")
        print(f"{name:28} {v:15} {level or '':8} {' '.join(used[name])}"
              + (f"  ({KNOWN_GAPS[name]})" if name in KNOWN_GAPS else f"  {reason[:160]}" if v != "equivalent" else ""))
        if v in ("not_equivalent", "error"):
            failures.append(f"{name}: {v}: {reason[:300]}")
        elif name in KNOWN_GAPS and v == "equivalent":
            failures.append(f"{name}: now equivalent; remove it from KNOWN_GAPS")
        elif name not in KNOWN_GAPS and v != "equivalent":
            failures.append(f"{name}: {v}: {reason[:300]}")
    exercised = sorted(set().union(*used.values()))
    print(f"prims exercised ({len(exercised)}): {' '.join(exercised)}")
    if len(exercised) < MIN_PRIMS:
        failures.append(f"only {len(exercised)} prims exercised, fewer than {MIN_PRIMS}")
    for f in failures:
        print("FAIL " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

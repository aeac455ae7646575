"""Math-reference pairs for the fused ops that Inductor writes (issue 9, item 2).

Each pair's production graph calls the fused op (and, for a backward, the fused forward whose
saved outputs it reads) exactly as Inductor's rewritten graphs do; its reference is PyTorch's own
math form of the same computation, traced with make_fx:

  - attention: the reference implementation that ``F.scaled_dot_product_attention`` documents
    (see math_attention for why not ``aten._scaled_dot_product_attention_math`` itself), its
    log-sum-exp as ``torch.logsumexp`` of the scaled scores, and for a backward the gradients
    autograd computes through the math form;
  - ``prims.fma``, ``prims.prepare_softmax_online``, ``aten.var_mean.correction``: the formula
    the op's documentation gives (a * b + c; max and sum of exp; var and mean).

`torchtv check DIR --fusions fusions/inductor` must prove each pair (tests/inductor/run_fixtures.py
--fixtures tests/inductor/math_reference): a definition PyTorch's math disagrees with is a bug.
Pairs whose name ends in ``__bug_*`` plant a bug in the reference (a wrong scale, a shifted causal
diagonal) and must be refuted. Needs torch >= 2.4; CUDA ops only where CUDA is available:

    PYTHONPATH=src/capture python3 tools/inductor/math_reference.py --out tests/inductor/math_reference

Also prints what the efficient-attention kernel writes into the padding of its log-sum-exp
(the definition leaves those entries unspecified).
"""
import argparse
import functools
import importlib
import json
import os
import shutil
import sys

import torch
import torch.fx
from torch.fx.experimental.proxy_tensor import make_fx

aten = torch.ops.aten


def snapshot(gm, name):
    from torchtv_capture.fx_snapshot import snapshot_graph
    producer = {"tool": "tools/inductor/math_reference.py", "torch": torch.__version__}
    for n in list(gm.graph.nodes):  # a getitem of an absent output (an undefined gradient) has no value
        if n.op == "call_function" and "val" not in n.meta and not n.users:
            gm.graph.erase_node(n)
    return snapshot_graph(gm.graph, name, producer)


def single_call(op, inputs, build_args):
    """A graph of one call of `op` (make_fx would decompose a CompositeImplicit op such as the
    public scaled_dot_product_attention); build_args maps the placeholders to (args, kwargs)."""
    g = torch.fx.Graph()
    phs = []
    for i, t in enumerate(inputs):
        p = g.placeholder("in%d" % i)
        p.meta["val"] = t
        phs.append(p)
    args, kwargs = build_args(*phs)
    real_args, real_kwargs = build_args(*inputs)
    node = g.call_function(op, tuple(args), kwargs)
    node.meta["val"] = op(*real_args, **real_kwargs)
    g.output(node)
    return torch.fx.GraphModule(torch.nn.Module(), g)


def traced(fn, inputs):
    """make_fx of fn over exactly `inputs` (fn's extra keyword arguments are bound first)."""
    return make_fx(lambda *a: fn(*a))(*inputs)


def write_pair(out, name, reference, production, note):
    d = os.path.join(out, name)
    if os.path.exists(d):
        shutil.rmtree(d)
    from torchtv_capture.cli import write_dir
    capture = {"format": "torchtv-capture", "version": 1, "mode": "forward", "torch": torch.__version__,
               "source": "tools/inductor/math_reference.py: " + note,
               "reference": "reference.json", "production": "production.json", "fusions": {},
               "warnings": []}
    write_dir({"capture": capture, "graphs": {"reference": snapshot(reference, "reference"),
                                              "production": snapshot(production, "production"),
                                              "fusions": {}}}, d, force=True)
    return {"index": 1, "stage": "math_reference", "directory": name,
            "nodes_before": len(reference.graph.nodes), "nodes_after": len(production.graph.nodes),
            "changed": True, "error": None, "note": note}


# ---- the math forms (reference side) -------------------------------------------------------

def scores(q, k, scale):
    s = (1.0 / q.shape[-1] ** 0.5) if scale is None else scale
    return (q @ k.transpose(-2, -1)) * s


def math_attention(q, k, v, scale=None, causal=False, mask=None, bug_scale=0.0, bug_diagonal=0):
    """The reference implementation that F.scaled_dot_product_attention documents. (ATen's
    _scaled_dot_product_attention_math multiplies q and k each by the rounded square root of the
    scale: equal over the reals only with exact square roots, which double constants are not.
    The head dims E below are perfect squares, so that 1/sqrt(E) is exact as a double.)"""
    L, S = q.shape[-2], k.shape[-2]
    s = 1.0 / q.shape[-1] ** 0.5 if scale is None else scale
    x = scores(q, k, s + bug_scale)
    if causal:
        mask = torch.ones(L, S, dtype=torch.bool, device=q.device).tril(diagonal=bug_diagonal)
    if mask is not None:
        x = x.masked_fill(~mask, float("-inf")) if mask.dtype == torch.bool else x + mask
    return torch.softmax(x, -1) @ v


def math_lse(q, k, scale=None, causal=False):
    x = scores(q, k, scale)
    if causal:
        L, S = q.shape[-2], k.shape[-2]
        x = x.masked_fill(~torch.ones(L, S, dtype=torch.bool, device=q.device).tril(), float("-inf"))
    return torch.logsumexp(x, -1)


def vjp(f, primals, g):
    outs = f(*primals)
    return torch.autograd.grad(outs, primals, g)


def forward_and_backward(out, name, tag, qkv, g, ref_fwd, prod_fwd, prod_bwd, ref_attention, what):
    """Two pairs: NAME_TAG (the fused forward's output and log-sum-exp against ref_fwd) and
    NAME_backward_TAG (the fused backward's gradients against autograd through ref_attention)."""
    grads_of = tuple(t.clone().requires_grad_() for t in qkv)

    def ref_bwd(q, k, v, g):
        return vjp(ref_attention, (q, k, v), g)

    return [write_pair(out, "%s_%s" % (name, tag), traced(ref_fwd, qkv), traced(prod_fwd, qkv),
                       "%s against the math form" % what),
            write_pair(out, "%s_backward_%s" % (name, tag), traced(ref_bwd, grads_of + (g,)),
                       traced(prod_bwd, qkv + (g,)),
                       "%s backward against autograd through the math form" % what)]


# ---- the cases -----------------------------------------------------------------------------

def cpu_flash_cases(out):
    rows = []
    torch.manual_seed(0)
    B, H, L, S, E = 2, 2, 5, 7, 4
    q, k, v = (torch.randn(B, H, n, E, dtype=torch.float64) for n in (L, S, S))
    g = torch.randn(B, H, L, E, dtype=torch.float64)
    for scale, tag in ((None, "scale_none"), (0.3, "scale_0.3")):
        def prod_fwd(q, k, v, scale=scale):
            return aten._scaled_dot_product_flash_attention_for_cpu(q, k, v, 0.0, False, scale=scale)

        def prod_bwd(q, k, v, g, scale=scale):
            o, lse = aten._scaled_dot_product_flash_attention_for_cpu(q, k, v, 0.0, False, scale=scale)
            return aten._scaled_dot_product_flash_attention_for_cpu_backward(g, q, k, v, o, lse, 0.0, False,
                                                                             scale=scale)

        rows += forward_and_backward(out, "flash_cpu", tag, (q, k, v), g,
                                     lambda q, k, v, s=scale: (math_attention(q, k, v, s), math_lse(q, k, s)),
                                     prod_fwd, prod_bwd, lambda a, b, c, s=scale: math_attention(a, b, c, s),
                                     "_scaled_dot_product_flash_attention_for_cpu")
        if scale is not None:
            qr, kr, vr = (t.clone().requires_grad_() for t in (q, k, v))
            rows.append(write_pair(out, "flash_cpu_backward_%s__bug_scale" % tag,
                                   traced(lambda q, k, v, g: vjp(lambda a, b, c: math_attention(
                                       a, b, c, scale, bug_scale=1e-3), (q, k, v), g), (qr, kr, vr, g)),
                                   traced(prod_bwd, (q, k, v, g)),
                                   "planted bug: the reference's scale is 0.301"))
    return rows


def cuda_efficient_cases(out):
    rows = []
    torch.manual_seed(0)
    for T in (17, 32):
        B, H, E = 2, 2, 16
        q, k, v, g = (torch.randn(B, H, T, E, device="cuda") for _ in range(4))
        o, lse, seed, off = aten._scaled_dot_product_efficient_attention(q, k, v, None, True, 0.0, False)
        padding = "efficient attention T=%d: lse shape %s, padding entries %s" % (
            T, tuple(lse.shape), torch.unique(lse[..., T:]).tolist() if lse.shape[-1] > T else "none")
        print(padding)
        with open(os.path.join(out, "efficient_lse_padding.txt"), "a") as f:
            f.write(padding + "\n")

        def prod_fwd(q, k, v):
            o, lse, _, _ = aten._scaled_dot_product_efficient_attention(q, k, v, None, True, 0.0, False)
            return o, lse[..., :q.shape[-2]]

        def prod_bwd(q, k, v, g):
            o, lse, seed, off = aten._scaled_dot_product_efficient_attention(q, k, v, None, True, 0.0, False)
            gq, gk, gv, _ = aten._scaled_dot_product_efficient_attention_backward(
                g, q, k, v, None, o, lse, seed, off, 0.0, [True, True, True, False], False)
            return gq, gk, gv

        rows += forward_and_backward(out, "efficient_cuda", "T%d" % T, (q, k, v), g,
                                     lambda q, k, v: (math_attention(q, k, v), math_lse(q, k)),
                                     prod_fwd, prod_bwd, math_attention, "_scaled_dot_product_efficient_attention")
    return rows


def cuda_flash_cases(out):
    rows = []
    torch.manual_seed(0)
    B, H, T, E = 2, 2, 16, 16
    q, k, v, g = (torch.randn(B, H, T, E, device="cuda", dtype=torch.float16) for _ in range(4))
    for causal in (False, True):
        def prod_fwd(q, k, v, causal=causal):
            r = aten._scaled_dot_product_flash_attention(q, k, v, 0.0, causal, False)
            return r[0], r[1]

        def prod_bwd(q, k, v, g, causal=causal):
            r = aten._scaled_dot_product_flash_attention(q, k, v, 0.0, causal, False)
            return aten._scaled_dot_product_flash_attention_backward(
                g, q, k, v, r[0], r[1], r[2], r[3], r[4], r[5], 0.0, causal, r[6], r[7])

        def ref_fwd(q, k, v, causal=causal):  # the kernel computes in f32
            o = math_attention(q.float(), k.float(), v.float(), causal=causal).to(q.dtype)
            return o, math_lse(q.float(), k.float(), causal=causal)

        rows += forward_and_backward(out, "flash_cuda", "causal" if causal else "full", (q, k, v), g, ref_fwd,
                                     prod_fwd, prod_bwd, lambda a, b, c, c_=causal: math_attention(a, b, c, causal=c_),
                                     "_scaled_dot_product_flash_attention (f16)")
    return rows


def sdpa_cases(out):
    """The public op (issue 4's bundled definition) against its math form."""
    rows = []
    torch.manual_seed(0)
    B, H, L, S, E = 2, 2, 5, 7, 4
    q, k, v = (torch.randn(B, H, n, E, dtype=torch.float64) for n in (L, S, S))
    bool_mask = torch.rand(L, S) > 0.3
    bool_mask[:, 0] = True  # no fully masked row (a NaN in PyTorch's math form)
    float_mask = torch.randn(L, S, dtype=torch.float64)
    cases = [
        ("plain", (q, k, v), lambda q, k, v: ((q, k, v), {}), lambda q, k, v: math_attention(q, k, v)),
        ("scale", (q, k, v), lambda q, k, v: ((q, k, v), {"scale": 0.3}),
         lambda q, k, v: math_attention(q, k, v, 0.3)),
        ("causal", (q, k, v), lambda q, k, v: ((q, k, v, None, 0.0, True), {}),
         lambda q, k, v: math_attention(q, k, v, causal=True)),
        ("bool_mask", (q, k, v, bool_mask), lambda q, k, v, m: ((q, k, v, m), {}),
         lambda q, k, v, m: math_attention(q, k, v, mask=m)),
        ("float_mask", (q, k, v, float_mask), lambda q, k, v, m: ((q, k, v, m), {}),
         lambda q, k, v, m: math_attention(q, k, v, mask=m)),
        ("causal__bug_diagonal", (q, k, v), lambda q, k, v: ((q, k, v, None, 0.0, True), {}),
         lambda q, k, v: math_attention(q, k, v, causal=True, bug_diagonal=1)),
    ]
    for tag, inputs, build, ref in cases:
        rows.append(write_pair(out, "sdpa_%s" % tag, traced(ref, inputs),
                               single_call(aten.scaled_dot_product_attention.default, inputs, build),
                               "scaled_dot_product_attention (%s) against the math form" % tag))
    return rows


def prims_cases(out):
    rows = []
    torch.manual_seed(0)
    importlib.import_module("torch._inductor.inductor_prims")  # registers prims.prepare_softmax_online
    a, b, c = (torch.randn(3, 5) for _ in range(3))
    rows.append(write_pair(out, "prims_fma", traced(lambda a, b, c: a * b + c, (a, b, c)),
                           traced(lambda a, b, c: torch.ops.prims.fma(a, b, c), (a, b, c)),
                           "prims.fma against a * b + c"))
    x = torch.randn(4, 6)

    def online_ref(x):
        m = torch.amax(x, -1, keepdim=True)
        return m, torch.sum(torch.exp(x - m), -1, keepdim=True)

    rows.append(write_pair(out, "prims_prepare_softmax_online", traced(online_ref, (x,)),
                           traced(lambda x: torch.ops.prims.prepare_softmax_online(x, -1), (x,)),
                           "prims.prepare_softmax_online against its two statistics"))
    x3 = torch.randn(3, 4, 5)
    for dims, corr, keep in (([1], 1, True), ([0, 2], 0, False)):
        tag = "var_mean_%s_c%d%s" % ("_".join(map(str, dims)), corr, "_keep" if keep else "")
        rows.append(write_pair(out, tag, traced(lambda x: (torch.var(x, dims, correction=corr, keepdim=keep),
                                                           torch.mean(x, dims, keepdim=keep)), (x3,)),
                               traced(lambda x: aten.var_mean.correction(x, dims, correction=corr, keepdim=keep),
                                      (x3,)),
                               "var_mean.correction against var and mean"))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", default="cpu_flash,cuda_efficient,cuda_flash,sdpa,prims")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    groups = {"cpu_flash": cpu_flash_cases, "cuda_efficient": cuda_efficient_cases,
              "cuda_flash": cuda_flash_cases, "sdpa": sdpa_cases, "prims": prims_cases}
    index = []
    for name in args.only.split(","):
        if name.startswith("cuda") and not torch.cuda.is_available():
            print("skipped %s: no CUDA" % name)
            continue
        try:
            pairs = groups[name](args.out)
            status, error = "ok", None
        except Exception as e:  # keep the other groups
            import traceback
            traceback.print_exc()
            pairs, status, error = [], "failed", "%s: %s" % (type(e).__name__, str(e)[:600])
        print("%-15s %-7s %d pairs %s" % (name, status, len(pairs), error or ""), flush=True)
        index.append({"model": name, "device": "cuda" if name.startswith("cuda") else "cpu", "mode": "math_reference",
                      "status": status, "error": error, "torch": torch.__version__, "pairs": pairs})
    with open(os.path.join(args.out, "index.json"), "w") as f:
        json.dump(index, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

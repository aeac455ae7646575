"""A refutation of the graphs, run through the user's two functions.

Note [A refutation reproduces on the code]
The graphs torchtv decides are a capture of the code, not the code: a value frozen into the graph
as a constant (an nn.Parameter made from the inputs), code that checks whether it is traced, a
tracer bug. So a counterexample found on the graphs is only reported if the code shows it too:
after the decision, the pair's counterexample is run through reference() and production()
eagerly, as the eager cross-check runs them (Note [Eager cross-check] in eager.py: fresh copies of
the inputs, production on detached inputs, train_step's gradients by autograd), on the
counterexample's values in the inputs' own (captured) dtypes. An output "shows the difference"
there when
- production raises where the reference runs (every output shows it: the reference is defined on
  the input and production is not);
- one side is NaN or infinite where the other is finite, or the two are infinities of opposite
  sign, or an integer or bool output differs at all;
- both are finite and differ by more than the code's own precision can explain: more than
  sqrt(eps) of the output's dtype times the output's scale (its largest finite magnitude on
  either side; 3.5e-4 in float32, 1.5e-8 in float64, 0.088 in bfloat16). Rounding of a
  computation of any ordinary depth stays orders of magnitude below half the digits, and a bug
  that is a real difference of the formula on a chosen input is not that small;
- or, when the difference in the own dtype is smaller than that, the functions run again in
  float64 (every op of both in float64: Note [Float64 evidence only from float64 runs]) still
  differ there beyond the rounding the eager cross-check measures (_beyond_rounding in eager.py).
The counterexample's own output is judged at its element first; any element counts (the code
differs on this input), and the element that shows it is reported. An output that does not show
the difference is `unknown`: the capture is not the code that runs. Where the reference itself
raises on the input, nothing is shown: the input lies outside the reference's domain.
One Python run answers all of a pair's refuted outputs, on the pair's counterexample; a pair with
no refutation runs nothing.
"""
import math
import re

import torch

from .eager import _beyond_rounding, _detached, _fresh, _index, _run_production, _run_reference
from .export import UPDATED_SUFFIX
from .precision import BelowFloat64, describe
from .values import DTYPE_NAMES

_DTYPES = {v: k for k, v in DTYPE_NAMES.items()}
_TYPE_RE = re.compile(r"^(\w+)\[([^\]]*)\]$")


def _float(x):
    if isinstance(x, str):
        return float(x)  # "nan", "inf", "-inf"
    return float(x)


def _tensor(spec, like):
    m = _TYPE_RE.match(spec["type"])
    if m is None or m.group(1) not in _DTYPES:
        raise ValueError("input %s has a type torchtv cannot build: %s" % (spec.get("name"), spec["type"]))
    dtype = _DTYPES[m.group(1)]
    shape = [int(d) for d in m.group(2).split(",") if d.strip()]
    values = [_float(v) for v in spec["values"]]
    if dtype.is_floating_point:
        t = torch.tensor(values, dtype=torch.float64).to(dtype)
    else:
        t = torch.tensor([int(v) for v in values], dtype=torch.int64).to(dtype)
    t = t.reshape(shape)
    device = like.device if like is not None and like.device.type != "meta" else torch.device("cpu")
    t = t.to(device)
    wants_grad = like is not None and like.requires_grad and dtype.is_floating_point
    return t.requires_grad_(wants_grad)


def _json(x):
    return x if math.isfinite(x) else repr(x)


def _message(e):
    return "%s: %s" % (type(e).__name__, str(e).splitlines()[0][:200] if str(e) else "")


def _outputs(pair, run, fresh):
    """The function's outputs on ``fresh`` (copies of the inputs, which it may update: outputs
    NAME__updated) and those copies after it ran."""
    return _detached(run(pair, fresh)), fresh


def _value_of(name, position, outs, ins, input_names):
    if name.endswith(UPDATED_SUFFIX) and name[:-len(UPDATED_SUFFIX)] in input_names:
        return ins[input_names.index(name[:-len(UPDATED_SUFFIX)])].detach()
    return outs[position] if position < len(outs) else None


def _flat_index(index, shape):
    flat = 0
    for i, d in zip(index, shape):
        flat = flat * d + i
    return flat


def _shown_at(r, p, flat):
    """Why elements `flat` of r and p differ beyond the code's precision, or None."""
    rv, pv = float(r.reshape(-1)[flat]), float(p.reshape(-1)[flat])
    if not r.dtype.is_floating_point:
        return None if rv == pv else "differ"
    if math.isnan(rv) != math.isnan(pv) or math.isinf(rv) != math.isinf(pv):
        return "one is not finite"
    if math.isinf(rv) and rv != pv:
        return "infinities of opposite sign"
    return None


def precision_gap(r, p):
    """How r and p (same shape) differ, by the capture's one rule for values apart beyond their
    dtype's precision (here, and for FUSIONS definitions against their kernels: Note [A definition
    agrees with its kernel] in capture.py): (rd, pd) flat float64 copies, diff = |rd - pd| at the
    elements finite on both sides (0 elsewhere), tol = sqrt(eps of r's dtype) times the largest
    finite magnitude (0 for integers: any difference), and nonfinite, the elements where a
    non-finite value stands against another value (NaN against NaN is no difference)."""
    rd, pd = r.detach().double().reshape(-1), p.detach().double().reshape(-1)
    finite = torch.isfinite(rd) & torch.isfinite(pd)
    scale = float(torch.maximum(rd.abs(), pd.abs()).masked_fill(~finite, 0.0).max()) if finite.any() else 0.0
    tol = math.sqrt(torch.finfo(r.dtype).eps) * scale if r.dtype.is_floating_point else 0.0
    diff = (rd - pd).abs().masked_fill(~finite, 0.0)
    nonfinite = (~finite) & ~(torch.isnan(rd) & torch.isnan(pd)) & (rd != pd)
    return rd, pd, diff, tol, nonfinite


def _compare(r, p, index):
    """(shows, how) for one output of the code on the counterexample (Note [A refutation
    reproduces on the code])."""
    if r is None or p is None:
        return False, "the functions return no such output"
    if r.shape != p.shape or r.dtype != p.dtype:
        return True, "the outputs are %s %s in reference, %s %s in production" % (
            r.dtype, list(r.shape), p.dtype, list(p.shape))
    if r.numel() == 0:
        return False, "the outputs are empty"
    rd, pd, diff, tol, nonfinite = precision_gap(r, p)
    first = [_flat_index(index, r.shape)] if index is not None and len(index) == r.dim() else []
    others = [int(diff.argmax())] if bool((diff > tol).any()) else []
    if bool(nonfinite.any()):
        others.append(int(nonfinite.to(torch.uint8).argmax()))
    for flat in first + others:
        if flat >= rd.numel():
            continue
        rv, pv = float(rd[flat]), float(pd[flat])
        why = _shown_at(r.detach(), p.detach(), flat)
        if why is None and math.isfinite(rv) and math.isfinite(pv) and abs(rv - pv) > tol:
            why = "differ by %.3g, more than the %s precision explains (%.3g)" % (
                abs(rv - pv), str(r.dtype).replace("torch.", ""), tol)
        if why is not None:
            return True, {"index": _index(flat, list(r.shape)), "reference": _json(rv), "production": _json(pv),
                          "why": why}
    at = " at element %s" % _index(first[0], list(r.shape)) if first else ""
    worst = float(diff.max())
    return False, "the code's outputs agree%s within the %s precision (largest difference %.3g, rounding allows %.3g)" % (
        at, str(r.dtype).replace("torch.", ""), worst, tol)


def _wide_evidence(pair, inputs, names, positions, input_names, low_outs):
    """Per output, a difference the float64 runs show beyond rounding, or None; or a string
    saying why the float64 runs are no evidence."""
    if not any(t.dtype.is_floating_point for t in inputs):
        return "no floating inputs"
    try:
        ref_inputs, prod_inputs = _fresh(inputs, torch.float64), _fresh(inputs, torch.float64)
        with BelowFloat64(pair.user_files) as rm:  # only the functions' own ops
            rw, ri = _outputs(pair, _run_reference, ref_inputs)
        with BelowFloat64(pair.user_files) as pm:
            pw, pi = _outputs(pair, _run_production, prod_inputs)
    except Exception as e:  # noqa: BLE001 -- the own-dtype runs decide
        return "the functions do not run in float64 (%s)" % _message(e)
    for side, mode in (("reference", rm), ("production", pm)):
        if mode.first is not None:
            return describe(side, mode.first)
    found = {}
    for name, position in zip(names, positions):
        r = _value_of(name, position, rw, ri, input_names)
        p = _value_of(name, position, pw, pi, input_names)
        low_r, low_p = low_outs[name]
        if r is None or p is None or low_r is None or low_p is None:
            continue
        found[name] = _beyond_rounding(r, p, low_r, low_p)
    return found


def run_code(pair, request):
    """The reply to a request {"inputs": [{"name", "type", "values"}], "outputs": [{"name",
    "position", "index"}]}: {"ran": true, "outputs": [{"name", "shows", "how", ...}]}, or
    {"ran": false, "why"} (Note [A refutation reproduces on the code]); "reference_raises": true
    on an output the reference raises on (the verdict table's reference_raises row)."""
    likes = list(pair.example_inputs)
    specs = request["inputs"]
    if len(specs) != len(likes):
        return {"ran": False, "why": "the counterexample has %d inputs, the pair's functions take %d"
                % (len(specs), len(likes))}
    try:
        inputs = tuple(_tensor(s, like) for s, like in zip(specs, likes))
    except (ValueError, RuntimeError) as e:
        return {"ran": False, "why": _message(e)}
    names = [o["name"] for o in request["outputs"]]
    positions = [int(o["position"]) for o in request["outputs"]]
    index = {o["name"]: o.get("index") for o in request["outputs"]}
    input_names = list(pair.input_names)
    try:
        ref_outs, ref_ins = _outputs(pair, _run_reference, _fresh(inputs))
    except Exception as e:  # noqa: BLE001 -- outside the reference's domain
        how = "the reference raises on these inputs when it runs (%s): they lie outside its domain" % _message(e)
        return {"ran": True, "outputs": [{"name": n, "shows": False, "how": how, "reference_raises": True}
                                         for n in names]}
    try:
        prod_outs, prod_ins = _outputs(pair, _run_production, _fresh(inputs))
    except Exception as e:  # noqa: BLE001 -- production fails where the reference is defined
        how = "production raises on these inputs where the reference runs (%s)" % _message(e)
        return {"ran": True, "outputs": [{"name": n, "shows": True, "how": how} for n in names]}
    replies, low, pending = [], {}, []
    for name, position in zip(names, positions):
        r = _value_of(name, position, ref_outs, ref_ins, input_names)
        p = _value_of(name, position, prod_outs, prod_ins, input_names)
        low[name] = (r, p)
        shows, how = _compare(r, p, index[name])
        reply = {"name": name, "shows": shows}
        if isinstance(how, dict):
            reply.update(how)
            reply["how"] = "element %s is %s in reference, %s in production: %s" % (
                how["index"], how["reference"], how["production"], how["why"])
        else:
            reply["how"] = how
            if not shows and r is not None and p is not None and r.dtype.is_floating_point:
                pending.append(reply)
        replies.append(reply)
    if pending:
        wide = _wide_evidence(pair, inputs, [x["name"] for x in pending],
                              [positions[names.index(x["name"])] for x in pending], input_names, low)
        for reply in pending:
            if isinstance(wide, str):
                reply["how"] += "; the float64 runs are no evidence: " + wide
            elif wide.get(reply["name"]):
                reply["shows"] = True
                reply["how"] += "; but " + wide[reply["name"]]
    return {"ran": True, "outputs": replies}

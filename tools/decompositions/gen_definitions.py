#!/usr/bin/env python3
"""Gives ops without hand-written semantics the meaning of their torch 1.13 decomposition.

  /usr/bin/python3 tools/decompositions/gen_definitions.py [--torchtv build/torchtv]
      [--audit build/tests/semantics_audit] [--only OP]

For each op of SPECS, torch._decomp's decomposition is traced (through torchtv's own capture:
make_fx, the graph torchtv reads) twice, at two shapes of different ranks and with two sets of
sentinel values for the op's float arguments; the two traces must be the same graph but for
numbers that the arguments or the input's size explain (`$beta`, `numel(%x)`, ...). What remains
is written as a definition (Note [Fusion templates] in ir/text_format.h) of the op, together with
semantics-audit cases calling it. Every candidate then goes through the semantics audit against
LibTorch's kernel (tests/audit/semantics_audit.cpp, Note [Auditing definitions]) on random and
special inputs; only the ops whose every case agrees are written to fusions/decompositions.tvir
and their cases to tests/audit/decomposition_cases.txt. Why each other op got no definition goes
to tools/decompositions/not_generated.txt (read by scripts/gen_ops_table.py for docs/ops.md).

Note [Generated definitions]
A generated definition is the decomposition PyTorch itself ships for the op, not ATen's kernel:
it is applied by default like every bundled definition, and at level real only (an expansion of
an ATen op is never exact: Note [Exact expansions] in src/fusion/fusion_library.h). It is
shipped only where the audit shows the kernel and the definition agree within rounding on
random draws and give the same NaN, infinity and zero pattern on special ones (+-0, +-inf, NaN,
the dtype's extremes). A trace the two traces do not explain (a Python branch on an argument, a
dim list that depends on the rank, a constant computed from an argument in a way the template
language cannot write) is not generalised: the op gets a definition only at its default
arguments (a header guard), or none, with the reason.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT_DEFS = os.path.join(ROOT, "fusions", "decompositions.tvir")
OUT_CASES = os.path.join(ROOT, "tests", "audit", "decomposition_cases.txt")
OUT_REJECTED = os.path.join(ROOT, "tools", "decompositions", "not_generated.txt")
OUT_TABLE = os.path.join(ROOT, "tools", "decompositions", "decomposition_table_1_13.txt")

# Shapes of the two traces: different ranks, so a dim list baked into the trace shows.
SHAPE_A, SHAPE_B = [5, 7], [3, 2, 4]
# Sentinels of the float arguments: exactly representable, unlike any constant a decomposition uses.
SENTINELS_A = [1.2109375, 0.6171875, 1.7890625]
SENTINELS_B = [1.4453125, 0.8515625, 2.3046875]


class Free:
    """A float argument generalised to `$name` (its default is what the audit also calls)."""

    def __init__(self, default, other=None):
        self.default, self.other = default, other


class Fixed:
    """An argument with a definition per listed value (a header guard)."""

    def __init__(self, *values):
        self.values = values


# Tensor inputs: "x" a tensor of the call's shape, "unit" one in [0, 1] (a probability),
# "grad0" the 0-dim gradient of a reduced loss, "none" an absent optional tensor.
class Spec:
    def __init__(self, op, tensors, params=None, family="elementwise", outputs=1):
        self.op, self.tensors, self.params, self.family, self.outputs = op, tensors, params or {}, family, outputs


LOSS = Fixed(0, 1, 2)
SPECS = [
    # activations (torch.nn.functional and timm) and their backwards
    Spec("softplus", [("self", "x")], {"beta": Free(1.0, 2.0), "threshold": Free(20.0, 1.0)}),
    Spec("softplus_backward", [("grad_output", "x"), ("self", "x")], {"beta": Free(1.0, 2.0), "threshold": Free(20.0, 1.0)}),
    Spec("elu", [("self", "x")], {"alpha": Free(1.0, 0.5), "scale": Free(1.0, 1.0507), "input_scale": Free(1.0, 2.0)}),
    Spec("elu_backward", [("grad_output", "x"), ("self_or_result", "x")],
         {"alpha": Free(1.0, 0.5), "scale": Free(1.0, 1.0507), "input_scale": Free(1.0, 2.0), "is_result": Fixed(False, True)}),
    Spec("celu", [("self", "x")], {"alpha": Free(1.0, 0.5)}),
    Spec("hardswish", [("self", "x")]),
    Spec("hardswish_backward", [("grad_output", "x"), ("self", "x")]),
    Spec("hardsigmoid", [("self", "x")]),
    Spec("hardsigmoid_backward", [("grad_output", "x"), ("self", "x")]),
    Spec("hardtanh_backward", [("grad_output", "x"), ("self", "x")], {"min_val": Free(-1.0, -2.0), "max_val": Free(1.0, 3.0)}),
    Spec("mish", [("self", "x")]),
    Spec("mish_backward", [("grad_output", "x"), ("self", "x")]),
    Spec("logit", [("self", "unit")], {"eps": Fixed(None)}),
    Spec("logit_backward", [("grad_output", "x"), ("self", "unit")], {"eps": Fixed(None)}),
    Spec("log_sigmoid_forward", [("self", "x")], outputs=2),
    Spec("leaky_relu_backward", [("grad_output", "x"), ("self", "x")], {"negative_slope": Free(0.01, 0.2), "self_is_result": Fixed(False)}),
    Spec("softshrink", [("self", "x")], {"lambd": Free(0.5, 1.5)}),
    Spec("hardshrink", [("self", "x")], {"lambd": Free(0.5, 1.5)}),
    # pointwise arithmetic
    Spec("nan_to_num", [("self", "x")], {"nan": Free(0.0, 1.5), "posinf": Free(1e4, 3.0), "neginf": Free(-1e4, -3.0)}),
    Spec("copysign.Tensor", [("self", "x"), ("other", "x")]),
    Spec("heaviside", [("self", "x"), ("values", "x")]),
    Spec("frac", [("self", "x")]),
    Spec("sgn", [("self", "x")]),
    Spec("sinc", [("self", "x")]),
    Spec("xlogy.Tensor", [("self", "x"), ("other", "x")]),
    Spec("floor_divide", [("self", "x"), ("other", "x")]),
    Spec("clamp_min.Tensor", [("self", "x"), ("min", "x")]),
    Spec("clamp_max.Tensor", [("self", "x"), ("max", "x")]),
    # losses: reduction 0 none, 1 mean, 2 sum
    Spec("huber_loss", [("self", "x"), ("target", "x")], {"reduction": LOSS, "delta": Free(1.0, 0.5)}, family="loss"),
    Spec("huber_loss_backward", [("grad_output", "x"), ("self", "x"), ("target", "x")],
         {"reduction": LOSS, "delta": Free(1.0, 0.5)}, family="loss_backward"),
    Spec("soft_margin_loss", [("self", "x"), ("target", "x")], {"reduction": LOSS}, family="loss"),
    Spec("soft_margin_loss_backward", [("grad_output", "x"), ("self", "x"), ("target", "x")], {"reduction": LOSS},
         family="loss_backward"),
    Spec("binary_cross_entropy", [("self", "unit"), ("target", "unit"), ("weight", "none")], {"reduction": LOSS}, family="loss"),
    Spec("binary_cross_entropy_backward", [("grad_output", "x"), ("self", "unit"), ("target", "unit"), ("weight", "none")],
         {"reduction": LOSS}, family="loss_backward"),
    Spec("binary_cross_entropy_with_logits", [("self", "x"), ("target", "unit"), ("weight", "none"), ("pos_weight", "none")],
         {"reduction": LOSS}, family="loss"),
]

PAIR = '''import torch
from torch._decomp import decomposition_table
OP = torch.ops.aten.{opname}.{overload}
DECOMP = decomposition_table[OP]


def example_inputs():
    torch.manual_seed(0)
    return ({inputs},)


def production({params}):
    r = DECOMP({call})
    return tuple(r) if isinstance(r, tuple) else r


reference = production
'''


def schema(op):
    import torch
    name, _, overload = op.partition(".")
    return getattr(getattr(torch.ops.aten, name), overload or "default")._schema


def tensor_expr(kind, shape, dtype):
    if kind == "unit":
        return "torch.rand(%r, dtype=torch.%s)" % (shape, dtype)
    return "torch.randn(%r, dtype=torch.%s)" % (shape, dtype)


def grad_shape(spec, reduction, shape):
    return [] if spec.family == "loss_backward" and reduction != 0 else shape


def pair_text(spec, values, shape, dtype):
    """The pair file whose production is the decomposition called with `values` (name -> value)."""
    name, _, overload = spec.op.partition(".")
    present = [(n, k) for n, k in spec.tensors if k != "none"]
    reduction = values.get("reduction", 0)
    inputs = [tensor_expr(k, grad_shape(spec, reduction, shape) if n == "grad_output" else shape, dtype) for n, k in present]
    params = ", ".join("t_" + n for n, _ in present)
    args = []
    for a in schema(spec.op).arguments:
        if a.name in dict(spec.tensors):
            kind = dict(spec.tensors)[a.name]
            value = "None" if kind == "none" else "t_" + a.name
        else:
            value = repr(values[a.name])
        args.append("%s=%s" % (a.name, value) if a.kwarg_only else value)
    return PAIR.format(opname=name, overload=overload or "default", inputs=", ".join(inputs), params=params,
                       call=", ".join(args))


def capture_all(torchtv, pairs, tmp):
    """{key: tvir text of the production graph, or an error string starting with 'error: '}.
    Captured in this process by torchtv's own capture (the traces only: nothing here is the
    user's code, so its eager cross-check is not run)."""
    sys.path.insert(0, os.path.join(ROOT, "src", "capture"))
    from torchtv_capture import capture as capture_module
    from torchtv_capture.pairfile import load_pair
    result = {}
    for k, (key, text) in enumerate(pairs):
        path = os.path.join(tmp, "p%d.py" % len(os.listdir(tmp)))
        with open(path, "w") as f:
            f.write(text)
        try:
            graphs, _ = capture_module._capture(load_pair(path))
        except Exception as e:  # noqa: BLE001 - the reason goes to not_generated.txt
            result[key] = "error: capture: %s" % str(e).splitlines()[0]
            continue
        graph = path[:-3] + ".json"
        with open(graph, "w") as f:
            json.dump(graphs["graphs"]["production"], f)
        p = subprocess.run([torchtv, "show", graph], capture_output=True, text=True)
        result[key] = p.stdout if p.returncode == 0 else "error: show: " + p.stderr.strip()
    return result


TYPE = re.compile(r"\b(bool|u8|i8|i16|i32|i64|f16|bf16|f32|f64)\[([^\]]*)\]")


def generic_type(m):
    """A traced type in the template's terms: the inputs' dtype is `$T`, the inputs' shape (either
    trace's) `...` (Note [Leading dims in definitions] in ir/graph_pattern.cpp), a 0-dim shape
    `[]`; any other shape is left to the op's shape rule (`_`)."""
    dtype = "$T" if m.group(1) in ("f32", "f64") else m.group(1)
    dims = [int(d) for d in m.group(2).split(",") if d.strip()]
    if dims in (SHAPE_A, SHAPE_B):
        return dtype + "[...]"
    return dtype + "[]" if not dims else "_"
NUMBER = re.compile(r"(?<![\w%$])-?(?:\d+\.\d*(?:e[-+]?\d+)?|\d+e[-+]?\d+|\d+|inf|nan)(?!\w)")


def body_of(text):
    """(input names, body lines, return line) of the graph `torchtv show` printed, types erased."""
    lines = [re.sub(r' loc\(.*\)$', "", l) for l in text.strip().splitlines() if not l.startswith("op ")]
    head = lines[0]
    inputs = re.findall(r"%(\w+):", head[:head.index(") ->")])
    body = [TYPE.sub(generic_type, l) for l in lines[1:-1]]
    return inputs, body


def explain(a, b, env_a, env_b):
    """A template expression equal to a in trace A and b in trace B, or None."""
    fa, fb = float(a), float(b)
    return next((e for e in env_a if env_a[e] == fa and env_b[e] == fb), None)


def candidates(params_a, params_b, numel_a, numel_b, first):
    """Template expressions and their values in the two traces."""
    ea, eb = {}, {}
    for name in params_a:
        if isinstance(params_a[name], float):
            for expr, f in (("$%s" % name, lambda v: v), ("div(1.0, $%s)" % name, lambda v: 1.0 / v if v else None),
                            ("div($%s, -1.0)" % name, lambda v: -v), ("div($%s, 2.0)" % name, lambda v: v / 2.0),
                            ("div($%s, -2.0)" % name, lambda v: v / -2.0)):
                ea[expr], eb[expr] = f(params_a[name]), f(params_b[name])
            if first:  # a float argument over the number of elements (a mean loss's gradient)
                for expr, f in (("div($%s, numel(%%%s))" % (name, first), lambda v, n: v / n),
                                ("div(div($%s, -1.0), numel(%%%s))" % (name, first), lambda v, n: -v / n)):
                    ea[expr], eb[expr] = f(params_a[name], numel_a), f(params_b[name], numel_b)
    floats = [n for n in params_a if isinstance(params_a[n], float)]
    for i, p in enumerate(floats):  # a product of two float arguments (elu's alpha * scale)
        for q in floats[i + 1:]:
            expr = "mul($%s, $%s)" % (p, q)
            ea[expr], eb[expr] = params_a[p] * params_a[q], params_b[p] * params_b[q]
    if first:
        for expr, f in (("numel(%%%s)" % first, lambda n: float(n)), ("div(1.0, numel(%%%s))" % first, lambda n: 1.0 / n),
                        ("div(-1.0, numel(%%%s))" % first, lambda n: -1.0 / n),
                        ("div(2.0, numel(%%%s))" % first, lambda n: 2.0 / n)):
            ea[expr], eb[expr] = f(numel_a), f(numel_b)
    return ea, eb


def generalise(text_a, text_b, ea, eb):
    """The template body explaining both traces, or (None, why)."""
    ins_a, body_a = body_of(text_a)
    ins_b, body_b = body_of(text_b)
    if ins_a != ins_b or len(body_a) != len(body_b):
        return None, "the two traces differ in structure (a branch on an argument or on the shape)"
    out = []
    for la, lb in zip(body_a, body_b):
        ta, tb = NUMBER.split(la), NUMBER.split(lb)
        na, nb = NUMBER.findall(la), NUMBER.findall(lb)
        if ta != tb or len(na) != len(nb):
            return None, "the two traces differ in structure: %r vs %r" % (la, lb)
        line = ta[0]
        for k, (a, b) in enumerate(zip(na, nb)):
            if a != b:
                a = explain(a, b, ea, eb)
                if a is None:
                    return None, "a constant no argument explains: %s vs %s in %r" % (na[k], nb[k], la.strip())
            line += a + ta[k + 1]
        out.append(line)
    return (ins_a, out), ""


def header_value(v):
    if v is None:
        return "none"
    if isinstance(v, bool):
        return "true" if v else "false"
    return repr(v)


def variants(spec):
    """Every combination of the Fixed values (name -> value)."""
    combos = [{}]
    for name, p in spec.params.items():
        if isinstance(p, Fixed):
            combos = [dict(c, **{name: v}) for c in combos for v in p.values]
    return combos


def free_values(spec, sentinels):
    vals, k = {}, 0
    for name, p in spec.params.items():
        if isinstance(p, Free):
            vals[name] = sentinels[k]
            k += 1
    return vals


def defaults(spec, which="default"):
    return {n: getattr(p, which) for n, p in spec.params.items() if isinstance(p, Free)}


def definition(spec, fixed, free, inputs, body, typed):
    """The template's text; `typed`: the body names the inputs' dtype as `$T`."""
    reduction = fixed.get("reduction", 0)
    def input_type(n, k):
        if k == "none":
            return "none"
        return "$T[]" if (n == "grad_output" and spec.family == "loss_backward" and reduction != 0) else "$T[...]"
    tensors = ", ".join("%%%s: %s" % (n, input_type(n, k)) for n, k in spec.tensors)
    attrs = []
    for a in schema(spec.op).arguments:
        if a.name in dict(spec.tensors):
            continue
        attrs.append("%s=%s" % (a.name, "$" + a.name if a.name in free else header_value(fixed.get(a.name))))
    header = "graph @aten::%s(%s)%s -> (%s) {" % (spec.op, tensors, " {%s}" % ", ".join(attrs) if attrs else "",
                                                  ", ".join(["_"] * spec.outputs))
    renamed = []
    names = {i: n for i, n in zip(inputs, [n for n, k in spec.tensors if k != "none"])}
    for line in body:
        for old, new in names.items():
            line = re.sub(r"%%%s\b" % re.escape(old), "%" + new, line)
        renamed.append(line)
    return "\n".join([header] + renamed + ["}"])


def audit_cases(spec, fixed, free_calls):
    """Audit cases: the op called at the definition's fixed values and each free-value set."""
    out = []
    reduction = fixed.get("reduction", 0)
    reduced = spec.family in ("loss", "loss_backward") and reduction != 0
    for free in free_calls:
        ins, operands = [], []
        for n, k in spec.tensors:
            if k == "none":
                operands.append("none")
                continue
            name = ("unit_" if k == "unit" else "") + n
            shape = "[]" if (n == "grad_output" and spec.family == "loss_backward" and reduction != 0) else "$S"
            ins.append("%%%s: $T%s" % (name, shape))
            operands.append("%" + name)
        attrs = []
        for a in schema(spec.op).arguments:
            if a.name in dict(spec.tensors):
                continue
            attrs.append("%s=%s" % (a.name, header_value(free[a.name] if a.name in free else fixed.get(a.name))))
        result = "$T[]" if (spec.family == "loss" and reduced) else "$T$S"
        outs = ["%%y%d" % k for k in range(spec.outputs)]
        results = ", ".join([result] * spec.outputs)
        graph = "(%s) -> (%s) {\n  %s = aten::%s(%s)%s\n  return %s\n}" % (
            ", ".join(ins), results, ", ".join("%s: %s" % (o, result) for o in outs), spec.op, ", ".join(operands),
            " {%s}" % ", ".join(attrs) if attrs else "", ", ".join(outs))
        elementwise = spec.family == "elementwise"
        shapes = "[2,37];[1];[0,3];[]" if elementwise else "[3,5];[2,3,4]"
        out.append("case aten::%s f32,f64 %s%s\n%s" % (spec.op, shapes, " elementwise" if elementwise else "", graph))
    return out


def reduce_body(body, reduction):
    """apply_loss_reduction (torch/_decomp/decompositions.py): the unreduced loss's mean or sum."""
    last = re.match(r"\s*return %(\w+)", body[-1]).group(1)
    op = "aten::mean" if reduction == 1 else "aten::sum"
    extra = "{dtype=none}"
    return body[:-1] + ["  %%reduced: _ = %s(%%%s) %s" % (op, last, extra), "  return %reduced"]


def generate(torchtv, spec, tmp):
    """(definitions [(text, [cases])], reason) for one spec."""
    jobs, plans = [], []
    for vi, fixed in enumerate(variants(spec)):
        traced_fixed = dict(fixed)
        if spec.family == "loss":
            traced_fixed["reduction"] = 0  # the unreduced loss, reduced as apply_loss_reduction does
        for mode in ("free", "default"):
            if mode == "free":
                va, vb = free_values(spec, SENTINELS_A), free_values(spec, SENTINELS_B)
            else:
                va = vb = defaults(spec)
            key = (spec.op, repr(fixed), mode)
            jobs.append((key + ("A",), pair_text(spec, dict(traced_fixed, **va), SHAPE_A, "float32")))
            jobs.append((key + ("B",), pair_text(spec, dict(traced_fixed, **vb), SHAPE_B, "float32")))
            jobs.append((key + ("C",), pair_text(spec, dict(traced_fixed, **va), SHAPE_A, "float64")))
            plans.append((vi, mode, key, va, vb))
    texts = capture_all(torchtv, jobs, tmp)
    defs, reasons = [], []
    for vi, fixed in enumerate(variants(spec)):
        made = None
        for fx, mode, key, va, vb in plans:
            if fx != vi or made:
                continue
            if mode == "default" and not any(isinstance(p, Free) for p in spec.params.values()):
                continue
            ta, tb, tc = texts[key + ("A",)], texts[key + ("B",)], texts[key + ("C",)]
            err = next((t for t in (ta, tb, tc) if t.startswith("error: ")), None)
            if err:
                reasons.append(err[7:].splitlines()[0])
                continue
            # A dtype the trace names (scalar_tensor's, full's) is the inputs' own: `$T`.
            typed = "=f32" in ta
            ta, tb = (re.sub(r"=f32\b", "=$T", t) for t in (ta, tb))
            if body_of(ta) != body_of(re.sub(r"=f64\b", "=$T", tc)):
                reasons.append("the trace depends on the dtype beyond naming the inputs' own")
                continue
            first = next(n for n, k in spec.tensors if k != "none" and n != "grad_output")
            ins_a, _ = body_of(ta)
            first_name = ins_a[[n for n, k in spec.tensors if k != "none"].index(first)]
            ea, eb = candidates(va, vb, 35, 24, first_name)
            if mode == "default":  # only the defaults' own values may appear, as guards
                ea = {k: v for k, v in ea.items() if k.startswith("numel") or k.startswith("div(1.0, numel")}
                eb = {k: eb[k] for k in ea}
            g, why = generalise(ta, tb, ea, eb)
            if g is None:
                reasons.append(why)
                continue
            inputs, body = g
            free = set(va) if mode == "free" else set()
            header_fixed = dict(fixed, **({} if mode == "free" else defaults(spec)))
            calls = [defaults(spec), defaults(spec, "other")] if mode == "free" and va else [{}]
            if spec.family == "loss" and fixed.get("reduction", 0) != 0:
                body = reduce_body(body, fixed["reduction"])
            made = (definition(spec, header_fixed, free, inputs, body, typed), audit_cases(spec, header_fixed, calls))
        if made:
            defs.append(made)
    return defs, "; ".join(dict.fromkeys(reasons))


def run_audit(audit, defs, tmp):
    """{op: failure or ''} from the semantics audit of the candidate definitions."""
    cand = os.path.join(tmp, "candidates")
    os.makedirs(cand, exist_ok=True)
    with open(os.path.join(cand, "decompositions.tvir"), "w") as f:
        f.write("\n\n".join(d for d, _ in defs) + "\n")
    cases = os.path.join(tmp, "cases.txt")
    with open(cases, "w") as f:
        f.write("\n".join(c for _, cs in defs for c in cs) + "\n")
    out = os.path.join(tmp, "audit.tsv")
    p = subprocess.run([audit, "--fusions", cand, "--cases", cases, "--cases-only", "--out", out],
                       capture_output=True, text=True)
    if not os.path.exists(out):
        raise SystemExit("the semantics audit did not run: " + (p.stderr or p.stdout)[-2000:])
    verdicts = {}
    for line in open(out).read().splitlines()[1:]:
        if line.startswith("#"):
            continue
        op, dtype, _, _, agreement, note = (line.split("\t") + [""] * 6)[:6]
        op = op.split(" ")[0]
        if agreement.startswith("DISAGREE") or agreement.startswith("not run"):
            if not verdicts.get(op):  # the op's first failing row is its reason
                verdicts[op] = "audit: %s at %s: %s" % (agreement, dtype, note[:160])
        else:
            verdicts.setdefault(op, "")
    return verdicts


def write_table_list():
    """tools/decompositions/decomposition_table_1_13.txt: the functional overloads of torch 1.13's
    decomposition table (no out= or in-place forms: a capture reads those as functional ops), the
    rows of docs/ops.md's section on it."""
    import torch
    from torch._decomp import decomposition_table
    ops = set()
    for op in decomposition_table:
        s = op._schema
        if s.name.endswith("_") or any(a.alias_info is not None and a.alias_info.is_write for a in s.arguments):
            continue
        ops.add(s.name + ("." + s.overload_name if s.overload_name else ""))
    with open(OUT_TABLE, "w") as f:
        f.write("# GENERATED by tools/decompositions/gen_definitions.py: the functional overloads of torch %s's\n"
                "# torch._decomp.decomposition_table (the rows of docs/ops.md's decomposition section).\n"
                % torch.__version__.split("+")[0])
        f.write("".join(op + "\n" for op in sorted(ops)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--torchtv", default=os.path.join(ROOT, "build", "torchtv"))
    ap.add_argument("--audit", default=os.path.join(ROOT, "build", "tests", "semantics_audit"))
    ap.add_argument("--only")
    ap.add_argument("--keep", metavar="DIR", help="work in DIR and keep it (traces, candidates, audit table)")
    args = ap.parse_args()
    shipped, cases, rejected, partial = [], [], [], []
    coverage = subprocess.run([args.torchtv, "show", "--op-coverage"], capture_output=True, text=True, check=True).stdout
    own = {l.split("\t")[0] for l in coverage.splitlines() if l.split("\t")[1] == "smt"}
    with tempfile.TemporaryDirectory() as tmp:
        if args.keep:
            tmp = args.keep
            os.makedirs(tmp, exist_ok=True)
        made = []
        for spec in SPECS:
            if args.only and spec.op != args.only:
                continue
            if "aten::" + spec.op in own:
                rejected.append((spec.op, "has semantics of its own in src/sem (a definition would replace them)"))
                continue
            defs, why = generate(args.torchtv, spec, tmp)
            if defs and why:
                partial.append((spec.op, "some calls not generated: " + why))
            if not defs:
                rejected.append((spec.op, "not generated: " + (why or "no trace")))
                print("%-36s not generated: %s" % (spec.op, why))
                continue
            made.append((spec, defs))
        verdicts = run_audit(args.audit, [d for _, defs in made for d in defs], tmp)
        for spec, defs in made:
            failure = verdicts.get("aten::" + spec.op)
            if failure is None:
                failure = "audit: no row"
            if failure:
                rejected.append((spec.op, failure))
                print("%-36s rejected: %s" % (spec.op, failure))
                continue
            print("%-36s shipped (%d definition(s))" % (spec.op, len(defs)))
            shipped.append("# aten::%s: torch._decomp.decomposition_table[aten.%s]\n" % (spec.op, spec.op) +
                           "\n\n".join(d for d, _ in defs))
            cases.extend(c for _, cs in defs for c in cs)
    header = ("# GENERATED by tools/decompositions/gen_definitions.py from torch 1.13's torch._decomp; do not edit.\n"
              "# Each op's definition is its decomposition, traced; shipped only where the semantics audit\n"
              "# agrees with LibTorch's kernel (Note [Generated definitions] in the script). Level real.\n\n")
    if not args.only:
        write_table_list()
        with open(OUT_DEFS, "w") as f:
            f.write(header + "\n\n".join(shipped) + "\n")
        with open(OUT_CASES, "w") as f:
            f.write("# GENERATED by tools/decompositions/gen_definitions.py: the semantics audit's cases of\n"
                    "# fusions/decompositions.tvir (Note [Auditing definitions] in tests/audit/semantics_audit.cpp).\n"
                    + "\n".join(cases) + "\n")
        with open(OUT_REJECTED, "w") as f:
            f.write("# GENERATED by tools/decompositions/gen_definitions.py: ops it tried and did not ship, and why.\n")
            f.write("".join("aten::%s\t%s\n" % (op, why.replace("UNLISTED: ", "")) for op, why in rejected))
            f.write("# Shipped, but not for every call the generator tried:\n")
            f.write("".join("# aten::%s\t%s\n" % (op, why) for op, why in partial))
    return 0


if __name__ == "__main__":
    sys.exit(main())

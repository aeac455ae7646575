"""Capturing a pair file: reference, production and FUSIONS graphs."""
import contextlib
import gc
import re

import torch

from .code_runs import precision_gap
from .eager import _index, eager_check
from .errors import CaptureError
from .export import UPDATED_SUFFIX, graph_to_json, input_updates, node_metas, traced_meta
from .fake import fake_capture, is_fake
from .locations import LocationRecorder
from .pairfile import load_pair, return_line
from .scalar_reads import describe_reads
from .sources import code_files
from .tracing import trace_forward, trace_joint, trace_production, run_make_fx
from .values import bind_args, canonical_name, encode_value, dtype_name
from .world import reference_output_names, with_rank_copies

TOOL = "torchtv_capture"
CAPTURE_FORMAT = "torchtv-capture"
CAPTURE_VERSION = 1


def fusion_file_name(qualname):
    """ns::op -> fusions/ns__op.json; the n-th signature's key ns::op#n -> fusions/ns__op.n.json
    (an overload name never starts with a digit, so the two cannot collide)."""
    name = qualname.replace("::", "__").replace("#", ".")
    return "fusions/" + re.sub(r"[^A-Za-z0-9._-]", "_", name) + ".json"


def _output_nodes(gm):
    out = next(n for n in gm.graph.nodes if n.op == "output")
    res = out.args[0]
    if isinstance(res, torch.fx.Node):
        return [res], True
    if isinstance(res, (tuple, list)):
        return list(res), False
    return [res], True


def _fmt_meta(m):
    if isinstance(m, tuple) and len(m) == 2 and isinstance(m[0], torch.dtype):
        try:
            dt = dtype_name(m[0])
        except CaptureError:
            dt = str(m[0])
        return "%s%s" % (dt, list(m[1]))
    return repr(m)


def _nothing_returned_as_no_outputs(gm):
    """A function that returns nothing (None) returns no tensors: its graph's outputs are () and
    what it computes is the inputs it updates in place (an optimizer step; Note [Input
    mutations])."""
    out = next(n for n in gm.graph.nodes if n.op == "output")
    if out.args[0] is None:
        out.args = ((),)
        gm.recompile()


def _check_outputs_are_tensors(gm, what, fn, pair):
    nodes, _ = _output_nodes(gm)
    for i, r in enumerate(nodes):
        if not isinstance(r, torch.fx.Node):
            raise CaptureError("%s must return a tensor or a tuple of tensors, but its output %d is %r"
                               % (what, i, r), pair.path, return_line(fn))
        m = traced_meta(r)
        if isinstance(m, tuple) and isinstance(m[0], torch.dtype) and m[0].is_complex:
            raise CaptureError("%s's output %d is %s: complex values inside the function are supported, "
                               "complex outputs not yet; return torch.view_as_real(...) of it (docs/complex.md)"
                               % (what, i, m[0]), pair.path, return_line(fn))


def capture_pair(path):
    """Captures the pair file at ``path``. Returns
    {"capture": capture_json, "graphs": {"reference": g, "production": g, "fusions": {name: g}}}.
    Raises CaptureError. The pair file is executed as a module; a pair that registers a
    torch.library namespace ("DEF") can be captured only once per process."""
    return capture_loaded_pair(load_pair(path))


# Note [Tracing without the cycle collector]
# The traces and the export build graphs of tens of thousands of nodes, each several Python
# objects that stay alive until the capture is written, and Python's cycle collector scans all of
# them in each of its full collections, which their own allocations keep triggering: at 64
# realistic layers 6 full collections took 1.3 s of a 9.3 s capture (without the eager check).
# Nothing those objects form is garbage before the capture ends, so the collector is off while
# they are built and on again after (the objects are scanned once then, about a third of the
# cost); what the traces leave as cyclic garbage is collected then. Measured: 1.3 s less CPU at
# 64 layers, peak memory 10 MB more (bench/results/capture.md).
@contextlib.contextmanager
def _without_cycle_collection():
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def capture_loaded_pair(pair):
    """Captures an already loaded (and validated) Pair; see capture_pair."""
    early = None  # (output names, eager record) of the runs at small_inputs(), made before tracing
    if pair.fake and pair.small_inputs is not None:
        early = _runs_at_small_inputs(pair)
        if early is not None and _runs_refute(early[1]):
            refuted = _capture_refuted_at_small_inputs(pair, *early)
            if refuted is not None:
                return refuted
    with fake_capture(pair), _without_cycle_collection():
        result, out_names = _capture(pair)
    # outside the fake mode: a shape-only pair's small_inputs() are real tensors
    capture = result["capture"]
    # The runs made before tracing are the record when they ran the outputs traced (the same check
    # on the same inputs: at 126 layers it is about 10 s of CPU, not run twice).
    capture["eager_check"] = early[1] if early is not None and early[0] == out_names else eager_check(pair, out_names)
    if not capture["eager_check"]["ran"]:
        capture["warnings"].append("eager cross-check not run: " + capture["eager_check"]["why"])
    elif capture["eager_check"].get("reduced_shapes") and _runs_refute(capture["eager_check"]):
        _capture_reduced(pair, out_names, result)
    capture["code_files"] = code_files(pair.path)
    return result


def _runs_refute(record):
    return any(o.get("beyond_rounding") for o in record.get("outputs", []))


def _output_names(pair):
    """The outputs' names as _capture gives them, from running reference() at small_inputs()
    (train_step: the loss and the gradients of the inputs requiring grad); None when it fails."""
    r = None
    if pair.mode != "train_step":
        try:
            with torch.no_grad():
                r = pair.reference(*(t.detach().clone() for t in pair.small_inputs))
        except Exception:  # noqa: BLE001 -- the full capture says what is wrong
            return None
    names = reference_output_names(pair, r)
    return with_rank_copies(pair, names, names)[1]


def _runs_at_small_inputs(pair):
    """The output names and the eager record of a shape-only pair's runs at small_inputs(), before
    anything is traced (Note [Refuted before the shape-only capture]); None when the names cannot
    be told or the runs did not run."""
    names = _output_names(pair)
    if names is None:
        return None
    record = eager_check(pair, names)
    return (names, record) if record.get("ran") else None


def _capture_refuted_at_small_inputs(pair, names, record):
    """Note [Refuted before the shape-only capture]
    A shape-only pair's eager runs at small_inputs() come first: when they differ beyond rounding,
    the pair is not equivalent whatever its graphs at the captured shapes say, and a
    counterexample at the reduced shapes is a real input on which the two functions differ. The
    shape-only capture (fake tensors: at 64 layers about two thirds of the capture's time) cannot
    change that verdict and is skipped: the pair is captured at the shapes of small_inputs() only,
    and those graphs are the capture's (`"reduced_only": true` in capture.json). The checker
    refutes, shrinks and localizes on them (Note [Refuting at reduced shapes] in
    src/verify/reduced_shapes.h) and proves nothing: an output the runs did not refute is
    unknown, saying the realistic shapes were not captured (a proof at other shapes is no proof
    at the captured ones). None when the runs do not refute (or cannot run, or the reduced capture
    fails or has another interface): the full capture follows, as before, and keeps `record` when
    it traces the same outputs."""
    import copy
    small = copy.copy(pair)
    small.example_inputs, small.fake = pair.small_inputs, False
    try:
        result, out_names = _capture(small)
    except CaptureError:
        return None  # the full capture, which captures the reduced shapes again and warns
    if out_names != names:
        return None
    capture = result["capture"]
    capture["eager_check"] = record
    capture["reduced_only"] = True
    capture["warnings"].append(
        "the runs at small_inputs() refute the pair, so it was captured at those shapes only: outputs they "
        "do not refute are not checked at the example_inputs() shapes (fix the difference and verify again)")
    capture["code_files"] = code_files(pair.path)
    return result


def _capture_reduced(pair, out_names, result):
    """Note [Reduced-shape graphs]
    A shape-only pair whose eager runs at small_inputs() differ beyond rounding is refuted by
    running the code, but that counterexample is the runs': neither shrunk nor localized. So the
    pair is captured a second time at the shapes of small_inputs() (real tensors, the same capture
    code) and the graphs go into the capture as "reduced"; the checker refutes them with its own
    machinery (random refutation, shrinking, LibTorch replay, localization: Note [Refuting at
    reduced shapes] in src/verify/reduced_shapes.h) to report a minimal, localized
    counterexample at those shapes. They never serve a proof: the proof is about the captured
    shapes. Captured only when the runs refute, so that a pair that is equivalent pays nothing;
    a reduced capture that fails is a warning, the verdict stands on the runs."""
    import copy
    small = copy.copy(pair)
    small.example_inputs, small.fake = pair.small_inputs, False
    capture = result["capture"]
    try:
        reduced, names = _capture(small)
    except CaptureError as e:
        capture["warnings"].append("the pair could not be captured again at the shapes of small_inputs(), so "
                                   "the counterexample found by running it is not shrunk nor localized: %s"
                                   % e.message)
        return
    if names != out_names:
        return  # a different interface at other sizes: nothing to compare it with
    graphs = reduced["graphs"]
    capture["reduced"] = {"reference": "reduced/reference.json", "production": "reduced/production.json",
                          "fusions": {k: "reduced/" + fusion_file_name(k) for k in graphs["fusions"]}}
    result["graphs"]["reduced"] = graphs


def _capture(pair):
    rec = LocationRecorder(pair.user_files)
    warnings = []
    mode = pair.mode
    inputs = pair.example_inputs

    def producer(m):
        return {"tool": TOOL, "torch": torch.__version__, "source": pair.path, "mode": m}

    # watch custom ops named in FUSIONS while re-executing the graphs
    watch_map = {}
    for key, (op, fn) in pair.fusions.items():
        watch_map[key] = key
    cache = {}

    def watch(op):
        try:
            return cache[op]
        except KeyError:
            pass
        cn = canonical_name(op)
        k = watch_map.get(cn)
        if k is None:
            k = watch_map.get(op._schema.name)
        cache[op] = k
        return k

    input_extra = [{"requires_grad": bool(t.requires_grad)} for t in inputs]

    # ---- trace ----------------------------------------------------------------------------
    if mode == "train_step":
        ref_gm, req, info = trace_joint(pair, rec)
        out_names = ["loss"] + ["grad_" + pair.input_names[i] for i in req]
        for nm in info.get("unused", []):
            warnings.append("the loss does not depend on input '%s' (requires_grad=True); its "
                            "gradient is captured as zeros_like" % nm)
    else:
        ref_gm = trace_forward(pair, pair.reference, inputs, "reference", rec)
        _nothing_returned_as_no_outputs(ref_gm)
        _check_outputs_are_tensors(ref_gm, "reference()", pair.reference, pair)
        nodes, single = _output_nodes(ref_gm)
        out_names = ["out"] if single else ["out%d" % i for i in range(len(nodes))]
        if not nodes and not set(input_updates(ref_gm, pair.input_names)) - set(pair.allow_input_mutation):
            raise CaptureError("reference() returns no tensors and modifies none of its inputs in place: there "
                               "is nothing to compare", pair.path, return_line(pair.reference))
    if pair.world is not None:  # Note [Every rank's copy of a replicated output]
        nodes, out_names = with_rank_copies(pair, _output_nodes(ref_gm)[0], out_names)
        next(n for n in ref_gm.graph.nodes if n.op == "output").args = (tuple(nodes),)
        ref_gm.recompile()
    prod_gm = trace_production(pair, rec)
    if mode != "train_step":
        _nothing_returned_as_no_outputs(prod_gm)
    _check_outputs_are_tensors(prod_gm, "production()", pair.production, pair)
    prod_nodes, _ = _output_nodes(prod_gm)
    if len(prod_nodes) != len(out_names):
        raise CaptureError(
            "production() returns %d tensor%s but the reference graph has %d output%s (%s)%s"
            % (len(prod_nodes), "" if len(prod_nodes) == 1 else "s", len(out_names),
               "" if len(out_names) == 1 else "s", ", ".join(out_names),
               _output_count_hint(mode, pair, len(prod_nodes), len(out_names))),
            pair.path, return_line(pair.production))

    # ---- export ---------------------------------------------------------------------------
    # inputs either function modifies in place become outputs of both (Note [Input mutations])
    mutated = {g: sorted(input_updates(gm, pair.input_names))
               for g, gm in (("reference", ref_gm), ("production", prod_gm))}
    updated = sorted((set(mutated["reference"]) | set(mutated["production"]))
                     - set(pair.allow_input_mutation))
    ref_json, ref_info = graph_to_json(ref_gm, "reference", pair.input_names, inputs, out_names,
                                       producer(mode), watch, input_extra, updated_inputs=updated)
    prod_json, prod_info = graph_to_json(prod_gm, "production", pair.input_names, inputs, out_names,
                                         producer(mode), watch, input_extra, updated_inputs=updated)
    for g, gm in (("reference", ref_gm), ("production", prod_gm)):
        warnings.extend(describe_reads(g + "()", getattr(gm, "torchtv_scalar_reads", ())))
        for nm in mutated[g]:
            warnings.append("%s() modifies its input '%s' in place%s" % (
                g, nm, " (allowed by ALLOW_INPUT_MUTATION: not compared)" if nm not in updated
                else "; its updated value is compared as output %s%s" % (nm, UPDATED_SUFFIX)))
    for i, (on, rm, pm) in enumerate(zip(out_names, ref_info["outputs"], prod_info["outputs"])):
        if rm != pm:  # decided as not_equivalent (output types differ); said here with the line
            warnings.append("production() output %d (%s) is %s but the reference's is %s (%s:%s)"
                            % (i, on, _fmt_meta(pm), _fmt_meta(rm), pair.path,
                               return_line(pair.production)))

    # custom ops without FUSIONS entries
    for gname, gj in (("reference", ref_json), ("production", prod_json)):
        for opname in gj["schemas"]:
            ns = opname.split("::")[0]
            if ns not in ("aten", "prims", "prim") and watch_map.get(opname) is None \
                    and watch_map.get(opname.split(".")[0]) is None:
                warnings.append("%s calls custom op %s, which has no FUSIONS entry; it stays an "
                                "opaque node" % (gname, opname))

    # ---- fusions --------------------------------------------------------------------------
    fusion_graphs = {}
    run_calls = {}  # graph name -> {node: its call on the example inputs}, re-executed once

    def call_as_run(src, call):
        """The call with the values it had on the example inputs, or None in a shape-only capture
        (Note [A definition agrees with its kernel])."""
        if not is_fake(call[3]):
            return call
        if pair.fake:
            return None
        if src not in run_calls:
            gm = prod_gm if src == "production" else ref_gm
            _, by_key = node_metas(gm, inputs, src, watch)
            run_calls[src] = {c[0]: c for cs in by_key.values() for c in cs}
        return run_calls[src].get(call[0])

    for key, (op, fn) in pair.fusions.items():
        calls, src = prod_info["calls"].get(key), "production"
        if not calls:
            calls, src = ref_info["calls"].get(key), "reference"
        if not calls:
            warnings.append("FUSIONS entry %s is never called as a single op by production or "
                            "reference; no fusion graph captured" % key)
            continue
        src_info = prod_info if src == "production" else ref_info
        # One graph per distinct call signature (shapes, dtypes, non-tensor values), in order of
        # first call: a graph holds only for the call it was captured at (Note [Captured
        # fusions]). The first keeps the op's name as its key; others get "#2", "#3", ...
        groups = []
        for call in calls:
            sig = _call_signature(call[1], call[2])
            for g in groups:
                if g[0] == sig:
                    break
            else:
                groups.append((sig, call))
        for n, (_, call) in enumerate(groups):
            gkey = key if n == 0 else "%s#%d" % (key, n + 1)
            fusion_graphs[gkey] = _capture_fusion(pair, rec, key, fn, call, call_as_run(src, call), src,
                                                  src_info)

    capture = {
        "format": CAPTURE_FORMAT,
        "version": CAPTURE_VERSION,
        "mode": mode,
        "torch": torch.__version__,
        "source": pair.path,
        "reference": "reference.json",
        "production": "production.json",
        "fusions": {k: fusion_file_name(k) for k in fusion_graphs},
        "warnings": warnings,
        "eager_check": None,  # filled in by capture_loaded_pair
        "input_mutations": mutated,
        "assume": list(pair.assume),  # Note [Declared input domains]
    }
    # the names of every output the graphs have, the updated inputs' included (the eager check
    # compares them all)
    return ({"capture": capture,
             "graphs": {"reference": ref_json, "production": prod_json, "fusions": fusion_graphs}},
            out_names + [nm + UPDATED_SUFFIX for nm in updated])


def _call_signature(args, kwargs):
    def d(v):
        if isinstance(v, torch.Tensor):
            return ("T", v.dtype, tuple(v.shape))
        if isinstance(v, (list, tuple)):
            return tuple(d(x) for x in v)
        return repr(v)
    return (tuple(d(a) for a in args), tuple(sorted((k, d(v)) for k, v in kwargs.items())))


# Note [Fusion arguments recorded as fake tensors]
# A FUSIONS definition is traced on the arguments its op was called with in the production trace.
# torch 1.13's make_fx records no values, so they come from running the graph again (real
# tensors); torch 2.x's make_fx records every value as a FakeTensor of its own fake mode, which a
# new make_fx cannot take ("Mixing fake modes NYI"). Only the arguments' dtypes, shapes and devices
# matter to the definition's trace (a definition that branched on values would be refused as
# data-dependent), so a fake argument is replaced by zeros of its type; the definition's graph
# does not depend on which values it was traced at.
def _output_count_hint(mode, pair, produced, expected):
    """What to change when production's outputs do not match the reference graph's in number."""
    if mode == "train_step":
        return "; in train_step mode production must return (loss, *grads)"
    with_grad = sum(1 for t in pair.example_inputs if isinstance(t, torch.Tensor) and t.requires_grad)
    if expected == 1 and with_grad and produced == 1 + with_grad:
        return ("; production returns a loss and %d gradient%s: for a train step, set MODE = \"train_step\" in "
                "the pair file (the reference graph then returns (loss, *grads))" % (with_grad, "" if with_grad == 1 else "s"))
    return ""


def _fusion_argument(v):
    if is_fake(v):
        return torch.zeros(tuple(int(d) for d in v.shape), dtype=v.dtype, device=v.device)
    return v.detach().clone()


def _capture_fusion(pair, rec, key, fn, call, run_call, src, src_info):
    """The definition's graph for ``call`` (node, args, kwargs, result as traced); ``run_call`` is
    the same call with the values it had when run (None when there are none)."""
    node, args, kwargs, result = call
    op = node.target
    cname = canonical_name(op)
    what = "FUSIONS[%r]" % key
    try:
        bound = bind_args(op, args, kwargs)
    except CaptureError as e:
        raise CaptureError("%s: %s" % (what, e.message), pair.path, None)
    slots, names, tensors = [], [], []
    for i, (sp, v) in enumerate(bound):
        if isinstance(v, torch.Tensor):
            slots.append(i)
            names.append(sp.name)
            tensors.append(_fusion_argument(v))
        elif isinstance(v, (list, tuple)) and any(isinstance(x, torch.Tensor) for x in v):
            raise CaptureError("%s: argument '%s' of %s is a list of tensors; fusions over Tensor[] "
                               "arguments are not supported yet" % (what, sp.name, cname), pair.path, None)
    if not tensors:
        raise CaptureError("%s: %s is called with no tensor arguments" % (what, cname), pair.path, None)

    def call_fusion(*ts):
        vals = [v for _, v in bound]
        for i, t in zip(slots, ts):
            vals[i] = t
        pos = [v for (sp, _), v in zip(bound, vals) if not sp.kwarg_only]
        kw = {sp.name: v for (sp, _), v in zip(bound, vals) if sp.kwarg_only}
        return fn(*pos, **kw)

    gm = run_make_fx(call_fusion, tensors, what, pair, rec)
    fl = _fn_def_line(fn)
    nodes, single = _output_nodes(gm)
    nret = len(op._schema.returns)
    for i, r in enumerate(nodes):
        if not isinstance(r, torch.fx.Node):
            raise CaptureError("%s must return tensors, but its output %d is %r" % (what, i, r), fl[0], fl[1])
    if len(nodes) != nret:
        raise CaptureError("%s returns %d tensor(s) but %s has %d return(s)" % (what, len(nodes), cname, nret),
                           fl[0], fl[1])
    out_names = ["out"] if nret == 1 else ["out%d" % i for i in range(nret)]
    gj, info = graph_to_json(gm, key, names, tensors, out_names,
                             {"tool": TOOL, "torch": torch.__version__, "source": pair.path,
                              "mode": "forward"})
    want = result if isinstance(result, (tuple, list)) else [result]
    for i, (got, t) in enumerate(zip(info["outputs"], want)):
        w = (t.dtype, tuple(int(d) for d in t.shape)) if isinstance(t, torch.Tensor) else None
        if got != w:
            raise CaptureError("%s output %d is %s but %s itself returned %s for the same arguments"
                               % (what, i, _fmt_meta(got), cname, _fmt_meta(w)), fl[0], fl[1])
    differs = None if run_call is None else _definition_differs(call_fusion, op, run_call)
    if differs is not None:
        raise CaptureError("%s does not compute what the kernel of %s computes at its call: %s. torchtv decides the "
                           "pair through this definition, so it must be the kernel's math (up to rounding)"
                           % (what, cname, differs), fl[0], fl[1])
    ids = {id(v): names[k] for k, v in enumerate(v for _, v in bound if isinstance(v, torch.Tensor))}

    def ref(x):
        return ids[id(x)]

    call_args = []
    for sp, v in bound:
        ent = {"name": sp.name}
        ent.update(encode_value(sp, v, ref, "%s argument '%s'" % (cname, sp.name)))
        call_args.append(ent)
    gj["fusion"] = {"op": cname, "graph": src, "node_index": src_info["index"].get(node),
                    "args": call_args}
    return gj


# Note [A definition agrees with its kernel]
# A FUSIONS definition stands for its op in the graphs, so a definition that computes something
# else than the kernel the code runs makes the verdict about other code. At the first call the
# capture recorded, the definition runs eagerly on the call's arguments and is held against what
# the kernel returned there: beyond the square root of the dtype's epsilon times the output's
# scale (a definition may round apart from a fused kernel, not more), or a non-finite value on one
# side only (code_runs.precision_gap, the rule a refutation is held to on the code), the capture
# stops at the definition's line. torch 2.x's tracer records the call's values as fake tensors,
# so there the graph is re-executed on the example inputs to get them; a shape-only capture has
# none to compare.
def _definition_differs(call_fusion, op, run_call):
    """Where the definition's outputs differ from the kernel's at ``run_call``, or None."""
    _, args, kwargs, result = run_call
    tensors = [v.detach().clone() for _, v in bind_args(op, args, kwargs) if isinstance(v, torch.Tensor)]
    kernel_results = result if isinstance(result, (tuple, list)) else [result]
    if not all(isinstance(t, torch.Tensor) for t in kernel_results):
        return None
    with torch.no_grad():
        got = call_fusion(*tensors)
    got = got if isinstance(got, (tuple, list)) else [got]
    for i, (d, k) in enumerate(zip(got, kernel_results)):
        if d.shape != k.shape or d.numel() == 0:
            continue
        kd, dd, diff, tol, nonfinite = precision_gap(k, d)
        bad = (diff > tol) | nonfinite
        if bool(bad.any()):
            flat = int(bad.to(torch.uint8).argmax())
            return "output %d, element %s, is %r by the definition and %r by the kernel" % (
                i, _index(flat, list(k.shape)), float(dd[flat]), float(kd[flat]))
    return None


def _fn_def_line(fn):
    import inspect
    code = getattr(inspect.unwrap(fn), "__code__", None)
    if code is None:
        return (None, None)
    return (code.co_filename, code.co_firstlineno)

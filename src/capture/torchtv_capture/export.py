"""Conversion of a traced FX graph (make_fx output) into the torchtv-graph JSON format v1."""
import operator

import torch
import torch.fx

from .errors import CaptureError
from .fake import outside_fake_mode
from .locations import node_loc
from .values import (bind_args, canonical_name, data_dtype_name, dtype_name, encode_value, enc_float)

FORMAT = "torchtv-graph"
VERSION = 1
MAX_CONSTANT_ELEMENTS = 1024


def tensor_meta(t):
    return {"dtype": dtype_name(t.dtype), "shape": [int(d) for d in t.shape]}


def _describe(v):
    """What a node produced when the graph was re-executed: (dtype, shape) for a tensor, a list of
    those (None for absent outputs) for a tuple, or a ("nontensor", type name) marker."""
    if isinstance(v, torch.Tensor):
        return (v.dtype, tuple(int(d) for d in v.shape))
    if v is None:
        return None
    if isinstance(v, (tuple, list)):
        return [_describe(x) for x in v]
    return ("nontensor", type(v).__name__)


class _MetaInterpreter(torch.fx.Interpreter):
    """Re-executes the graph on the example inputs to learn every node's output dtypes and shapes
    and to record the arguments of the calls of each custom op of interest, where make_fx's own
    records do not tell them (Note [Metadata make_fx recorded])."""

    def __init__(self, gm, watch_ops):
        super().__init__(gm)
        self.metas = {}
        self.watch = watch_ops        # canonical-name matcher -> key
        self.calls = {}               # key -> list of (node, args, kwargs, result)

    def run_node(self, n):
        res = super().run_node(n)
        self.metas[n] = _describe(res)
        if n.op == "call_function" and isinstance(n.target, torch._ops.OpOverload) and self.watch:
            key = self.watch(n.target)
            if key is not None:
                args, kwargs = self.fetch_args_kwargs_from_env(n)
                self.calls.setdefault(key, []).append((n, args, kwargs, res))
        return res


def _is_opoverload(t):
    return isinstance(t, torch._ops.OpOverload)


def _per_op(fn):
    """``fn`` (a function of an op's schema, which does not change) computed once per op; its
    result is shared, so callers must not modify it."""
    cache = {}

    def memo(op):
        try:
            return cache[op]
        except KeyError:
            pass
        result = cache[op] = fn(op)
        return result
    return memo


@_per_op
def _return_kinds(op):
    """Per schema return: 'tensor' | 'opt_tensor' | 'scalar' (a number among several returns) | error.

    A single list-of-tensors return (split, unbind, chunk) is ['list']: the node gets one output
    per element, as many as the call returned."""
    kinds = []
    for r in op._schema.returns:
        ts = str(r.type)
        if ts == "Tensor":
            kinds.append("tensor")
        elif ts == "Optional[Tensor]":
            kinds.append("opt_tensor")
        elif ts in ("int", "SymInt", "float", "bool") and len(op._schema.returns) > 1:
            kinds.append("scalar")   # e.g. max_q of flash attention: exported as absent, unused
        elif ts == "List[Tensor]" and len(op._schema.returns) == 1:
            kinds.append("list")
        elif ts.startswith("List[") and "Tensor" in ts:
            raise CaptureError("op %s returns a list of tensors (%s) among other results; such ops are "
                               "not supported yet" % (canonical_name(op), ts))
        else:
            raise CaptureError("op %s returns a non-tensor value (%s); data-dependent values and "
                               "symbolic shapes are not supported" % (canonical_name(op), ts))
    return kinds


@_per_op
def _alias_sets(op):
    """For each return, the set of argument indices it aliases (views), from the schema."""
    args = op._schema.arguments
    res = []
    for r in op._schema.returns:
        ai = r.alias_info
        s = set()
        if ai is not None:
            rs = set(ai.before_set) | set(getattr(ai, "after_set", set()) or set())
            for i, a in enumerate(args):
                if a.alias_info is not None and (set(a.alias_info.before_set) & rs):
                    s.add(i)
        res.append(s)
    return res


@_per_op
def _written_args(op):
    return [i for i, a in enumerate(op._schema.arguments)
            if a.alias_info is not None and a.alias_info.is_write]


def node_metas(gm, input_tensors, name, watch_ops=None):
    """Every node's output description (see _describe), learnt by re-executing ``gm``; also the
    calls of ``watch_ops``. Returns (metas, calls)."""
    interp = _MetaInterpreter(gm, watch_ops)
    with torch.no_grad():
        try:
            interp.run(*[t.detach() for t in input_tensors])
        except CaptureError:
            raise
        except Exception as e:
            raise CaptureError("re-executing the captured %s graph failed: %s: %s"
                               % (name, type(e).__name__, str(e)[:400]))
    return interp.metas, interp.calls


# Note [Metadata make_fx recorded]
# The export needs each node's output dtypes and shapes, and the arguments of the first call of
# each custom op of interest (a FUSIONS entry). make_fx records them while it traces: every
# tensor an op returns gets a node (a getitem per tensor element of a tuple or list result)
# whose meta["tensor_meta"] holds its dtype and shape as they were when it was made, and under
# a fake tensor mode meta["val"] holds the fake tensor itself. Tensor constants are attributes
# of the traced module. torch 1.13 gives a multi-output node no metadata of its own: its
# description is read off its getitem nodes (make_fx makes one for every element of a tuple or
# list result, so a multi-output node has one per element). Where that is not enough (a real-tensor
# trace calling a watched op, whose argument values were not kept; a non-tensor return among
# several; an element that is None, whose getitem node has no metadata; a result without
# metadata), the graph is executed again on the inputs (node_metas), which gives the same
# answers at the cost of running every op once more.
_MISSING = object()


def traced_meta(n):
    tm = n.meta.get("tensor_meta")
    if tm is not None and hasattr(tm, "dtype") and hasattr(tm, "shape"):
        return (tm.dtype, tuple(int(d) for d in tm.shape))
    if "val" in n.meta:
        return _describe(n.meta["val"])
    return _MISSING


def _attribute(gm, target):
    obj = gm
    for part in str(target).split("."):
        obj = getattr(obj, part)
    return obj


def _by_getitems(n, element):
    """What a multi-output node ``n`` returned, rebuilt from its getitem nodes (one per element,
    each a tensor): [element(getitem), ...]; _MISSING when that cannot be told."""
    try:
        kinds = _return_kinds(n.target)
    except CaptureError:
        return _MISSING   # graph_to_json reports it
    found = {}
    for u in n.users:
        if not (u.op == "call_function" and u.target is operator.getitem and type(u.args[1]) is int):
            return _MISSING
        v = element(u)
        if v is _MISSING:
            return _MISSING
        found[u.args[1]] = v
    count = len(found) if kinds == ["list"] else len(kinds)
    if count < (1 if kinds == ["list"] else 2) or sorted(found) != list(range(count)):
        return _MISSING
    return [found[i] for i in range(count)]


def traced_metas(gm):
    """Every node's output description (see _describe) from what make_fx recorded (Note
    [Metadata make_fx recorded]), or None when a node lacks it."""
    metas = {}
    for n in gm.graph.nodes:
        if n.op == "output":
            continue
        m = traced_meta(n)
        if m is _MISSING:
            if n.op == "get_attr":
                m = _describe(_attribute(gm, n.target))
            elif n.op == "call_function" and _is_opoverload(n.target):
                m = _by_getitems(n, traced_meta)
        if m is _MISSING:
            return None
        metas[n] = m
    return metas


def traced_calls(gm, watch_ops):
    """The calls of ``watch_ops`` as node_metas records them, (node, args, kwargs, result), with
    the fake tensors make_fx recorded for their values (Note [Metadata make_fx recorded]); None
    when a value was not recorded."""
    calls = {}
    if not watch_ops:
        return calls

    def value(a):
        if a.op == "get_attr":
            return _attribute(gm, a.target)
        if "val" in a.meta:
            return a.meta["val"]
        missing.append(a)
        return None

    def element(u):
        return u.meta.get("val", _MISSING)

    for n in gm.graph.nodes:
        if n.op != "call_function" or not _is_opoverload(n.target) or watch_ops(n.target) is None:
            continue
        missing = []
        args = torch.fx.node.map_arg(n.args, value)
        kwargs = torch.fx.node.map_arg(n.kwargs, value)
        if "val" in n.meta:
            res = n.meta["val"]
        else:
            res = _by_getitems(n, element)
            res = _MISSING if res is _MISSING else tuple(res)
        if missing or res is _MISSING:
            return None
        calls.setdefault(watch_ops(n.target), []).append((n, args, kwargs, res))
    return calls


def recorded_metas(graph):
    """Output descriptions from the ``meta["val"]`` that torch 2.x tracers (AOTAutograd, Inductor)
    record on each node; None if a node that produces a value has none."""
    metas = {}
    for n in graph.nodes:
        if n.op == "output":
            continue
        if "val" not in n.meta:
            return None
        metas[n] = _describe(n.meta["val"])
    return metas


# Note [Input mutations]
# A function that modifies one of its inputs in place (directly, or through an alias such as
# `.float()` of an f32 tensor, which returns the tensor itself) has behaviour besides its return
# values. Its graph is traced functionalized (tracing.py), which ends with one `copy_` of the
# updated value into each modified input. Those copies are not kept as nodes: the updated value
# becomes an output of its own, NAME__updated, in BOTH graphs when either function modifies NAME
# (the other returns the input unchanged), so a modification on one side only is decided like
# any other output (src/verify/cross_check.h says which side modified it). A pair file may allow
# it: ALLOW_INPUT_MUTATION = True (every input) or a list of input names; then the update is
# dropped and only the return values are compared.
UPDATED_SUFFIX = "__updated"


def input_updates(gm, input_names):
    """{input name: the value copied into it} for the copy_ nodes that write a graph input
    after everything else (the functionalized graph's epilogue, Note [Input mutations])."""
    graph = gm.graph
    nodes = list(graph.nodes)
    order = {n: i for i, n in enumerate(nodes)}
    placeholders = [n for n in nodes if n.op == "placeholder"]
    updates = {}
    for n in nodes:
        if not (n.op == "call_function" and n.target is torch.ops.aten.copy_.default):
            continue
        dst = n.args[0]
        if not (isinstance(dst, torch.fx.Node) and dst.op == "placeholder") or n.users:
            continue
        if any(order[u] > order[n] for u in dst.users):
            continue  # read again after it: not an epilogue copy
        updates[input_names[placeholders.index(dst)]] = n
    return updates


def graph_to_json(gm, name, input_names, input_tensors, output_names, producer,
                  watch_ops=None, input_extra=None, metas=None, updated_inputs=()):
    """Returns (graph_json, info) where info has 'outputs' (list of (dtype, shape)) and 'calls'
    (custom-op calls recorded for ``watch_ops``). ``metas`` (from recorded_metas) spares the
    re-execution of the graph; ``input_tensors`` then only give the inputs' dtypes and shapes.
    ``updated_inputs`` names the inputs whose updated values become outputs NAME__updated
    (Note [Input mutations])."""
    graph = gm.graph
    updates = input_updates(gm, input_names)
    epilogue = set(updates.values())
    calls = {}
    if metas is None:
        metas = traced_metas(gm)
        calls = None if metas is None else traced_calls(gm, watch_ops)
        if calls is None:
            metas, calls = node_metas(gm, input_tensors, name, watch_ops)

    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    if len(placeholders) != len(input_names):
        raise CaptureError("internal: %s graph has %d placeholders for %d inputs"
                           % (name, len(placeholders), len(input_names)))

    used = set()
    vname = {}   # fx node -> value name (tensor-valued nodes, incl. getitem)

    def fresh(base):
        n = base
        k = 1
        while n in used:
            n = "%s_%d" % (base, k)
            k += 1
        used.add(n)
        return n

    for nm in input_names:
        used.add(nm)
    # node names first claim their FX names (unique), inputs keep the user's names
    inputs_json = []
    for i, (ph, nm, t) in enumerate(zip(placeholders, input_names, input_tensors)):
        vname[ph] = nm
        ent = {"name": nm}
        ent.update(tensor_meta(t))
        if input_extra:
            ent.update(input_extra[i])
        inputs_json.append(ent)

    def ref(x):
        if not isinstance(x, torch.fx.Node):
            raise CaptureError("%s graph: expected a tensor value, got %r" % (name, x))
        if x not in vname:
            raise CaptureError("%s graph: node %s is used as a tensor but produces no tensor value"
                               % (name, x.name))
        return vname[x]

    schemas = {}
    nodes_json = []
    order = {n: i for i, n in enumerate(graph.nodes)}
    index = {}       # fx node -> position in nodes_json

    for n in graph.nodes:
        if n.op == "placeholder" or n.op == "output" or n in epilogue:
            continue
        if n.op == "get_attr":
            nodes_json.append(_constant_node(gm, n, fresh, vname, name))
            continue
        if n.op != "call_function":
            raise CaptureError("%s graph: unsupported FX node %s (%s %s)" % (name, n.name, n.op, n.target))
        if n.target is operator.getitem:
            src = n.args[0]
            if not (isinstance(src, torch.fx.Node) and src.op == "call_function"
                    and _is_opoverload(src.target)):
                raise CaptureError("%s graph: unsupported getitem on %s" % (name, src))
            if n not in vname:
                raise CaptureError("%s graph: getitem %s of %s has no output" % (name, n.name, src.name))
            continue
        if not _is_opoverload(n.target):
            tname = getattr(n.target, "__name__", str(n.target))
            raise CaptureError("%s graph: node %s calls %s, which is not an ATen/custom operator "
                               "(symbolic shapes and Python-level ops are not supported)"
                               % (name, n.name, tname), *_loc_tuple(n))
        op = n.target
        cname = canonical_name(op)
        try:
            kinds = _return_kinds(op)
            bound = bind_args(op, n.args, n.kwargs)
        except CaptureError as e:
            raise CaptureError("%s graph, node %s: %s" % (name, n.name, e.message), *_loc_tuple(n))
        schemas[cname] = str(op._schema)
        args_json = []
        for sp, v in bound:
            try:
                enc = encode_value(sp, v, ref, "%s argument '%s'" % (cname, sp.name))
            except CaptureError as e:
                raise CaptureError("%s graph, node %s: %s" % (name, n.name, e.message), *_loc_tuple(n))
            ent = {"name": sp.name}
            ent.update(enc)
            args_json.append(ent)

        meta = metas.get(n)
        outs_json = []
        if kinds == ["list"]:
            if not isinstance(meta, (list, tuple)):
                raise CaptureError("%s graph: node %s (%s) produced %r, expected a list of tensors"
                                   % (name, n.name, cname, meta))
            kinds = ["tensor"] * len(meta)
            meta = list(meta)
        if len(kinds) == 1 and not isinstance(meta, list):
            if meta is None:
                outs_json.append(None)
            else:
                vname[n] = fresh(n.name)
                outs_json.append(_out_entry(vname[n], meta, name, n))
        else:
            if not isinstance(meta, list) or len(meta) != len(kinds):
                raise CaptureError("%s graph: node %s (%s) produced %r, expected %d outputs"
                                   % (name, n.name, cname, meta, len(kinds)))
            by_index = {}
            for u in n.users:
                if u.op == "call_function" and u.target is operator.getitem:
                    by_index.setdefault(u.args[1], []).append(u)
                else:
                    raise CaptureError("%s graph: multi-output node %s is used directly by %s"
                                       % (name, n.name, u.name))
            for i, m in enumerate(meta):
                gs = sorted(by_index.get(i, []), key=lambda g: order[g])
                if kinds[i] == "scalar":
                    if gs:
                        raise CaptureError("%s graph: node %s (%s) returns a non-tensor value as "
                                           "output %d and %s uses it; data-dependent values and "
                                           "symbolic shapes are not supported"
                                           % (name, n.name, cname, i, gs[0].name), *_loc_tuple(n))
                    outs_json.append(None)
                    continue
                if m is None:
                    if gs:
                        raise CaptureError("%s graph: absent output %d of %s is used" % (name, i, n.name))
                    outs_json.append(None)
                    continue
                vn = fresh(gs[0].name if gs else "%s.%d" % (n.name, i))
                for g in gs:
                    vname[g] = vn
                outs_json.append(_out_entry(vn, m, name, n))

        index[n] = len(nodes_json)
        nodes_json.append({"op": cname, "args": args_json, "outputs": outs_json, "loc": node_loc(n)})

    # outputs
    out_node = next(n for n in graph.nodes if n.op == "output")
    res = out_node.args[0]
    if isinstance(res, torch.fx.Node):
        res_list = [res]
    elif isinstance(res, (tuple, list)):
        res_list = list(res)
    else:
        raise CaptureError("%s returned %r; expected a tensor or a tuple of tensors" % (name, res))
    if output_names is None:
        output_names = ["out"] if isinstance(res, torch.fx.Node) else ["out%d" % i for i in range(len(res_list))]
    if len(output_names) != len(res_list):
        raise CaptureError("internal: %d output names for %d outputs" % (len(output_names), len(res_list)))
    outputs_json = []
    out_metas = []
    placeholder_of = dict(zip(input_names, placeholders))
    for nm in updated_inputs:
        output_names = list(output_names) + [nm + UPDATED_SUFFIX]
        res_list.append(updates[nm].args[1] if nm in updates else placeholder_of[nm])
    for on, r in zip(output_names, res_list):
        if not isinstance(r, torch.fx.Node) or r not in vname:
            raise CaptureError("%s returns %r as output '%s'; only tensors computed from the inputs "
                               "can be returned" % (name, r, on))
        outputs_json.append({"name": on, "value": vname[r]})
        m = metas.get(r)
        out_metas.append(m)

    problem = mutation_problem(gm, name, epilogue)
    if problem is not None:
        raise CaptureError(*problem)

    g = {
        "format": FORMAT,
        "version": VERSION,
        "name": name,
        "producer": producer,
        "schemas": dict(sorted(schemas.items())),
        "inputs": inputs_json,
        "nodes": nodes_json,
        "outputs": outputs_json,
    }
    return g, {"outputs": out_metas, "calls": calls, "metas": metas, "vname": vname,
               "index": index, "mutated_inputs": sorted(updates)}


def _loc_tuple(n):
    loc = node_loc(n)
    return (loc["file"], loc["line"]) if loc else (None, None)


def _out_entry(vn, m, gname, n):
    if not (isinstance(m, tuple) and len(m) == 2 and isinstance(m[0], torch.dtype)):
        raise CaptureError("%s graph: node %s produced a non-tensor value %r" % (gname, n.name, m))
    try:
        dt = dtype_name(m[0])
    except CaptureError as e:
        raise CaptureError("%s graph, node %s: %s" % (gname, n.name, e.message), *_loc_tuple(n))
    return {"name": vn, "dtype": dt, "shape": list(m[1])}


def _constant_node(gm, n, fresh, vname, gname):
    obj = _attribute(gm, n.target)
    if not isinstance(obj, torch.Tensor):
        raise CaptureError("%s graph: attribute %s is a %s, not a tensor" % (gname, n.target, type(obj).__name__))
    with outside_fake_mode(obj, "%s graph: tensor constant %s" % (gname, n.target)):
        return _constant_json(obj.detach(), n, fresh, vname, gname)


def _constant_json(t, n, fresh, vname, gname):
    if t.numel() > MAX_CONSTANT_ELEMENTS:
        lt = _loc_tuple(n)
        raise CaptureError("%s graph: a tensor constant of shape %s (%d elements) is captured; constants "
                           "with more than %d elements are not supported (pass it as an input instead)"
                           % (gname, list(t.shape), t.numel(), MAX_CONSTANT_ELEMENTS), *lt)
    try:
        dt = data_dtype_name(t.dtype, "this constant")
    except CaptureError as e:
        raise CaptureError("%s graph, constant %s: %s" % (gname, n.name, e.message), *_loc_tuple(n))
    flat = t.reshape(-1).cpu().tolist()
    if t.dtype == torch.bool:
        val = {"bools": [bool(x) for x in flat]}
    elif t.dtype.is_floating_point:
        val = {"floats": [enc_float(x) for x in flat]}
    else:
        val = {"ints": [int(x) for x in flat]}
    vn = fresh(n.name)
    vname[n] = vn
    arg = {"name": "value"}
    arg.update(val)
    return {"op": "prim::constant", "args": [arg],
            "outputs": [{"name": vn, "dtype": dt, "shape": [int(d) for d in t.shape]}],
            "loc": node_loc(n)}


def mutation_problem(gm, gname="traced", exclude=()):
    """Why ``gm``'s in-place ops (but those in ``exclude``) cannot be read as their functional
    counterparts, as (message, file, line), or None when they can. tracing.py functionalizes a
    trace with a problem."""
    graph = gm.graph
    order = {n: i for i, n in enumerate(graph.nodes)}
    mutations = []   # (node, [arg fx nodes written])
    view_edges = []  # (view node, its output index, the fx node it aliases)
    for n in graph.nodes:
        if n.op != "call_function" or not _is_opoverload(n.target) or n in exclude:
            continue
        try:
            bound = bind_args(n.target, n.args, n.kwargs)
        except CaptureError:
            continue  # graph_to_json reports it
        written = _written_args(n.target)
        if any(i != 0 for i in written):
            # An out= variant (torch.mm(a, b, out=buf)) writes a result that is no function of its
            # out tensor's values: the reader has no out= ops, functionalization makes it `mm`.
            return (("%s graph: %s (node %s) writes its result into an out= tensor"
                     % (gname, canonical_name(n.target), n.name)),) + _loc_tuple(n)
        if written:
            # a list op (`_foreach_add_`) writes every tensor of its list argument
            mutations.append((n, [w for i in written for w in
                                  (bound[i][1] if isinstance(bound[i][1], (list, tuple)) else [bound[i][1]])]))
        for oi, s in enumerate(_alias_sets(n.target)):
            for ai in s:
                if isinstance(bound[ai][1], torch.fx.Node):
                    view_edges.append((n, oi, bound[ai][1]))
    return _mutation_problem(graph, mutations, view_edges, order, gname)


def _mutation_problem(graph, mutations, view_edges, order, gname):
    """In-place ops are kept as they are; a reader may treat them as their functional
    counterparts only if neither the mutated value nor any alias of it is read after the
    mutation and it is not a graph input. Returns why not, as (message, file, line), or None.
    (The functionalized trace of tracing.py satisfies this by construction; its epilogue copies
    into inputs are not in ``mutations``.)"""
    if not mutations:
        return None
    parent = {}

    def find(x):
        while parent.get(x, x) is not x:
            x = parent[x]
        return x

    def union(a, b):
        ra, rb = find(a), find(b)
        if ra is not rb:
            parent[ra] = rb

    # outputs of multi-output views are getitem nodes
    for n, oi, src in view_edges:
        outs = [n] if len(n.target._schema.returns) == 1 else \
            [u for u in n.users if u.target is operator.getitem and u.args[1] == oi]
        for o in outs:
            union(o, src)
    classes = {}
    for n in graph.nodes:
        classes.setdefault(find(n), []).append(n)
    for mnode, written in mutations:
        for w in written:
            if not isinstance(w, torch.fx.Node):
                continue
            members = classes.get(find(w), [w])
            for v in members:
                if v.op == "placeholder":
                    return (("%s graph: in-place op %s (node %s) mutates graph input '%s' "
                             "(or a view of it)" % (gname, canonical_name(mnode.target), mnode.name, v.name)),)\
                        + _loc_tuple(mnode)
                if order[v] >= order[mnode]:
                    continue  # the mutation's result, or later versions/views of it
                for u in v.users:
                    if order[u] > order[mnode] and u is not mnode:
                        return (("%s graph: in-place op %s (node %s) mutates a value that is read "
                                 "again afterwards (by %s)" % (gname, canonical_name(mnode.target),
                                                                 mnode.name, u.name)),) + _loc_tuple(mnode)
    return None

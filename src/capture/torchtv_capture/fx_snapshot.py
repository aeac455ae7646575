"""Snapshots of FX graphs that a compiler is rewriting (torch 2.x: AOTAutograd, Inductor).

A custom pass receives a live ``torch.fx.Graph``; ``snapshot_graph`` turns it into a torchtv
graph (JSON, docs/capture-format.md) without running it: dtypes and shapes come from the
``meta["val"]`` the tracer recorded on each node.

Note [Snapshots of graphs inside a pass]
- Inductor's joint graph can have nodes out of topological order inside the pass, so the
  snapshot copies the nodes in a stable topological order (Kahn's algorithm, ties broken by the
  original order) into a fresh ``torch.fx.Graph`` before exporting it.
- The fresh graph has the default code generator (plain positional inputs), not the pytree
  one of the compiler's graph, so a GraphModule can be built around it.
- A number among several returns (``max_q`` of flash attention: a SymInt, concrete at static
  shapes) that another node uses is replaced by its recorded value, so the snapshot holds
  tensors only; its output is then unused and exported as absent.
- Ops that return a list of tensors (``split``, ``split_with_sizes``, ``unbind``) are written
  as one ``slice`` or ``select`` per element that is used: exactly what the list holds, and the
  IR has no list values.
- An input updated in place at the end of the graph (``copy_(primals_3, new)``: a batch norm's
  running statistics) is written as one more output, ``primals_3__updated``: what the graph
  computes is its outputs plus the final values of the inputs it updates. An input read after
  its update is refused.
- ``None`` entries of the output tuple (gradients of inputs that need none) are left out; the
  output names keep the original positions (``out3``), so two snapshots of one graph before and
  after a pass still pair their outputs by name.
"""
import heapq
import operator

import torch
import torch.fx

from .errors import CaptureError
from .export import graph_to_json, recorded_metas
from .locations import META_KEY, stack_frames


def _topological_order(graph):
    nodes = list(graph.nodes)
    position = {n: i for i, n in enumerate(nodes)}
    pending = {n: len(n.all_input_nodes) for n in nodes}
    order = []
    heap = [(position[n], n) for n in nodes if pending[n] == 0]   # positions are unique
    heapq.heapify(heap)
    while heap:
        _, n = heapq.heappop(heap)
        order.append(n)
        for u in n.users:
            pending[u] -= 1
            if pending[u] == 0:
                heapq.heappush(heap, (position[u], u))
    if len(order) != len(nodes):
        raise CaptureError("the compiler's graph has a cycle; cannot snapshot it")
    output = [n for n in order if n.op == "output"]
    return [n for n in order if n.op != "output"] + output


def _concrete_scalar_uses(graph):
    """Replaces uses of getitem nodes that carry a concrete number by that number."""
    for n in list(graph.nodes):
        if n.op != "call_function" or n.target is not operator.getitem:
            continue
        val = n.meta.get("val")
        if isinstance(val, bool) or not isinstance(val, (int, float)):
            continue
        for user in list(n.users):
            user.args = torch.fx.node.map_arg(user.args, lambda a: val if a is n else a)
            user.kwargs = torch.fx.node.map_arg(user.kwargs, lambda a: val if a is n else a)
        graph.erase_node(n)


def _list_element(producer, index):
    """(target, args) of the op that computes element ``index`` of a list-returning op."""
    aten = torch.ops.aten
    target, args = producer.target, producer.args
    if target is aten.unbind.int:
        dim = args[1] if len(args) > 1 else producer.kwargs.get("dim", 0)
        return aten.select.int, (args[0], dim, index)
    if target in (aten.split.Tensor, aten.split_with_sizes.default):
        dim = args[2] if len(args) > 2 else producer.kwargs.get("dim", 0)
        size = args[0].meta["val"].shape[dim]
        if target is aten.split.Tensor:
            sizes = [args[1]] * ((int(size) + args[1] - 1) // args[1])
        else:
            sizes = list(args[1])
        start = sum(sizes[:index])
        return aten.slice.Tensor, (args[0], dim, start, min(start + sizes[index], int(size)), 1)
    return None, None


def _expand_list_ops(graph):
    for n in list(graph.nodes):
        if n.op != "call_function" or n.target is not operator.getitem:
            continue
        producer = n.args[0]
        if not isinstance(producer, torch.fx.Node) or producer.op != "call_function":
            continue
        target, args = _list_element(producer, n.args[1])
        if target is None:
            continue
        if not n.users:
            graph.erase_node(n)
            if not producer.users:
                graph.erase_node(producer)
            continue
        with graph.inserting_before(n):
            element = graph.call_function(target, args)
        element.meta = dict(n.meta)
        n.replace_all_uses_with(element)
        graph.erase_node(n)
        if not producer.users:
            graph.erase_node(producer)


def _input_updates(graph):
    """Removes the final in-place updates of inputs; returns [(name, new value node)]."""
    order = {n: i for i, n in enumerate(graph.nodes)}
    updates = []
    for n in list(graph.nodes):
        if n.op != "call_function" or n.target is not torch.ops.aten.copy_.default or n.users:
            continue
        target, value = n.args[0], n.args[1]
        if not isinstance(target, torch.fx.Node) or target.op != "placeholder":
            continue
        later = [u for u in target.users if u is not n and order[u] > order[n]]
        if later:
            raise CaptureError("input %s is read by %s after it is updated in place; not supported"
                               % (target.name, later[0].name))
        updates.append((target.name + "__updated", value))
        graph.erase_node(n)
    return updates


def _location(node):
    trace = node.meta.get("stack_trace") or ""
    frames = stack_frames(trace)
    return frames[-1] if frames else None


def sorted_copy(graph, owner=None):
    """A GraphModule holding a copy of ``graph`` in topological order (see the Note)."""
    copy = torch.fx.Graph()
    env = {}
    for n in _topological_order(graph):
        env[n] = copy.node_copy(n, lambda a: env[a])
        loc = _location(n)
        if loc:
            env[n].meta[META_KEY] = (loc[0], int(loc[1]))
    _concrete_scalar_uses(copy)
    _expand_list_ops(copy)
    root = owner if isinstance(owner, torch.nn.Module) else torch.nn.Module()
    return torch.fx.GraphModule(root, copy)


def _flat(x):
    if isinstance(x, (tuple, list)):
        return [leaf for item in x for leaf in _flat(item)]
    return [x]


def _output_names(gm):
    """Flattens the output node to the tensors it returns (see the Note); returns their names."""
    updates = _input_updates(gm.graph)
    out = next(n for n in gm.graph.nodes if n.op == "output")
    res = out.args[0]
    if isinstance(res, torch.fx.Node) and not updates:
        return ["out"]
    res = _flat(res)
    names = ["out%d" % i for i in range(len(res))]
    kept = [(nm, r) for nm, r in zip(names, res) if r is not None] + updates
    out.args = (tuple(r for _, r in kept),)
    return [nm for nm, _ in kept]


def snapshot_graph(graph, name, producer):
    """The torchtv JSON graph of a live FX graph (a compiler's pass argument)."""
    gm = sorted_copy(graph, graph.owning_module)
    metas = recorded_metas(gm.graph)
    if metas is None:
        raise CaptureError("%s graph: a node has no recorded value (meta['val']); only graphs "
                           "traced by AOTAutograd / Inductor can be snapshotted" % name)
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    input_names = [p.name for p in placeholders]
    input_values = [p.meta["val"] for p in placeholders]
    for p, v in zip(placeholders, input_values):
        if not isinstance(v, torch.Tensor):
            raise CaptureError("%s graph: input %s is a %s, not a tensor (symbolic shapes are not "
                               "supported; compile with dynamic=False)" % (name, p.name, type(v).__name__))
    output_names = _output_names(gm)
    g, _ = graph_to_json(gm, name, input_names, input_values, output_names, producer, metas=metas)
    return g

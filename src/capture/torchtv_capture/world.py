"""A pair whose production runs on N ranks: WORLD_SIZE, SHARDING and the collectives (docs/distributed.md).

Note [A world of ranks composed into one function]
A pair file may declare ``WORLD_SIZE = N``; its ``production(rank, world_size, *shards)`` is then
the code of one rank, calling torch.distributed's collectives, and ``SHARDING`` says how each input
and output of the single-device reference is laid out over the ranks (Megatron's conventions:
``("split", d)`` cuts dim d into N equal chunks and rank r holds chunk r; ``"replicated"`` gives
every rank the whole tensor). torchtv checks one function of the global inputs: the composition
``world_production`` below, which
- slices each global input per SHARDING (a copy per rank, so that a rank's in-place update of its
  shard changes nothing another rank or a later run reads);
- runs the ranks in rank order with torch.distributed's collectives replaced by their meaning
  over the N ranks (``_COLLECTIVES``): an all-reduce is the left fold, in rank order, of the N
  ranks' operands; an all-gather the concatenation in rank order; a reduce-scatter that fold's
  chunk r; a broadcast rank src's value; an all-to-all the transposition of the ranks' chunks;
- assembles each output per SHARDING (a split output is the concatenation in rank order; a
  replicated one is rank 0's, and every other rank's copy is an output of its own: Note [Every
  rank's copy of a replicated output]).
A collective needs the operands of every rank, which a rank reaches only by running its code up to
that call, so the ranks run in rounds: round j runs every rank from its start to its j-th
collective (whose operand it records, then stops the rank), then computes collective j's results
for all ranks; a rank that reaches a collective already decided takes its result and goes on. The
last round runs every rank to its return. Rank code therefore runs K+1 times for K collectives
(quadratic in K, docs/distributed.md says what replaces it); a trace holds the repeated nodes once
after CSE, and nodes of stopped runs that nothing reads are dead code. This needs rank code that
computes the same on every run (no random ops), which torch's own determinism assumptions for
collectives need too.
The composition is a plain function: it is traced (make_fx records every op, the collectives' as
the aten ops that state their meaning, located at the call's line; node names say the rank:
``r1_mm``), run eagerly by the eager cross-check and by the replay of a counterexample, exactly as
a single-device production is. Ranks that call different collectives at the same position, or
return while another calls one, are a capture error naming both calls.
"""
import contextlib
import sys

import torch
import torch.distributed as dist

from .errors import CaptureError

REPLICATED = "replicated"
SPLIT = "split"


class _Stop(BaseException):
    """Ends a rank's run at the collective its round decides (a BaseException: the rank's own
    `except Exception` cannot swallow it)."""


class Layout:
    """How one global tensor lies over the ranks: replicated, or split along ``dim``."""

    def __init__(self, kind, dim=None):
        self.kind, self.dim = kind, dim

    def __repr__(self):
        return '"replicated"' if self.kind == REPLICATED else '("split", %d)' % self.dim


def parse_layout(value, what, path, line):
    if value == REPLICATED:
        return Layout(REPLICATED)
    if (isinstance(value, (tuple, list)) and len(value) == 2 and value[0] == SPLIT
            and isinstance(value[1], int) and not isinstance(value[1], bool)):
        return Layout(SPLIT, value[1])
    raise CaptureError('SHARDING[%r] must be "replicated" or ("split", DIM), got %r' % (what, value), path, line)


# Note [Every rank's copy of a replicated output]
# An output declared replicated is one the code leaves whole on every rank. Reading it from rank 0
# alone would prove nothing about the other ranks: a rank that skips an all-reduce, reads another
# rank's shard or scales where rank 0 does not would pass, and the code that runs would hand those
# ranks a wrong value. So the composed production returns, after its outputs, rank r's copy of each
# replicated output for r = 1..N-1 (named NAME_rankR), and the reference returns its value once more
# for each copy (with_rank_copies): every copy is checked against the single-device value like any
# output, and a wrong one is refuted under its own name. Copies the ranks compute alike normalize to
# one node, so they cost little.


class World:
    """The validated declaration: N, the rank function and the layouts of inputs and outputs."""

    def __init__(self, size, rank_fn, input_names, layouts, path, line):
        self.size, self.rank_fn, self.input_names = size, rank_fn, input_names
        self.layouts, self.path, self.line = layouts, path, line

    def layout(self, name):
        return self.layouts.get(name, Layout(REPLICATED))

    def rank_copies(self, names):
        """(i, r, copy name) for rank r's copy, r = 1..N-1, of each replicated output names[i]."""
        return [(i, r, "%s_rank%d" % (nm, r)) for i, nm in enumerate(names)
                if self.layout(nm).kind == REPLICATED for r in range(1, self.size)]

    def error(self, message, loc=None):
        return CaptureError(message, *(loc or (self.path, self.line)))


def _user_loc(user_files):
    """(file, line) of the innermost frame in a user file on the live stack, or None."""
    f = sys._getframe(2)
    while f is not None:
        path = user_files.match(f.f_code.co_filename)
        if path is not None:
            return (path, f.f_lineno)
        f = f.f_back
    return None


def _fmt(loc):
    return "%s:%s" % loc if loc else "an unknown line"


class _Call:
    """One rank's call of one collective: its kind, arguments and line."""

    def __init__(self, kind, rank, args, loc):
        self.kind, self.rank, self.args, self.loc = kind, rank, args, loc


class _Run:
    """The rounds of Note [A world of ranks composed into one function]."""

    def __init__(self, world, user_files):
        self.world, self.user_files = world, user_files
        self.decided = []      # per collective index: (its kind, per rank the writes of _COLLECTIVES)
        self.pending = {}      # rank -> its _Call at the round's collective
        self.rank, self.count = 0, 0
        self.label = None      # what the nodes made now are named after (_rank_node_names)

    def collective(self, kind, args):
        """Called by every patched collective: applies a decided result, or records the call and
        stops the rank at the round's collective."""
        k = self.count
        self.count += 1
        loc = _user_loc(self.user_files)
        if k < len(self.decided):
            kind_then, results = self.decided[k]
            if kind_then != kind:  # a rank whose calls depend on what it ran before
                raise self.world.error("rank %d calls %s as collective #%d at %s, where an earlier run of the "
                                       "same rank called %s" % (self.rank, kind, k + 1, _fmt(loc), kind_then), loc)
            _write(results[self.rank], args)
            return _DoneWork()
        self.pending[self.rank] = _Call(kind, self.rank, args, loc)
        if self.rank == self.world.size - 1:
            self._decide(k)  # located at the last rank's call of it
        raise _Stop()

    def _decide(self, k):
        calls = [self.pending.get(r) for r in range(self.world.size)]
        for r, c in enumerate(calls):
            if c is None or c.kind != calls[-1].kind:
                last = calls[-1]
                other = "returns without it" if c is None else "calls %s there (%s)" % (c.kind, _fmt(c.loc))
                raise self.world.error(
                    "the ranks call different collectives: collective #%d is %s on rank %d (%s) but rank %d %s; "
                    "every rank must call the same collectives in the same order"
                    % (k + 1, last.kind, last.rank, _fmt(last.loc), r, other), last.loc)
        kind = calls[0].kind
        label, self.label = self.label, "%s%d" % (kind, k + 1)
        try:
            results = _COLLECTIVES[kind](calls, self.world.size)
        except CaptureError:
            raise
        except Exception as e:  # shapes that do not fit, an unsupported argument
            raise self.world.error("%s (collective #%d, rank 0 at %s) cannot be composed: %s"
                                   % (kind, k + 1, _fmt(calls[0].loc), e), calls[0].loc)
        finally:
            self.label = label
        self.decided.append((kind, results))
        self.pending = {}


class _DoneWork:
    """What an async_op=True collective returns: its result is there already."""

    def wait(self, *args, **kwargs):
        return True

    def is_completed(self):
        return True


def _fold(tensors, op):
    op = op if op is not None else dist.ReduceOp.SUM
    out = tensors[0]
    for t in tensors[1:]:
        if op == dist.ReduceOp.SUM or op == getattr(dist.ReduceOp, "AVG", None):
            out = out + t
        elif op == dist.ReduceOp.PRODUCT:
            out = out * t
        elif op == dist.ReduceOp.MAX:
            out = torch.maximum(out, t)
        elif op == dist.ReduceOp.MIN:
            out = torch.minimum(out, t)
        else:
            raise ValueError("reduce op %s is not supported" % op)
    if op == getattr(dist.ReduceOp, "AVG", object()):
        out = out / len(tensors)
    return out


def _same_shapes(tensors, what):
    shapes = [tuple(t.shape) for t in tensors]
    if any(s != shapes[0] for s in shapes):
        raise ValueError("%s differ in shape over the ranks: %s" % (what, ", ".join(
            "rank %d %s" % (r, list(s)) for r, s in enumerate(shapes))))


def _all_reduce(calls, n):
    ts = [c.args["tensor"] for c in calls]
    _same_shapes(ts, "the operands")
    total = _fold(ts, calls[0].args.get("op"))
    return [[("tensor", None, total)] for _ in calls]


def _all_gather(calls, n):
    ts = [c.args["tensor"] for c in calls]
    _same_shapes(ts, "the operands")
    return [[("tensor_list", i, t) for i, t in enumerate(ts)] for _ in calls]


def _all_gather_into_tensor(calls, n):
    ts = [c.args["input_tensor"] for c in calls]
    _same_shapes(ts, "the operands")
    whole = torch.cat(ts, 0)
    return [[("output_tensor", None, whole)] for _ in calls]


def _reduce_scatter_tensor(calls, n):
    ts = [c.args["input"] for c in calls]
    _same_shapes(ts, "the operands")
    chunks = _fold(ts, calls[0].args.get("op")).chunk(n, 0)
    return [[("output", None, chunks[r])] for r in range(n)]


def _reduce_scatter(calls, n):
    return [[("output", None, _fold([c.args["input_list"][r] for c in calls], calls[0].args.get("op")))]
            for r in range(n)]


def _broadcast(calls, n):
    src = calls[0].args["src"]
    if any(c.args["src"] != src for c in calls) or not 0 <= src < n:
        raise ValueError("the ranks broadcast from sources %s; all must name one rank in [0, %d)"
                         % ([c.args["src"] for c in calls], n))
    return [[("tensor", None, calls[src].args["tensor"])] for _ in calls]


def _all_to_all(calls, n):
    return [[("output_tensor_list", i, calls[i].args["input_tensor_list"][r]) for i in range(n)] for r in range(n)]


def _write(results, args):
    """Writes one rank's results of a collective into the tensors of its current call (a later run
    of the rank passes tensors of its own, not those of the run that was stopped there). Not
    recorded by autograd, as c10d's collectives are not."""
    with torch.no_grad():
        for param, index, value in results:
            target = args[param] if index is None else args[param][index]
            target.copy_(value)


# collective -> its results over the ranks: per rank, the (parameter, list index or None, value) it
# writes (Note [A world of ranks composed into one function])
_COLLECTIVES = {
    "all_reduce": _all_reduce,
    "all_gather": _all_gather,
    "all_gather_into_tensor": _all_gather_into_tensor,
    "reduce_scatter_tensor": _reduce_scatter_tensor,
    "reduce_scatter": _reduce_scatter,
    "broadcast": _broadcast,
    "all_to_all": _all_to_all,
}

# torch.distributed's name -> (collective, its parameters in order); the older private names too
_SIGNATURES = {
    "all_reduce": ("all_reduce", ("tensor", "op", "group", "async_op")),
    "all_gather": ("all_gather", ("tensor_list", "tensor", "group", "async_op")),
    "all_gather_into_tensor": ("all_gather_into_tensor", ("output_tensor", "input_tensor", "group", "async_op")),
    "_all_gather_base": ("all_gather_into_tensor", ("output_tensor", "input_tensor", "group", "async_op")),
    "reduce_scatter_tensor": ("reduce_scatter_tensor", ("output", "input", "op", "group", "async_op")),
    "_reduce_scatter_base": ("reduce_scatter_tensor", ("output", "input", "op", "group", "async_op")),
    "reduce_scatter": ("reduce_scatter", ("output", "input_list", "op", "group", "async_op")),
    "broadcast": ("broadcast", ("tensor", "src", "group", "async_op")),
    "all_to_all": ("all_to_all", ("output_tensor_list", "input_tensor_list", "group", "async_op")),
}


def _whole_world(group):
    return group is None or group is getattr(getattr(dist, "group", None), "WORLD", object())


@contextlib.contextmanager
def _patched(run):
    """torch.distributed's collectives, rank and world size answered by ``run`` within the block."""
    saved = {}

    def collective(name, kind, params):
        def call(*args, **kwargs):
            bound = dict(zip(params, args))
            bound.update(kwargs)
            if not _whole_world(bound.get("group")):
                raise run.world.error("%s over a process group other than the whole world: only one group of "
                                      "WORLD_SIZE ranks is composed so far (docs/distributed.md)" % name,
                                      _user_loc(run.user_files))
            return run.collective(kind, bound)
        call.__name__ = name
        return call

    def put(name, value):
        saved[name] = getattr(dist, name, None)
        setattr(dist, name, value)

    for name, (kind, params) in _SIGNATURES.items():
        put(name, collective(name, kind, params))
    put("get_rank", lambda group=None: run.rank)
    put("get_world_size", lambda group=None: run.world.size)
    put("is_initialized", lambda: True)
    put("barrier", lambda *a, **k: None)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                delattr(dist, name)
            else:
                setattr(dist, name, value)


@contextlib.contextmanager
def _rank_node_names(run):
    """FX nodes made while a rank runs are named after it (``r1_mm``), and those stating a
    collective's meaning after the collective (``all_reduce2_add``), so that a report's divergence
    site says which (Note [A world of ranks composed into one function])."""
    graph_cls = torch.fx.Graph
    orig = graph_cls.create_node

    def create_node(graph, op, target, args=None, kwargs=None, name=None, type_expr=None):
        if op == "call_function" and run.label is not None:
            name = "%s_%s" % (run.label, name or graph._target_to_str(target))
        return orig(graph, op, target, args, kwargs, name, type_expr)

    graph_cls.create_node = create_node
    try:
        yield
    finally:
        graph_cls.create_node = orig


def _shard(t, layout, rank, n):
    if layout.kind == REPLICATED:
        return t.clone()
    return t.narrow(layout.dim, rank * (t.shape[layout.dim] // n), t.shape[layout.dim] // n).clone()


def _output_names(outputs, world, train_step, requires_grad):
    if train_step:
        return ["loss"] + ["grad_" + nm for nm, rg in zip(world.input_names, requires_grad) if rg]
    return ["out"] if len(outputs) == 1 else ["out%d" % i for i in range(len(outputs))]


def make_world_production(world, user_files, train_step, requires_grad):
    """The global production of Note [A world of ranks composed into one function]."""
    n = world.size

    def world_production(*inputs):
        run = _Run(world, user_files)
        with _patched(run), _rank_node_names(run):
            run.label = "shard"
            shards = [[_shard(t, world.layout(nm), r, n) for t, nm in zip(inputs, world.input_names)]
                      for r in range(n)]
            while True:
                finished = []
                for r in range(n):
                    run.rank, run.count, run.label = r, 0, "r%d" % r
                    try:
                        finished.append(world.rank_fn(r, n, *[s.clone() for s in shards[r]]))
                    except _Stop:
                        pass
                run.rank = run.label = None
                if len(finished) == n:
                    break
                if finished:  # some ranks returned where the others called a collective
                    c = next(iter(run.pending.values()))
                    raise world.error("the ranks call different collectives: rank %d calls %s (collective #%d) at %s "
                                      "but %d rank(s) return without calling it"
                                      % (c.rank, c.kind, len(run.decided) + 1, _fmt(c.loc), len(finished)), c.loc)
            run.label = "assemble"
            return _assemble(finished, world, train_step, requires_grad)

    world_production.__name__ = world.rank_fn.__name__
    return world_production


def _assemble(finished, world, train_step, requires_grad):
    per_rank = [r if isinstance(r, (tuple, list)) else (r,) for r in finished]
    names = _output_names(per_rank[0], world, train_step, requires_grad)
    unknown = sorted(set(world.layouts) - set(names) - set(world.input_names))
    if unknown:
        raise world.error("SHARDING names %s, neither an input (%s) nor an output (%s)"
                          % (", ".join(unknown), ", ".join(world.input_names), ", ".join(names)))
    out = []
    for i, nm in enumerate(names):
        values = [o[i] for o in per_rank]
        layout = world.layout(nm)
        out.append(values[0] if layout.kind == REPLICATED else torch.cat(values, layout.dim))
    copies = [per_rank[r][i] for i, r, _ in world.rank_copies(names)]
    if not copies and not isinstance(finished[0], (tuple, list)):
        return out[0]
    return tuple(out + copies)


def with_rank_copies(pair, values, names):
    """The reference's outputs and their names, each replicated output repeated once for every rank
    but rank 0 (Note [Every rank's copy of a replicated output]); unchanged without a world."""
    if pair.world is None:
        return values, names
    copies = pair.world.rank_copies(names)
    return (tuple(values) + tuple(values[i] for i, _, _ in copies),
            list(names) + [nm for _, _, nm in copies])


def reference_output_names(pair, result):
    """The names the capture gives the outputs of the reference's ``result`` (a tensor or a tuple;
    in a train step the loss and the gradients of the inputs requiring grad), before rank copies."""
    if pair.mode == "train_step":
        return ["loss"] + ["grad_" + nm for nm, t in zip(pair.input_names, pair.example_inputs) if t.requires_grad]
    if result is None:  # returns nothing: what it computes is the inputs it updates in place
        return []
    return ["out"] if isinstance(result, torch.Tensor) else ["out%d" % i for i in range(len(result))]


def declared_world(mod, pair, inputs, assign_line):
    """The pair file's WORLD_SIZE and SHARDING as a World, or None when it declares no world."""
    size = getattr(mod, "WORLD_SIZE", None)
    if size is None:
        if getattr(mod, "SHARDING", None) is not None:
            raise CaptureError("SHARDING is declared without WORLD_SIZE", pair.path, assign_line(pair.tree, "SHARDING"))
        return None
    line = assign_line(pair.tree, "WORLD_SIZE")
    if not isinstance(size, int) or isinstance(size, bool) or size < 1:
        raise CaptureError("WORLD_SIZE must be a positive int, got %r" % (size,), pair.path, line)
    sharding = getattr(mod, "SHARDING", None) or {}
    sline = assign_line(pair.tree, "SHARDING") or line
    if not isinstance(sharding, dict):
        raise CaptureError('SHARDING must be a dict from input and output names to "replicated" or ("split", DIM), '
                           "got %r" % (sharding,), pair.path, sline)
    layouts = {k: parse_layout(v, k, pair.path, sline) for k, v in sharding.items()}
    for nm, t in zip(pair.input_names, inputs):
        lay = layouts.get(nm)
        if lay is None or lay.kind != SPLIT:
            continue
        if not -t.dim() <= lay.dim < t.dim():
            raise CaptureError("SHARDING[%r] splits dim %d, but %s has %d dims" % (nm, lay.dim, nm, t.dim()),
                               pair.path, sline)
        lay.dim %= t.dim()
        if t.shape[lay.dim] % size:
            raise CaptureError("SHARDING[%r] splits dim %d of size %d over WORLD_SIZE = %d ranks, which does not "
                               "divide it" % (nm, lay.dim, t.shape[lay.dim], size), pair.path, sline)
    return World(size, mod.production, list(pair.input_names), layouts, pair.path, sline)

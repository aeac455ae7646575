"""Values computed from the inputs that a trace would freeze into the graph as constants.

Note [Nothing computed from the inputs is frozen]
make_fx follows a tensor through the ops it dispatches; a tensor made any other way has no proxy,
and when a traced op uses it make_fx records it as a constant of the graph (`_param_constant0`,
`_tensor_constant0`) holding its values at the example inputs. The graph then no longer follows
its inputs, and whatever torchtv decides on it is about other code: torch's own
`torch.nn.utils.fusion.fuse_conv_bn_weights` returns `torch.nn.Parameter(...)`, which made conv+BN
against conv with folded weights look refuted (the graph's folded weights were the example
inputs', the code's the counterexample's). Measured on torch 1.13 (make_fx, real tensors; each
pattern applied to `x * 2`, the graph then run at another input):

| the code | make_fx | here |
|---|---|---|
| `nn.Parameter(t)`, `torch.Tensor._make_subclass(cls, t)` | constant (`_param_constant0`) | traced through: the result is `t`'s value |
| `t.data` read, `t.detach()`, `t.clone().detach()`, `torch.tensor(t)`, `x.new_tensor(t)`, `torch.as_tensor(t)`, `y.set_(t)` | traced | traced (a `.data` read that loses the trace, as it may under other torch versions, is traced through like `Parameter`) |
| `p.data = t` | constant, or the old value of `p` | refused |
| `t.tolist()`, `t.numpy()` (and `np.asarray(t)`, which calls it) | constant (`_tensor_constant0`) | refused |
| `t.item()`, `float(t)`, `if t:` | error (data-dependent) | refused (`item()` with this message) |

"Computed from the inputs" is read from the trace itself: the tensor's node reaches an input of
the graph. So `torch.arange(4).tolist()` and a constant table built from literals are left alone,
and wrapping or reading an input is treated as reading anything computed from it.

Refused means a CaptureError at the user's line (exit 3): the graph would not be the code, and no
verdict on a graph that does not follow its inputs says anything about the code. Trace-through is
limited to what only wraps a value (the same storage, the same values): `Parameter(t)` and
`_make_subclass` alias `t`, so the result is recorded as `t`'s node; it stays a leaf for autograd
(no gradient flows through it), which is also what the code computes.

The checks run only where the code wraps or reads a value (a few Python calls there): nothing is
added per traced op, so the capture's time is make_fx's as before (bench/results/capture.md).

Not detected: a value copied out through memory make_fx does not watch (an untyped storage copied
by hand, a C++ extension that reads `data_ptr()`) and values read by a custom op's own kernel. A
graph holding such a value still reaches the checker; its refutations are then ones that running
the user's functions does not reproduce.
"""
import contextlib
import functools
import linecache

import torch

from .errors import CaptureError

_FROZEN_WHY = ("turns its values into a constant of the graph (those at example_inputs()); torchtv "
               "cannot decide code whose graph does not follow its inputs")


def tensor_base():
    """The C class torch.Tensor derives from (renamed from _TensorBase to TensorBase in torch 2.x)."""
    return getattr(torch._C, "TensorBase", None) or torch._C._TensorBase


def _proxy_module():
    import torch.fx.experimental.proxy_tensor as pt
    return pt


def _active_tracer():
    """The tracer of the make_fx trace running now, or None."""
    pt = _proxy_module()
    mode = None
    if hasattr(pt, "get_proxy_mode"):  # torch 2.x
        mode = pt.get_proxy_mode()
    else:  # torch 1.13: the proxy mode is on the dispatch mode stack
        from torch.utils._python_dispatch import _get_current_dispatch_mode_stack
        for m in reversed(_get_current_dispatch_mode_stack()):
            if isinstance(m, pt.ProxyTorchDispatchMode):
                mode = m
                break
    return getattr(mode, "tracer", None)


def _unwrapped(t):
    """The tensor the tracer sees: under functionalization, the wrapper's inner tensor."""
    if _is_functional(t):
        try:
            return torch._from_functional_tensor(t)
        except Exception:  # noqa: BLE001 -- a wrapper torch cannot unwrap: seen as untracked
            return t
    return t


def _is_functional(t):
    return hasattr(torch, "_is_functional_tensor") and torch._is_functional_tensor(t)


def _slot(t, tracer):
    if tracer is None or not isinstance(t, torch.Tensor):
        return None
    return _proxy_module().get_proxy_slot(_unwrapped(t), tracer, None)


class _InputReach:
    """Whether a traced node depends on an input of the graph, memoized per trace."""

    def __init__(self):
        self._memo = {}

    def __call__(self, node):
        memo = self._memo
        stack = [node]
        while stack:  # iterative: a chain as deep as a model must not hit the recursion limit
            n = stack[-1]
            if n in memo:
                stack.pop()
            elif n.op == "placeholder":
                memo[n] = True
                stack.pop()
            else:
                pending = [m for m in n.all_input_nodes if m not in memo]
                if pending:
                    stack.extend(pending)
                else:
                    memo[n] = any(memo[m] for m in n.all_input_nodes)
                    stack.pop()
        return memo[node]


def _user_line(recorder):
    loc = recorder.current()
    if loc is None:
        return None, None, ""
    return loc[0], loc[1], linecache.getline(loc[0], loc[1]).strip()


@contextlib.contextmanager
def follow_inputs(recorder):
    """Within the block (a make_fx trace), what only wraps a traced value is traced through and
    what reads one's values out of the trace is refused (Note [Nothing computed from the inputs is
    frozen])."""
    reach = _InputReach()
    tensor_cls = torch.Tensor
    base = tensor_base()
    make_subclass = base._make_subclass
    data_attr = base.__dict__["data"]
    originals = {name: getattr(tensor_cls, name) for name in ("tolist", "numpy", "item")}

    def from_inputs(t):
        slot = _slot(t, _active_tracer())
        return slot is not None and reach(slot.proxy.node)

    def refuse(what):
        path, line, text = _user_line(recorder)
        where = "`%s`: " % text if text else ""
        raise CaptureError("%s%s %s" % (where, what, _FROZEN_WHY), path, line)

    def carry(result, source):
        """Records ``result``, an alias of ``source`` made outside the dispatcher, as source's
        node."""
        tracer = _active_tracer()
        slot = _slot(source, tracer)
        if slot is not None and not _is_functional(result) and _slot(result, tracer) is None:
            _proxy_module().set_proxy_slot(result, tracer, slot)
        return result

    # The same signature as the original's (functools.wraps: inspect.signature follows
    # __wrapped__): torch 2.x's dynamo checks that a function it has a polyfill for still has the
    # polyfill's signature, and refused every trace ("Signature mismatch between
    # traced_make_subclass and make_subclass").
    @functools.wraps(make_subclass)
    def traced_make_subclass(cls, data, *args, **kwargs):
        return carry(make_subclass(cls, data, *args, **kwargs), data)

    def read_values(name):
        original = originals[name]

        def read(self, *args, **kwargs):
            if from_inputs(self):
                refuse("Tensor.%s() of a tensor computed from the inputs" % name)
            return original(self, *args, **kwargs)
        read.__wrapped__ = original
        return read

    def get_data(self):
        return carry(data_attr.__get__(self, type(self)), self)

    def set_data(self, value):
        if from_inputs(value):
            refuse("assigning a tensor computed from the inputs to `.data`")
        data_attr.__set__(self, value)

    patched = {"_make_subclass": staticmethod(traced_make_subclass),
               "data": property(get_data, set_data, doc=data_attr.__doc__)}
    patched.update((name, read_values(name)) for name in originals)
    own = {name: tensor_cls.__dict__[name] for name in patched if name in tensor_cls.__dict__}
    for name, fn in patched.items():
        setattr(tensor_cls, name, fn)
    try:
        yield
    finally:
        for name in patched:
            if name in own:
                setattr(tensor_cls, name, own[name])
            else:
                delattr(tensor_cls, name)

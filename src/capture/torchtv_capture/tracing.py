"""Tracing the pair's functions into FX graphs of aten ops with make_fx."""
import contextlib

import torch
from torch.fx.experimental.proxy_tensor import make_fx

from .errors import CaptureError, user_frame_of_exception, short_exc
from .fake import meta_kernel_hint
from .foreach import per_tensor_foreach
from .scalar_reads import ScalarReads
from .fxnames import fast_node_names

_DATA_DEP_MARKERS = (
    "trying to get value out of a tracing tensor",
    "data-dependent",
    "data dependent",
    "Could not guard on data-dependent",
    "GuardOnDataDependentSymNode",
)


def _describe_trace_error(exc, what):
    msg = str(exc)
    if any(m in msg for m in _DATA_DEP_MARKERS):
        return ("data-dependent control flow or value access in %s: a tensor's value was read "
                "during tracing (bool()/if on a tensor, .item(), .tolist(), ...); captured graphs "
                "must not depend on tensor values [%s]" % (what, short_exc(exc, 300)))
    return "tracing %s failed: %s%s" % (what, short_exc(exc), meta_kernel_hint(exc))


# Note [Kernels eager execution runs]
# make_fx decomposes every op that has a CompositeImplicitAutograd kernel (OpOverload.decompose,
# called by its proxy mode), even an op that also has a kernel of its own for the device. Eager
# execution runs that kernel, not the decomposition: aten::silu_backward's and mish_backward's CPU
# kernels round differently from their composite forms, so a graph traced through the composite
# form is not the code that runs. While tracing, an op is therefore decomposed only when eager
# execution would decompose it too: when it has no kernel for the device of its tensor arguments
# and no CompositeExplicitAutograd kernel. Every other op stays one node, as custom ops do. Under a
# shape-only capture the kept op runs on fake tensors through its Meta kernel, or its composite
# kernel at the Meta key, which only computes shapes.
_BACKEND_KEYS = {"cpu": "CPU", "cuda": "CUDA", "xpu": "XPU", "mps": "MPS"}
_OWN_KERNEL_KEYS = ("CompositeExplicitAutograd", "CompositeExplicitAutogradNonFunctional")


def _device_type(args):
    for a in args:
        if isinstance(a, torch.Tensor):
            return a.device.type
        if isinstance(a, (list, tuple)):
            d = _device_type(a)
            if d is not None:
                return d
    return None


def _has_kernel(name, key):
    try:
        return torch._C._dispatch_has_kernel_for_dispatch_key(name, key)
    except RuntimeError:  # a dispatch key this torch does not have
        return False


def runs_own_kernel(op, device_type):
    """True when eager execution runs a kernel of ``op``'s own on ``device_type`` (not a
    decomposition of it)."""
    keys = (_BACKEND_KEYS.get(device_type, "CPU"),) + _OWN_KERNEL_KEYS
    name = op.name()
    return any(_has_kernel(name, k) for k in keys)


def _decomposable(op):
    """Whether OpOverload.decompose can decompose ``op`` at all: it has a
    CompositeImplicitAutograd kernel (registered in Python or C++); else decompose returns
    NotImplemented whatever the arguments."""
    key = torch._C.DispatchKey.CompositeImplicitAutograd
    return key in getattr(op, "py_kernels", {}) or _has_kernel(op.name(), key)


@contextlib.contextmanager
def eager_kernels():
    """Within the block, make_fx keeps every op that eager execution runs as a kernel of its own
    (Note [Kernels eager execution runs])."""
    original = torch._ops.OpOverload.decompose
    # make_fx asks for every op it records; the answers depend on the kernels registered, which
    # stay as they are while the block runs, so each is looked up once (an argument's device,
    # which goes through the fake tensor mode's dispatch, only for ops that could decompose).
    decomposable, own = {}, {}

    def decompose(op, *args, **kwargs):
        d = decomposable.get(op)
        if d is None:
            d = decomposable[op] = _decomposable(op)
        if d:
            device = _device_type(list(args) + list(kwargs.values())) or "cpu"
            o = own.get((op, device))
            if o is None:
                o = own[(op, device)] = runs_own_kernel(op, device)
            if o:
                return NotImplemented
        return original(op, *args, **kwargs)

    torch._ops.OpOverload.decompose = decompose
    try:
        yield
    finally:
        torch._ops.OpOverload.decompose = original


def _functionalize():
    """torch's functionalization transform (torch.func in 2.x, functorch in 1.13), or None."""
    try:
        from torch.func import functionalize
    except ImportError:
        try:
            from functorch import functionalize
        except ImportError:
            return None
    return functionalize


# Note [Functionalized capture]
# Production code updates tensors in place to save memory (`g.view(-1)[idx] -= 1`, `.mul_()`,
# `torch.empty_like(a).addmm_(x, y, beta=0)`, `torch.mm(a, b, out=buf)`). A trace whose in-place
# ops touch nothing that is read afterwards, and no input, and that has no out= variant (make_fx
# reads `buf` after `torch.mm(a, b, out=buf)` as mm.out's result, so no stale read shows it), reads
# exactly as its out-of-place form and is kept as traced.
# Any other trace is traced again under torch's own functionalization, which rewrites in-place
# ops, views of mutated tensors, out= variants and copy_ into the equivalent functional graph
# (exact: the same kernels, on the values the code would read); an update of an input comes out
# as a final copy_ into it (Note [Input mutations] in export.py).
def run_make_fx(fn, inputs, what, pair, recorder):
    """make_fx(fn)(*inputs) with location recording, functionalized when needed (Note
    [Functionalized capture]); errors become CaptureError."""
    from .export import mutation_problem

    def traced(*args):
        with per_tensor_foreach():  # Note [Foreach ops as per-tensor ops]
            return fn(*args)

    def trace(f):
        # values read out of tensors the function creates, recorded (Note [Values read from
        # tensors the function creates])
        reads = ScalarReads(recorder)
        try:
            with recorder, eager_kernels(), fast_node_names():
                gm = make_fx(f, decomposition_table=reads.table())(*inputs)
            gm.torchtv_scalar_reads = reads.reads
            return gm
        except CaptureError:
            raise
        except Exception as e:
            fl, l = user_frame_of_exception(e, pair.user_files, pair.path)
            raise CaptureError(_describe_trace_error(e, what), fl, l)

    gm = trace(traced)
    problem = mutation_problem(gm, what)
    if problem is None:
        return gm
    functionalize = _functionalize()
    if functionalize is None:
        raise CaptureError(problem[0] + "; this torch has no functionalization, use the out-of-place op",
                           *problem[1:])
    return trace(functionalize(traced))


def detached(inputs):
    return tuple(t.detach() for t in inputs)


def trace_forward(pair, fn, inputs, what, recorder):
    return run_make_fx(fn, detached(inputs), what, pair, recorder)


def _anomaly_mode():
    """Autograd anomaly mode without NaN checks (which would add isnan ops to the graph)."""
    try:
        return torch.autograd.set_detect_anomaly(True, check_nan=False)
    except TypeError:  # very old torch: no check_nan; skip anomaly mode entirely
        import contextlib
        return contextlib.nullcontext()


def trace_joint(pair, recorder):
    """The reference's joint forward+backward graph: (loss, *grads w.r.t. inputs requiring
    grad), in aten ops, no decompositions."""
    reference = pair.reference
    inputs = pair.example_inputs
    req = [i for i, t in enumerate(inputs) if t.requires_grad]
    info = {}

    def joint(*args):
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "Anomaly Detection has been enabled ..." (2.x)
            with _anomaly_mode(), recorder.user_stack():
                loss = reference(*args)
        if not isinstance(loss, torch.Tensor):
            raise CaptureError("MODE is 'train_step' but reference() returned %s, not a scalar loss "
                               "tensor" % type(loss).__name__, pair.path, _ret_line(reference))
        if loss.dim() != 0:
            raise CaptureError("MODE is 'train_step' but reference() returned a tensor of shape %s, "
                               "not a scalar (0-dim) loss" % list(loss.shape), pair.path,
                               _ret_line(reference))
        if not loss.dtype.is_floating_point:
            raise CaptureError("reference() returned a loss of dtype %s; it must be floating point"
                               % loss.dtype, pair.path, _ret_line(reference))
        if loss.grad_fn is None:
            raise CaptureError("the loss returned by reference() does not depend on any input that "
                               "requires grad", pair.path, _ret_line(reference))
        diff = [args[i] for i in req]
        info["hooks"] = recorder.install_backward_hooks(loss.grad_fn)
        recorder.backward_loc = recorder.grad_fn_loc(loss.grad_fn)
        try:
            grads = torch.autograd.grad(loss, diff, allow_unused=True)
        finally:
            recorder.backward_loc = None
        out = [loss]
        for i, t, g in zip(req, diff, grads):
            out.append(torch.zeros_like(t) if g is None else g)
            if g is None:
                info.setdefault("unused", []).append(pair.input_names[i])
        return tuple(out)

    gm = run_make_fx(joint, inputs, "reference (joint forward+backward)", pair, recorder)
    return gm, req, info


def _ret_line(fn):
    from .pairfile import return_line
    return return_line(fn)


def _is_autograd_error(exc):
    m = str(exc)
    return ("does not require grad" in m or "does not have a grad_fn" in m
            or "One of the differentiated Tensors" in m)


def trace_production(pair, recorder):
    """Production as written. Inputs are detached so that autograd adds nothing to the graph;
    if production itself calls into autograd (and fails without grad-requiring inputs), it is
    traced again with the inputs as example_inputs() made them."""
    what = "production"
    inputs = pair.example_inputs
    try:
        return run_make_fx(pair.production, detached(inputs), what, pair, recorder)
    except CaptureError as e:
        if not (any(t.requires_grad for t in inputs) and _is_autograd_error(e)):
            raise
    return run_make_fx(pair.production, inputs, what, pair, recorder)

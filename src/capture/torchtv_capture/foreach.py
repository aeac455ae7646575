"""The `_foreach_*` list ops (torch.optim's multi-tensor steps) traced as the per-tensor ops they
apply (Note [Foreach ops as per-tensor ops])."""
import contextlib

import torch

from .errors import CaptureError

try:
    from torch.overrides import TorchFunctionMode
except ImportError:  # a torch without torch function modes: list ops stay as they are
    TorchFunctionMode = None

# Note [Foreach ops as per-tensor ops]
# `torch._foreach_add_(params, grads, alpha=-lr)` applies `add_` to each (param, grad) pair. While
# a function is traced, each call of a list op is made as those per-tensor calls instead (a torch
# function mode, so it happens before the call reaches the dispatcher), and the graph holds
# ordinary aten nodes with one output each. The rest of the capture then treats them as any other
# code: an in-place list op becomes per-tensor in-place ops, which the mutation check sees (a later
# read of an updated tensor makes the capture trace again under torch's functionalization, which
# has no working rule for the list ops themselves: in torch 1.13 it checks an in-place list op on
# Meta tensors, and they have no Meta kernel), shape-only capture runs each per-tensor op's Meta
# kernel, and no reader ever meets a list op.
#
# Exactness: this is the code that runs. On CPU every `_foreach_*` kernel is ATen's "slow path"
# (ForeachOpsKernels.cpp), a loop calling the per-tensor op on each element (`t.add_(scalar)`,
# `t.addcdiv_(t1, t2, scalars[i])`, `at::linalg_vector_norm(t, ord)`), so the unrolled graph computes
# every element as eager execution does, bit for bit. On CUDA the "fast path" kernels compute each
# element in the op's math type (float for half and bfloat16) and round once per op, as the
# per-tensor CUDA kernels do; the one difference a fast path may make is the compiler contracting
# `a + alpha * b` (add/sub with alpha, addcmul/addcdiv with value, lerp) into a fused multiply-add,
# which changes the last bit only: it matters at level bitwise, never at level real (and those ops
# are real-only at level bitwise anyway: ir/bitwise_faithful.cpp).
#
# How a call unrolls: element i of the call takes element i of every list argument (tensors, or
# numbers: a ScalarList) and every other argument as it is (a number, a 0-dim tensor); a 1-D tensor
# of scalars (torch 2.x's `_foreach_addcdiv_.Tensor`) gives its i-th value, as ATen's kernel reads
# it. In-place list ops call the tensor's in-place method (or, where it has none, as for maximum,
# copy the functional result into it, as ATen's slow path does) and return None; functional ones
# call the torch function and return the tuple of results, as the list ops do.
_PREFIX = "_foreach_"
# addcmul/addcdiv take their per-element scalar by position or as `scalars`; the per-tensor ops
# take it as the keyword-only `value`.
_VALUE_OPS = ("addcmul", "addcdiv")


def _per_tensor_function(base):
    if base == "norm":  # ATen's slow path of _foreach_norm calls linalg_vector_norm
        return torch.linalg.vector_norm
    return getattr(torch, base)


def _element(value, i, name):
    if isinstance(value, (list, tuple)):
        return value[i]
    if name == "value" and isinstance(value, torch.Tensor) and value.dim() == 1:
        return value[i].item()
    return value


def unrolled_call(name, args, kwargs):
    """``torch.<name>(*args, **kwargs)`` for a list op ``name``, made as per-tensor calls."""
    base = name[len(_PREFIX):]
    inplace = base.endswith("_")
    base = base.rstrip("_")
    args, kwargs = list(args), dict(kwargs)
    if base in _VALUE_OPS:
        if len(args) > 3:
            kwargs["value"] = args.pop(3)
        if "scalars" in kwargs:
            kwargs["value"] = kwargs.pop("scalars")
    lengths = {len(v) for v in args + list(kwargs.values()) if isinstance(v, (list, tuple))}
    if len(lengths) != 1:
        raise CaptureError("torch.%s: its list arguments have different lengths %s" % (name, sorted(lengths)))
    results = []
    for i in range(lengths.pop()):
        a = [_element(v, i, None) for v in args]
        kw = {k: _element(v, i, k) for k, v in kwargs.items()}
        if inplace and hasattr(a[0], base + "_"):
            getattr(a[0], base + "_")(*a[1:], **kw)
        elif inplace:  # no in-place per-tensor op (maximum, minimum): ATen copies the result in
            a[0].copy_(_per_tensor_function(base)(*a, **kw))
        else:
            results.append(_per_tensor_function(base)(*a, **kw))
    return None if inplace else tuple(results)


if TorchFunctionMode is not None:
    class _PerTensorForeach(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            name = getattr(func, "__name__", "")
            if name.startswith(_PREFIX) and not name.endswith("out"):
                return unrolled_call(name, args, kwargs or {})
            if func is torch.Tensor.new and len(args) == 1 and not kwargs:
                # torch 1.13's functionalization cannot make `t.new()` ("DispatchKey Functionalize
                # doesn't correspond to a device"; Adamax's foreach step calls it for the indices
                # of a `torch.max(..., out=)`): it is an empty tensor of t's dtype and device.
                return torch.empty((0,), dtype=args[0].dtype, device=args[0].device)
            return func(*args, **(kwargs or {}))


@contextlib.contextmanager
def per_tensor_foreach():
    """Within the block, calls of `torch._foreach_*` ops are made as the per-tensor calls they
    apply (Note [Foreach ops as per-tensor ops])."""
    if TorchFunctionMode is None:
        yield
        return
    with _PerTensorForeach():
        yield

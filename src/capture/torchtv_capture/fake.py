"""Shape-only capture: a pair whose example_inputs() returns meta tensors is traced with fake
tensors, so that realistic model sizes are captured without allocating their data.

Note [Fake tracing]
A meta tensor has a shape and a dtype but no storage. Tracing directly on meta tensors would
record device="meta" in factory ops (aten::ones, ...) and mix devices with CPU tensors created
inside the traced code. Instead every meta input becomes a FakeTensor that claims device "cpu"
(its data is still a meta tensor), and the whole capture -- the make_fx traces, the
re-execution that learns output shapes, the fusion traces -- runs inside one FakeTensorMode.
make_fx in "real" mode then traces exactly as its own "fake" mode does (its proxy mode sits on
top of our fake mode), but we choose the device. Fallback kernels are disabled: an op without
a meta implementation fails instead of silently running on real, full-size zeros. Custom ops
therefore need a "Meta" kernel (their plain-PyTorch reference usually works as one).
"""
import contextlib

import torch

from .errors import CaptureError


def is_fake(v):
    """Whether v is a fake tensor (a shape without data), or a tuple or list holding one."""
    if isinstance(v, (tuple, list)):
        return any(is_fake(x) for x in v)
    return type(v).__name__ == "FakeTensor"


def is_meta_inputs(inputs):
    """True when the inputs ask for fake tracing (all on the meta device); False when none is.
    Mixing meta and real tensors is an error (ValueError with the message)."""
    meta = [t.device.type == "meta" for t in inputs]
    if any(meta) and not all(meta):
        bad = meta.index(False)
        raise ValueError("example_inputs()[%d] is on device %s but other inputs are meta tensors; "
                         "either all inputs are meta tensors (shape-only capture) or none is"
                         % (bad, inputs[bad].device))
    return bool(meta) and all(meta)


def _fake_tensor_mode():
    try:
        from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode
    except ImportError as e:  # pragma: no cover - torch without fake tensors
        raise CaptureError("meta example inputs need torch's fake tensors (torch >= 1.13): %s" % e)
    return FakeTensor, FakeTensorMode(allow_fallback_kernels=False)


@contextlib.contextmanager
def fake_capture(pair):
    """Within the block, pair.example_inputs are CPU fake tensors and a FakeTensorMode is active
    (Note [Fake tracing]); outside it, nothing changes. A no-op for pairs with real inputs."""
    if not pair.fake:
        yield
        return
    FakeTensor, mode = _fake_tensor_mode()
    meta_inputs = pair.example_inputs
    cpu = torch.device("cpu")

    def fake(t):
        f = FakeTensor(mode, t.detach(), cpu)
        return f.requires_grad_(True) if t.requires_grad else f

    pair.example_inputs = tuple(fake(t) for t in meta_inputs)
    try:
        with mode:
            yield
    finally:
        pair.example_inputs = meta_inputs


_NO_META_KERNEL = "from the 'Meta' backend"


def meta_kernel_hint(exc):
    """A hint appended to a tracing error caused by an op without a meta kernel, else ''. torch
    1.13 says "Could not run 'ns::op' with arguments from the 'Meta' backend"; torch 2.x raises
    UnsupportedOperatorException naming the overload as ns.op.default, named here as ns::op."""
    op = getattr(exc, "func", None)
    if type(exc).__name__ == "UnsupportedOperatorException" and hasattr(op, "_schema"):
        named = "%s has no kernel for fake tensors" % op._schema.name
    elif _NO_META_KERNEL in str(exc):
        named = ""
    else:
        return ""
    return ("; %sa pair with meta example inputs is traced with fake tensors, so every custom op "
            "needs a 'Meta' kernel (e.g. lib.impl(name, reference_fn, \"Meta\"))"
            % (named + ": " if named else ""))


@contextlib.contextmanager
def outside_fake_mode(t, what):
    """Reads a real tensor (a constant baked into a trace) while a FakeTensorMode may be active:
    dispatch to Python modes is off within the block. A fake constant has no data to read."""
    if is_fake(t):
        raise CaptureError("%s has no data in a shape-only capture (meta example inputs); build it "
                           "from the inputs or pass it as an input" % what)
    from torch.utils._mode_utils import no_dispatch
    with no_dispatch():
        yield

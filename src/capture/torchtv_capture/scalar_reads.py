"""Values a traced function reads out of tensors it creates itself (`step_t.item()`)."""
import torch

# Note [Values read from tensors the function creates]
# torch.optim's steps keep their step counter in a tensor and read it back as a number
# (`step = step_t.item()` after `step_t += 1`) to compute bias corrections in Python. Where the
# function creates that tensor itself (`torch.tensor(3.0)`, a constant of the code), make_fx knows
# its value (it propagates the values of one-element tensors computed from constants) and the
# read is that number: the graph is the code that runs for every input, because the number depends
# on no input. Such a read changes what the graph means if the constant changes, so each one is
# reported with its value and location (a capture warning). A read of anything that depends on an
# input stays a data-dependent read, which the capture refuses (an input step counter is a tensor
# input like any other: code that reads it as a number cannot be captured as one graph).
_LOCAL_SCALAR_DENSE = torch.ops.aten._local_scalar_dense.default


class ScalarReads:
    """A make_fx decomposition-table entry that records each value read out of a tensor (its
    location and value) and lets make_fx answer it as it would without the entry."""

    def __init__(self, recorder):
        self.recorder = recorder
        self.reads = []   # ((file, line) or None, value)
        self._reading = False

    def table(self):
        return {_LOCAL_SCALAR_DENSE: self._read}

    def _read(self, t):
        if self._reading:
            return NotImplemented   # make_fx's own handling: the constant's value, or an error
        self._reading = True
        try:
            value = _LOCAL_SCALAR_DENSE(t)
        finally:
            self._reading = False
        self.reads.append((self.recorder.current(), value))
        return value


def describe_reads(what, reads):
    """Capture warnings for ``reads``, one per location and value."""
    seen = {}
    for loc, value in reads:
        key = (loc, repr(value))
        seen[key] = seen.get(key, 0) + 1
    out = []
    for (loc, value), n in seen.items():
        where = " at %s:%d" % loc if loc else ""
        out.append("%s reads the value %s out of a tensor it creates (`.item()`)%s%s: the graph "
                   "holds it as a constant" % (what, value, where, "" if n == 1 else " (%d times)" % n))
    return out

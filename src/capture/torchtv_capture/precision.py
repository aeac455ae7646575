"""Which precision the user's code computed in, op by op.

Note [Float64 evidence only from float64 runs]
The eager cross-check (Note [Eager cross-check] in eager.py) runs both functions again with their
floating inputs upcast to float64 and reads a difference that stays there as "beyond rounding".
That reading holds only if the code then computes in float64. Code that casts on purpose
(`.float()`, `.to(torch.float32)`, `softmax(..., dtype=torch.float32)`, a constant made with
`torch.tensor(0.1)`, an autocast-like region) rounds to float32 inside a "float64" run, and its
float32 rounding is then what the runs measure: Megatron-LM's vocab-parallel cross entropy, run
so, differs from F.cross_entropy by 4.4e-7 where float64 rounding is 1e-8.
So the float64 runs happen under a dispatch mode (TorchDispatchMode: torch 1.13 and 2.x) that
sees every ATen op, backward ops included, and records the first one whose floating output is
below float64, with its line in the user's files. Where there is one, the runs are not float64
runs: they neither refute nor count as evidence of rounding, and the record says which op and
which line. Ops that only create exact values (views, zeros, ones, empty) do not count; a cast
does (it rounds), but where a later op computes in the lower precision that op is named (the
cast of `softmax(x, dtype=torch.float32)` and the softmax that runs in float32 are one choice,
and the softmax is what the user wrote).
What the mode cannot see: a kernel (a C++ or Triton extension) that computes in float32 inside
and returns float64. Its float64 runs are trusted as such.
"""
import sys

import torch
from torch.utils._python_dispatch import TorchDispatchMode

# Ops whose floating outputs hold exactly what their inputs hold, or a value exact in any dtype.
_EXACT = frozenset((
    "alias", "as_strided", "detach", "expand", "lift_fresh", "permute", "reshape", "select", "slice",
    "squeeze", "t", "transpose", "unsqueeze", "view", "_unsafe_view", "unfold", "split", "split_with_sizes",
    "chunk", "unbind", "narrow", "diagonal", "empty", "empty_like", "empty_strided", "new_empty",
    "zeros", "zeros_like", "new_zeros", "ones", "ones_like", "new_ones",
))
# Ops that only convert: they round, but the op that then computes in the lower precision is the
# one to name when there is one.
_CONVERSIONS = frozenset(("_to_copy", "to", "copy_", "copy", "clone", "lift_fresh_copy", "_copy_from",
                          "_copy_from_and_resize", "type_as"))


def _base_name(func):
    """'_softmax' for aten._softmax.default (torch 1.13 and 2.x spell OpOverloads alike)."""
    name = getattr(func, "__name__", None) or str(func)
    return name.split(".")[0]


def _floating_dtypes(out):
    """The dtypes of out's floating tensors, a complex one as its component dtype (complex64
    computes in float32)."""
    if isinstance(out, torch.Tensor):
        if out.dtype.is_complex:
            return [torch.float64 if out.dtype == torch.complex128 else torch.float32]
        return [out.dtype] if out.dtype.is_floating_point else []
    if isinstance(out, (tuple, list)):
        return [d for o in out for d in _floating_dtypes(o)]
    return []


class BelowFloat64(TorchDispatchMode):
    """Within the block, records the first op whose floating output is below float64
    (Note [Float64 evidence only from float64 runs]): `.first` is None or (op, dtype, where)."""

    def __init__(self, user_files):
        super().__init__()
        self.user_files = user_files
        self.first_conversion = None
        self.first_computing = None

    @property
    def first(self):
        return self.first_computing or self.first_conversion

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if self.first_computing is None:
            low = [d for d in _floating_dtypes(out) if d != torch.float64]
            base = _base_name(func)
            if low and base not in _EXACT:
                seen = ("aten::" + base, str(low[0]).replace("torch.", ""), self._where())
                if base not in _CONVERSIONS:
                    self.first_computing = seen
                elif self.first_conversion is None:
                    self.first_conversion = seen
        return out

    def _where(self):
        """'file.py:31', the innermost frame in a user file; 'the backward pass' for an op the
        autograd engine runs with no user frame on the stack."""
        f = sys._getframe(2)
        while f is not None:
            path = self.user_files.match(f.f_code.co_filename) if self.user_files is not None else None
            if path is not None:
                return "%s:%d" % (path.rsplit("/", 1)[-1], f.f_lineno)
            f = f.f_back
        return None


def describe(side, first):
    """The evidence line: "production's aten::_softmax at fla_chunk.py:31 ran in float32: ..."."""
    op, dtype, where = first
    return ("%s's %s %s ran in %s: the float64 runs cannot separate rounding from a difference"
            % (side, op, "at " + where if where else "(in the backward pass)", dtype))

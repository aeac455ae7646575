"""The eager cross-check: the user's two functions run as written, outside any tracer.

Note [Eager cross-check]
A verdict is about the captured graphs; the user cares about the code that runs. The two can
differ (an op traced through a decomposition its eager kernel does not use; a tracer bug), so
the capture also runs reference and production eagerly, in this process and with the torch that
captured them, on example_inputs() and a few seeded random draws, and records per output what it
saw. The decision (src/verify/capture_evidence.cpp) holds every claim against it:
- `bitwise` needs bit-identical eager outputs (every NaN matches every NaN, +0 and -0 differ);
- `real` needs a difference that rounding explains: both functions are run again in float64
  (floating inputs upcast), and a difference that stays large there is not rounding. How large
  float64 rounding can be is measured, not guessed: the outputs' error in the graph's dtype
  (float32, bf16, ...) against float64, scaled by the ratio of the two epsilons, bounds float64's
  own error for a computation whose error grows linearly with epsilon; a difference above 1e4
  times that (and above 1e-9 of the output's scale) is not rounding. Where the low-precision error
  is above 1e-2 of the scale (the computation is not in that linear regime) or the graph is
  float64 already, the bound is 1e-6 of the scale: only a cancellation of ten orders of magnitude
  reaches it. The float64 runs count only where every op of both ran in float64 (Note [Float64
  evidence only from float64 runs] in precision.py): where one ran below (a deliberate .float()),
  the output's record says which op and line (`inconclusive`) and nothing is refuted from them.
A draw is a random tensor of each floating input's shape (normal, the example's device); integer
and bool inputs keep the example's values, permuted, so that indices stay in range. Each call gets
fresh copies of the inputs, so a function that mutates its inputs cannot change what the other
sees. A reference that gives different results on the same input twice (random ops) is not
compared: nothing can be concluded from it.

A shape-only pair (meta example inputs) has nothing to run at its own shapes; when it defines
small_inputs() (real tensors at reduced sizes, docs/tvir.md "Pair files") the functions run on those
and on seeded draws of their shapes, and the record says `"reduced_shapes": true`. Such runs can
only refute (Note [Cross-checks] in src/verify/cross_check.h): a difference beyond rounding is a
real input on which the two functions differ, but bit differences at other shapes say nothing
about a bitwise claim at the captured ones.
"""
import functools
import math

import torch

from .export import UPDATED_SUFFIX
from .precision import BelowFloat64, describe
from .world import reference_output_names, with_rank_copies

SEEDS = (1, 2, 3)
# Bounds on float64 rounding, as fractions of an output's scale or of its measured error (Note
# [Eager cross-check]); row 5 of Note [When values differ] in src/verify/value_difference.h.
BEYOND_ROUNDING = 1e-6      # when rounding cannot be measured: ten orders of magnitude of cancellation
ROUNDING_FLOOR = 1e-9       # the least bound when it can: seven orders of magnitude
ROUNDING_SAFETY = 1e4       # times the float64 error extrapolated from the graph dtype's error
LINEAR_REGIME = 1e-2        # a low-precision error above this fraction of the scale is not extrapolated


def _draws(inputs, label):
    """(label, inputs) pairs: the given inputs first, then the seeded random draws."""
    yield label, inputs
    for seed in SEEDS:
        g = torch.Generator().manual_seed(seed)
        drawn = []
        for t in inputs:
            if t.dtype.is_floating_point:
                r = torch.randn(t.shape, generator=g, dtype=torch.float64).to(t.dtype)
            elif t.numel() > 1:
                perm = torch.randperm(t.numel(), generator=g)
                r = t.detach().reshape(-1)[perm].reshape(t.shape)
            else:
                r = t.detach()
            drawn.append(r.to(t.device).requires_grad_(t.requires_grad))
        yield "random draw (seed %d)" % seed, tuple(drawn)


def _fresh(inputs, dtype=None):
    out = []
    for t in inputs:
        c = t.detach().clone()
        if dtype is not None and c.dtype.is_floating_point:
            c = c.to(dtype)
        out.append(c.requires_grad_(t.requires_grad))
    return tuple(out)


def _as_tuple(r):
    if r is None:  # returns nothing: it computes only the inputs it updates in place
        return ()
    if isinstance(r, torch.Tensor):
        return (r,)
    return tuple(r)


def _run_reference(pair, inputs):
    """The reference's outputs as the capture names them, with a distributed pair's rank copies
    (Note [Every rank's copy of a replicated output])."""
    if pair.mode != "train_step":
        with torch.no_grad():
            r = pair.reference(*inputs)
        out = _as_tuple(r)
    else:
        loss = pair.reference(*inputs)
        diff = [t for t in inputs if t.requires_grad]
        grads = torch.autograd.grad(loss, diff, allow_unused=True)
        r = out = _detached((loss,) + tuple(torch.zeros_like(t) if g is None else g for t, g in zip(diff, grads)))
    return with_rank_copies(pair, out, reference_output_names(pair, r))[0]


def _updated_positions(pair, out_names):
    """The positions of the inputs whose updates are outputs NAME__updated (Note [Input mutations]
    in export.py), in the order of out_names (they come after the returned outputs)."""
    return [pair.input_names.index(n[:-len(UPDATED_SUFFIX)]) for n in out_names
            if n.endswith(UPDATED_SUFFIX) and n[:-len(UPDATED_SUFFIX)] in pair.input_names]


def _run(pair, run, fresh, updated):
    """``run``'s outputs on ``fresh`` (copies of the inputs), then the copies at ``updated`` as the
    function left them: the outputs the capture names, in its order."""
    return tuple(run(pair, fresh)) + tuple(fresh[i].detach() for i in updated)


def _run_production(pair, inputs):
    """As trace_production runs it: detached inputs, unless production calls autograd itself."""
    from .tracing import _is_autograd_error
    try:
        return _detached(_as_tuple(pair.production(*(t.detach() for t in inputs))))
    except RuntimeError as e:
        if not (any(t.requires_grad for t in inputs) and _is_autograd_error(e)):
            raise
    return _detached(_as_tuple(pair.production(*inputs)))


def _detached(outputs):
    """The outputs without their autograd graphs, whose leaves would keep the run's inputs alive as
    long as the outputs live (Note [The eager check's memory]); the values are the same."""
    return tuple(t.detach() if isinstance(t, torch.Tensor) else t for t in outputs)


# Note [Comparisons in one pass]
# The comparisons run once per output and draw (a 126-layer train step: 1,138 outputs, 11 million
# elements, four draws), so each is written to pass over the elements as few times as it can
# while computing exactly what the plain formulation would: bits compared as integers (NaN with
# NaN counted equal), masked maxima instead of boolean indexing (every masked value is >= 0, so a
# zero in its place changes no maximum), a finiteness test of two tensors in one expression, and
# a unit in the last place as the power of two below the scale read from its bits (exact, where
# 2 ** floor(log2(x)) was not for a float64 x just below a power of two, whose log2 rounds up:
# the largest double's ulp came out infinite and its distance NaN). Comparing
# them all in one concatenation per draw was measured slower (tensors out of cache).
_SAME_SIZE_INT = {torch.float64: torch.int64, torch.float32: torch.int32, torch.float16: torch.int16,
                  torch.bfloat16: torch.int16}


def _differ_mask(a, b):
    """Elements whose bits differ (a NaN and a NaN are the same; +0 and -0 differ); a and b of
    one shape and one floating dtype."""
    a, b = a.detach(), b.detach()
    as_int = _SAME_SIZE_INT.get(a.dtype)
    if as_int is None:
        nan = torch.isnan(a) & torch.isnan(b)
        return ~(nan | ((a == b) & (torch.signbit(a) == torch.signbit(b))))
    bad = a.reshape(-1).view(as_int) != b.reshape(-1).view(as_int)
    return bad.reshape(a.shape) & ~(torch.isnan(a) & torch.isnan(b))


def _bits_equal(a, b):
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if not a.dtype.is_floating_point:
        return bool(torch.equal(a, b))
    return not bool(_differ_mask(a, b).any())


def _both_finite(a, b):
    """isfinite(a) & isfinite(b): x * 0 is 0 for a finite x and NaN otherwise."""
    return (a * 0).add_(b * 0) == 0


def _ulps(a, b):
    """Largest distance in units in the last place of a's dtype between finite elements."""
    fa, fb = a.double(), b.double()
    finite = _both_finite(fa, fb)
    if not finite.any():
        return 0.0
    eps = torch.finfo(a.dtype).eps
    scale = torch.maximum(fa.abs(), fb.abs()).clamp_(min=torch.finfo(a.dtype).tiny)
    # 2 ** floor(log2(scale)), exactly: scale (positive, normal) with its mantissa bits cleared
    ulp = (scale.view(torch.int64) & -(1 << 52)).view(torch.float64).mul_(eps)
    return float((fa - fb).abs_().div_(ulp).masked_fill_(~finite, 0.0).max())


def _first_difference(a, b, bad=None):
    if bad is None:
        bad = _differ_mask(a, b) if a.dtype.is_floating_point else a.reshape(-1).double() != b.reshape(-1).double()
    bad = bad.reshape(-1)
    idx = int(bad.to(torch.uint8).argmax())  # the first element that differs
    fa, fb = a.detach().reshape(-1), b.detach().reshape(-1)
    return _index(idx, a.shape), float(fa[idx]), float(fb[idx]), int(bad.sum())


def _index(flat, shape):
    """The row-major multi-index of element ``flat`` of a tensor of ``shape``."""
    index = []
    for d in reversed(shape):
        index.append(flat % d)
        flat //= d
    return list(reversed(index))


def _json_float(x):
    return x if math.isfinite(x) else repr(x)


class _Comparison:
    def __init__(self, name):
        self.name = name
        self.draws = 0
        self.bitwise = True
        self.beyond = None        # description of a difference rounding does not explain
        self.inconclusive = None  # why rounding could not be ruled in or out
        self.elements = 0
        self.max_ulp = 0.0
        self.first = None

    def to_json(self):
        return {"output": self.name, "draws": self.draws, "bitwise_equal": self.bitwise,
                "elements_differ": self.elements, "max_ulp": _json_float(self.max_ulp),
                "beyond_rounding": self.beyond, "inconclusive": self.inconclusive,
                "first_difference": self.first}


def eager_check(pair, out_names):
    """Runs the pair's functions eagerly (Note [Eager cross-check]). Returns the JSON record."""
    try:
        return _eager_check(pair, out_names)
    finally:
        _return_freed_memory()


# Note [The eager check's memory]
# A shape-only pair's runs at small_inputs() come before its traces (Note [Refuted before the
# shape-only capture] in capture.py) and move a lot of memory: the 126-layer bench pair has 11.4
# million parameters, so each run's fresh inputs and outputs are 43 MiB, 87 MiB in float64.
# They took that capture's peak from the traces' 0.6 GiB to 1.18-1.29 GiB. Three things keep the
# check to what one draw needs and its memory from adding to the traces' (0.77 GiB in all since;
# measured in bench/results/capture.md):
# - the outputs are kept without their autograd graphs (_detached): the graph's leaves are the
#   run's inputs, which a kept loss kept alive (the check's own peak 999 -> 789 MiB there);
# - a draw's tensors (its inputs, both functions' outputs, the float64 runs) are dropped before
#   the next draw is made and run, and the first determinism run as soon as it is compared: the
#   last draw's are not held beside the next one's, and only the comparisons' summaries
#   (_Comparison) outlive a draw (the check's own peak 1197 -> 999 MiB there);
# - the freed memory goes back to the operating system when the check ends (glibc's malloc_trim,
#   _return_freed_memory): the tensors are mostly blocks below malloc's mmap threshold, which stay
#   in its heap while any block above them lives, and the traces' objects come mostly from
#   Python's own arenas, so without it the traces started on top of the 0.7 GiB the check had freed.
# The record is the same: the same runs on the same inputs, compared in the same order.
def _eager_check(pair, out_names):
    inputs, given = pair.example_inputs, "example_inputs()"
    if pair.fake:
        if pair.small_inputs is None:
            return {"ran": False, "why": "shape-only capture (meta example inputs) and the pair file gives no "
                    "small_inputs(): there is nothing to run (a small_inputs() returning real tensors at "
                    "reduced sizes lets torchtv run the functions there and refute them)"}
        inputs, given = pair.small_inputs, "small_inputs()"
    # The reference runs twice on the given inputs: the second run is the first draw's, so the
    # determinism check costs no run of its own (at 126 layers a run is about a second).
    try:
        updated = _updated_positions(pair, out_names)
        first = _run(pair, _run_reference, _fresh(inputs), updated)
        again = _run(pair, _run_reference, _fresh(inputs), updated)
    except Exception as e:  # the trace succeeded, so this is unexpected; say so, decide nothing
        return {"ran": False, "why": "running reference() eagerly on %s failed: %s: %s"
                % (given, type(e).__name__, str(e)[:200])}
    deterministic = len(first) == len(out_names) and all(_bits_equal(a, b) for a, b in zip(first, again))
    del first
    if not deterministic:
        return {"ran": False, "why": "reference() gives different results on the same inputs (random ops?)"}
    comps = [_Comparison(n) for n in out_names]
    for label, draw in _draws(inputs, given):
        stopped = _compare_draw(pair, comps, label, draw, again if label == given else None, given, updated)
        again = draw = None  # Note [The eager check's memory]
        if stopped is not None:
            return stopped
    record = {"ran": True, "inputs": "%s and %d seeded random draws" % (given, len(SEEDS)),
              "outputs": [c.to_json() for c in comps]}
    if pair.fake:
        record["reduced_shapes"] = True
        record["inputs"] = "small_inputs() (%s) and %d seeded random draws of their shapes" % (
            _shapes_told(pair), len(SEEDS))
    return record


def _compare_draw(pair, comps, label, draw, ref, given, updated):
    """Runs the functions on one draw (the reference only when ``ref``, its outputs, is None) and
    adds what their outputs show to ``comps``. Returns a record that stops the check ("ran": false)
    or None to go on."""
    try:
        if ref is None:
            ref = _run(pair, _run_reference, _fresh(draw), updated)
        prod = _run(pair, _run_production, _fresh(draw), updated)
    except Exception as e:
        if label == given:
            return {"ran": False, "why": "running the functions eagerly on %s failed: %s: %s"
                    % (given, type(e).__name__, str(e)[:200])}
        return None  # a random draw outside the functions' domain: not evidence either way
    if len(prod) != len(ref):
        return {"ran": False, "why": "production() returns %d tensors eagerly, reference %d"
                % (len(prod), len(ref))}
    wide = None
    for o, (c, r, p) in enumerate(zip(comps, ref, prod)):
        c.draws += 1
        if r.shape != p.shape or r.dtype != p.dtype:
            continue  # types that differ are decided by the graphs' own types
        bad = _differ_mask(r, p) if r.dtype.is_floating_point else None
        if (not bool(bad.any())) if bad is not None else torch.equal(r, p):
            continue
        c.bitwise = False
        index, rv, pv, n = _first_difference(r, p, bad)
        c.elements = max(c.elements, n)
        if r.dtype.is_floating_point:
            c.max_ulp = max(c.max_ulp, _ulps(r, p))
        if c.first is None:
            c.first = {"input": label, "index": index, "reference": _json_float(rv),
                       "production": _json_float(pv)}
        if c.beyond is not None or not r.dtype.is_floating_point:
            if not r.dtype.is_floating_point and c.beyond is None:
                c.beyond = "%s: element %s is %s in reference, %s in production" % (label, index, rv, pv)
            continue
        if wide is None:
            wide = _wide(pair, draw, updated)
        if isinstance(wide, str):
            c.inconclusive = wide
            continue
        w = _beyond_rounding(wide[0][o], wide[1][o], r, p)
        if w is not None:
            c.beyond = "%s: %s" % (label, w)
    return None


def _return_freed_memory():
    """Hands the memory the C heap has freed back to the operating system, where the C library
    can (glibc's malloc_trim; elsewhere nothing): Note [The eager check's memory]."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@functools.lru_cache(maxsize=None)
def _malloc_trim():
    """glibc's malloc_trim, from the symbols the process already has; None where there is none."""
    import ctypes
    try:
        return ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None


def _shapes_told(pair, most=3):
    """'x [4, 32] for [2048, 4096], ...': the first inputs whose sizes small_inputs() reduces."""
    told = ["%s %s for %s" % (n, list(s.shape), list(t.shape))
            for n, s, t in zip(pair.input_names, pair.small_inputs, pair.example_inputs) if s.shape != t.shape]
    if not told:
        return "the captured shapes"
    return ", ".join(told[:most]) + (", ..." if len(told) > most else "")


def _in_float64(pair, run, draw, updated):
    """``run`` on float64 copies of the draw, made outside the recording mode (only the function's
    own ops are recorded) and dropped when it returns (Note [The eager check's memory])."""
    fresh = _fresh(draw, torch.float64)
    with BelowFloat64(pair.user_files) as mode:
        return _run(pair, run, fresh, updated), mode


def _wide(pair, draw, updated):
    """Both functions in float64 on the draw, or why their runs are not float64 evidence: they
    raise, or an op ran below float64 (Note [Float64 evidence only from float64 runs])."""
    try:
        ref, ref_mode = _in_float64(pair, _run_reference, draw, updated)
        prod, prod_mode = _in_float64(pair, _run_production, draw, updated)
    except Exception as e:
        return "the functions do not run in float64 (%s: %s)" % (type(e).__name__, str(e)[:120])
    for side, mode in (("reference", ref_mode), ("production", prod_mode)):
        if mode.first is not None:
            return describe(side, mode.first)
    return ref, prod


def _rounding_bound(r, p, low_r, low_p, finite, scale):
    """How far float64 rounding can move an output (Note [Eager cross-check]): extrapolated from
    the error of the graph-dtype outputs low_r, low_p against the float64 ones r, p."""
    dtype = low_r.dtype
    if not dtype.is_floating_point or dtype == torch.float64 or low_p.dtype != dtype or low_r.shape != r.shape:
        return BEYOND_ROUNDING * scale
    lr, lp = low_r.detach().double(), low_p.detach().double()
    ok = finite & _both_finite(lr, lp)
    if not bool(ok.all()):
        return BEYOND_ROUNDING * scale
    err = float(torch.maximum((lr - r).abs_(), (lp - p).abs_()).max())
    if err > LINEAR_REGIME * scale:
        return BEYOND_ROUNDING * scale
    ratio = torch.finfo(torch.float64).eps / torch.finfo(dtype).eps
    return max(ROUNDING_FLOOR * scale, ROUNDING_SAFETY * err * ratio)


def _beyond_rounding(r, p, low_r, low_p):
    """None when the float64 results r, p agree up to rounding; else what differs. low_r, low_p:
    the same outputs in the graph's dtype, from which float64's rounding is estimated."""
    if not (r.dtype.is_floating_point and p.dtype.is_floating_point) or r.shape != p.shape:
        return None
    r, p = r.detach().double(), p.detach().double()
    nan = torch.isnan(r) != torch.isnan(p)
    if nan.any():
        i = int(nan.reshape(-1).nonzero()[0])
        return "in float64, element %s is %s in reference, %s in production" % (
            _index(i, r.shape), float(r.reshape(-1)[i]), float(p.reshape(-1)[i]))
    finite = _both_finite(r, p)
    if not finite.any():
        return None
    infinite = ~finite
    scale = float(torch.maximum(r.abs(), p.abs()).masked_fill_(infinite, 0.0).max())
    diff = (r - p).abs_().masked_fill_(infinite, 0.0)
    worst = float(diff.max())
    bound = _rounding_bound(r, p, low_r, low_p, finite, max(scale, 1e-30))
    if worst <= bound:
        return None
    i = int(diff.reshape(-1).argmax())
    return ("in float64 the outputs still differ by %.3g, more than rounding explains (%.3g; element %s: "
            "reference %.17g, production %.17g)" % (worst, bound, _index(i, r.shape), float(r.reshape(-1)[i]),
                                                     float(p.reshape(-1)[i])))

"""Loading and validating a pair file (see docs/tvir.md, "Pair files")."""
import ast
import hashlib
import inspect
import os
import re
import sys
import types

import torch

from .errors import CaptureError, UserFiles, user_frame_of_exception, short_exc
from .fake import is_meta_inputs
from .values import data_dtype_name, dtype_name
from .world import declared_world, make_world_production

MODES = ("forward", "train_step")


class Pair:
    """A loaded pair file."""

    def __init__(self):
        self.path = None          # absolute path of the pair file
        self.module = None
        self.tree = None          # ast of the pair file
        self.mode = "forward"
        self.reference = None
        self.production = None
        self.example_inputs = None  # tuple of tensors
        self.input_names = None     # value names of the inputs (reference's parameter names)
        self.fusions = {}           # "ns::op" -> (OpOverloadPacket or OpOverload, fn)
        self.user_files = None
        self.fake = False           # meta example inputs: traced with fake tensors (fake.py)
        self.allow_input_mutation = ()  # input names whose in-place updates are not compared
        self.small_inputs = None    # shape-only pair: real tensors at reduced sizes, or None
        self.world = None           # WORLD_SIZE and SHARDING: a World (world.py), or None
        self.assume = []            # ASSUME as "NAME in [0, N)" texts (Note [Declared input domains])


def _assign_line(tree, name):
    """Line of the last top-level assignment to ``name`` in the module, or None."""
    line = None
    for st in getattr(tree, "body", []):
        targets = []
        if isinstance(st, ast.Assign):
            targets = st.targets
        elif isinstance(st, (ast.AnnAssign, ast.AugAssign)):
            targets = [st.target]
        for t in targets:
            if isinstance(t, ast.Name) and t.id == name:
                line = st.lineno
    return line


def _def_line(fn):
    code = getattr(inspect.unwrap(fn), "__code__", None)
    return code.co_firstlineno if code is not None else None


def _fn_file(fn):
    code = getattr(inspect.unwrap(fn), "__code__", None)
    return code.co_filename if code is not None else None


def return_line(fn):
    """Line of the single ``return`` statement of ``fn`` (ignoring nested functions), else the
    line of its ``def``, else None."""
    fn = inspect.unwrap(fn)
    line = _def_line(fn)
    try:
        src_lines, start = inspect.getsourcelines(fn)
        import textwrap
        tree = ast.parse(textwrap.dedent("".join(src_lines)))
    except (OSError, TypeError, SyntaxError, IndentationError):
        return line
    if not tree.body or not isinstance(tree.body[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
        return line
    rets = []

    def walk(node):
        for ch in ast.iter_child_nodes(node):
            if isinstance(ch, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                continue
            if isinstance(ch, ast.Return):
                rets.append(ch)
            walk(ch)

    walk(tree.body[0])
    if len(rets) == 1:
        return start + rets[0].lineno - 1
    return line


def resolve_op(qualname):
    """``ns::op`` or ``ns::op.overload`` -> the OpOverloadPacket / OpOverload, or None."""
    if "::" not in qualname:
        return None
    ns, rest = qualname.split("::", 1)
    name, _, overload = rest.partition(".")
    try:
        packet = getattr(getattr(torch.ops, ns), name)
    except (AttributeError, RuntimeError):
        return None
    if overload:
        try:
            return getattr(packet, overload)
        except (AttributeError, RuntimeError):
            return None
    return packet


def load_pair(path):
    pair = Pair()
    ap = os.path.abspath(path)
    pair.path = ap
    pair.user_files = UserFiles([ap])
    if not os.path.isfile(ap):
        raise CaptureError("pair file not found: %s" % ap, ap, None)
    try:
        with open(ap, "rb") as f:
            source = f.read()
    except OSError as e:
        raise CaptureError("cannot read pair file: %s" % short_exc(e), ap, None)
    try:
        code = compile(source, ap, "exec", dont_inherit=True)
        pair.tree = ast.parse(source, ap)
    except SyntaxError as e:
        raise CaptureError("syntax error in pair file: %s" % (e.msg or str(e)),
                           os.path.abspath(e.filename) if e.filename else ap, e.lineno)
    except ValueError as e:  # e.g. null bytes
        raise CaptureError("cannot compile pair file: %s" % short_exc(e), ap, None)

    modname = "torchtv_pair_" + hashlib.sha1(ap.encode()).hexdigest()[:12]
    mod = types.ModuleType(modname)
    mod.__file__ = ap
    sys.modules[modname] = mod
    pair.module = mod
    d = os.path.dirname(ap)
    added = d not in sys.path
    if added:
        sys.path.insert(0, d)
    try:
        exec(code, mod.__dict__)
    except CaptureError:
        raise
    except BaseException as e:
        if isinstance(e, (KeyboardInterrupt,)):
            raise
        f, l = user_frame_of_exception(e, pair.user_files, ap)
        if isinstance(e, SystemExit):
            raise CaptureError("the pair file called sys.exit() while being imported", f, l)
        raise CaptureError("importing the pair file failed: %s" % short_exc(e), f, l)

    return fill_pair(pair, mod)


def pair_from_objects(reference, production, example_inputs, mode="forward", fusions=None):
    """A Pair from Python objects (the torchtv.verify API): the same checks as a pair file,
    with the file that defines ``reference`` standing in for the pair file."""
    src = _fn_file(reference) or "<unknown>"
    pair = Pair()
    pair.path = os.path.abspath(src)
    pair.user_files = UserFiles([pair.path, _fn_file(production)])
    try:
        with open(pair.path, "rb") as f:
            pair.tree = ast.parse(f.read(), pair.path)
    except (OSError, SyntaxError, ValueError):
        pair.tree = None
    inputs_fn = example_inputs if callable(example_inputs) else (lambda: example_inputs)
    ns = types.SimpleNamespace(example_inputs=inputs_fn, reference=reference, production=production,
                               MODE=mode, FUSIONS=fusions)
    return fill_pair(pair, ns)


def fill_pair(pair, mod):
    """Validates the pair's functions, MODE, FUSIONS and example inputs, taken as attributes of
    ``mod`` (the pair file's module, or a namespace), and stores them in ``pair``."""
    ap = pair.path
    for fname in ("example_inputs", "reference", "production"):
        fn = getattr(mod, fname, None)
        if fn is None:
            raise CaptureError("the pair file defines no function '%s' (required: example_inputs, "
                               "reference, production)" % fname, ap, None)
        if not callable(fn):
            raise CaptureError("'%s' in the pair file is not a function" % fname, ap,
                               _assign_line(pair.tree, fname))
    pair.reference = mod.reference
    pair.production = mod.production
    # A pair file may import its functions (a planted-bug variant imports its base model):
    # their nodes' source lines lie in the file that defines them, which is user code too.
    pair.user_files.add(_fn_file(mod.reference))
    pair.user_files.add(_fn_file(mod.production))

    mode = getattr(mod, "MODE", "forward")
    if mode not in MODES:
        raise CaptureError("MODE must be one of %s, got %r" % (", ".join(repr(m) for m in MODES), mode),
                           ap, _assign_line(pair.tree, "MODE"))
    pair.mode = mode

    fusions = getattr(mod, "FUSIONS", None)
    if fusions is not None:
        fl = _assign_line(pair.tree, "FUSIONS")
        if not isinstance(fusions, dict):
            raise CaptureError("FUSIONS must be a dict from 'ns::op' to a function, got %s"
                               % type(fusions).__name__, ap, fl)
        for k, fn in fusions.items():
            if not isinstance(k, str) or "::" not in k:
                raise CaptureError("FUSIONS key %r is not a qualified op name 'ns::op'" % (k,), ap, fl)
            if not callable(fn):
                raise CaptureError("FUSIONS[%r] is not a function" % k, ap, fl)
            op = resolve_op(k)
            if op is None:
                raise CaptureError("FUSIONS names op %r, but no such operator is registered "
                                   "(torch.ops.%s)" % (k, k.replace("::", ".")), ap, fl)
            if k.split("::")[0] == "aten":
                raise CaptureError("FUSIONS key %r is an aten op; FUSIONS is for custom ops" % k, ap, fl)
            pair.fusions[k] = (op, fn)
            pair.user_files.add(_fn_file(fn))

    # example inputs
    try:
        inputs = mod.example_inputs()
    except Exception as e:
        f, l = user_frame_of_exception(e, pair.user_files, ap)
        raise CaptureError("example_inputs() raised %s" % short_exc(e), f, l)
    if isinstance(inputs, torch.Tensor):
        inputs = (inputs,)
    el = _def_line(mod.example_inputs)
    if not isinstance(inputs, (tuple, list)):
        raise CaptureError("example_inputs() must return a tuple of tensors, got %s"
                           % type(inputs).__name__, ap, return_line(mod.example_inputs))
    for i, t in enumerate(inputs):
        if not isinstance(t, torch.Tensor):
            raise CaptureError("example_inputs()[%d] is a %s, not a tensor" % (i, type(t).__name__),
                               ap, return_line(mod.example_inputs))
        try:
            data_dtype_name(t.dtype, "this input")
        except CaptureError as e:
            raise CaptureError("example_inputs()[%d]: %s" % (i, e.message), ap,
                               return_line(mod.example_inputs))
        if t.layout != torch.strided:
            raise CaptureError("example_inputs()[%d] has layout %s; only dense tensors are supported"
                               % (i, t.layout), ap, return_line(mod.example_inputs))
    if not inputs:
        raise CaptureError("example_inputs() returned no tensors", ap, el)
    try:
        pair.fake = is_meta_inputs(inputs)
    except ValueError as e:
        raise CaptureError(str(e), ap, return_line(mod.example_inputs))
    pair.example_inputs = tuple(inputs)
    if pair.fake:
        pair.small_inputs = _small_inputs(mod, pair)

    # input names from reference's signature; both functions must accept the inputs
    pair.input_names = _param_names(mod.reference, len(inputs), "reference", ap)
    pair.world = declared_world(mod, pair, inputs, _assign_line)
    if pair.world is None:
        _param_names(mod.production, len(inputs), "production", ap)
    else:  # production(rank, world_size, *shards): Note [A world of ranks composed into one function]
        _check_rank_signature(mod.production, len(inputs), ap)
        pair.production = make_world_production(pair.world, pair.user_files, mode == "train_step",
                                                 [t.requires_grad for t in inputs])
    allowed = getattr(mod, "ALLOW_INPUT_MUTATION", False)
    if allowed is True:
        pair.allow_input_mutation = tuple(pair.input_names)
    elif isinstance(allowed, (list, tuple)) and all(a in pair.input_names for a in allowed):
        pair.allow_input_mutation = tuple(allowed)
    elif allowed is not False:
        raise CaptureError("ALLOW_INPUT_MUTATION must be True, False or a list of input names (%s), "
                           "got %r" % (", ".join(pair.input_names), allowed), ap,
                           _assign_line(pair.tree, "ALLOW_INPUT_MUTATION"))
    pair.assume = _declared_domains(mod, pair, inputs)
    if mode == "train_step" and not any(t.requires_grad for t in inputs):
        raise CaptureError("MODE is 'train_step' but no tensor from example_inputs() has "
                           "requires_grad=True, so there is nothing to differentiate", ap,
                           return_line(mod.example_inputs))
    return pair


_DECLARED_RANGE = re.compile(r"\s*in\s+\[\s*0\s*,\s*\d+\s*\)(\s+or\s+-?\d+)*\s*$")


def _declared_domains(mod, pair, inputs):
    """ASSUME = {"target": "in [0, 5)"}: ranges the user declares for integer inputs (Note
    [Declared input domains] in src/verify/input_domains.h), as "target in [0, 5)" texts."""
    declared = getattr(mod, "ASSUME", None)
    if declared is None:
        return []
    line = _assign_line(pair.tree, "ASSUME")
    if not isinstance(declared, dict):
        raise CaptureError("ASSUME must be a dict from input names to ranges such as \"in [0, 5)\", got %r"
                           % (declared,), pair.path, line)
    out = []
    for name, text in declared.items():
        if name not in pair.input_names:
            raise CaptureError("ASSUME names %r, which is not an input of reference (%s)"
                               % (name, ", ".join(pair.input_names)), pair.path, line)
        t = inputs[pair.input_names.index(name)]
        if t.dtype.is_floating_point or t.dtype.is_complex or t.dtype == torch.bool:
            raise CaptureError("ASSUME[%r]: a range is declared for integer inputs only, %s is %s"
                               % (name, name, dtype_name(t.dtype)), pair.path, line)
        if not isinstance(text, str) or not _DECLARED_RANGE.match(text):
            raise CaptureError("ASSUME[%r] must read \"in [0, N)\", optionally followed by \"or K\" for "
                               "values outside it (e.g. \"in [0, 5) or -100\"), got %r" % (name, text),
                               pair.path, line)
        out.append("%s %s" % (name, text.strip()))
    return out


def _small_inputs(mod, pair):
    """The optional small_inputs() of a shape-only pair (docs/tvir.md, "Pair files"): real tensors
    at reduced sizes on which the eager cross-check runs the functions (Note [Eager
    cross-check]). Each must match its example input in dtype, rank and requires_grad; None
    when the pair has none."""
    ap, inputs = pair.path, pair.example_inputs
    fn = getattr(mod, "small_inputs", None)
    if fn is None:
        return None
    if not callable(fn):
        raise CaptureError("'small_inputs' in the pair file is not a function", ap,
                           _assign_line(pair.tree, "small_inputs"))
    try:
        small = fn()
    except Exception as e:
        f, l = user_frame_of_exception(e, pair.user_files, ap)
        raise CaptureError("small_inputs() raised %s" % short_exc(e), f, l)
    if isinstance(small, torch.Tensor):
        small = (small,)
    rl = return_line(fn)
    if not isinstance(small, (tuple, list)) or len(small) != len(inputs):
        raise CaptureError("small_inputs() must return a tuple of %d tensors, like example_inputs(); got %s"
                           % (len(inputs), "%d values" % len(small) if isinstance(small, (tuple, list))
                              else type(small).__name__), ap, rl)
    for i, (s, t) in enumerate(zip(small, inputs)):
        if not isinstance(s, torch.Tensor):
            raise CaptureError("small_inputs()[%d] is a %s, not a tensor" % (i, type(s).__name__), ap, rl)
        if s.device.type == "meta":
            raise CaptureError("small_inputs()[%d] is a meta tensor; small_inputs() gives real tensors "
                               "(at reduced sizes) to run the functions on" % i, ap, rl)
        if s.dtype != t.dtype or s.dim() != t.dim() or s.requires_grad != t.requires_grad:
            raise CaptureError("small_inputs()[%d] (%s, rank %d, requires_grad=%s) does not match "
                               "example_inputs()[%d] (%s, rank %d, requires_grad=%s): only the sizes may differ"
                               % (i, s.dtype, s.dim(), s.requires_grad, i, t.dtype, t.dim(), t.requires_grad),
                               ap, rl)
        if s.layout != torch.strided:
            raise CaptureError("small_inputs()[%d] has layout %s; only dense tensors are supported"
                               % (i, s.layout), ap, rl)
    return tuple(small)


def _check_rank_signature(fn, n, ap):
    """A distributed pair's production takes the rank, the world size and the inputs."""
    try:
        inspect.signature(fn).bind(*range(n + 2))
    except (TypeError, ValueError) as e:
        raise CaptureError("with WORLD_SIZE declared, production(rank, world_size, ...) is one rank's code: it must "
                           "take the rank, the world size and the %d tensors example_inputs() returns (%s)" % (n, e),
                           ap, _def_line(fn))


def _param_names(fn, n, what, ap):
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return ["in%d" % i for i in range(n)]
    try:
        sig.bind(*range(n))
    except TypeError as e:
        raise CaptureError("%s() cannot be called with the %d tensors example_inputs() returns: %s"
                           % (what, n, e), ap, _def_line(fn))
    names = []
    for p in sig.parameters.values():
        if len(names) == n:
            break
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            names.append(p.name)
        elif p.kind == p.VAR_POSITIONAL:
            # `*ws` holds ws[0], ws[1], ...: numbered as the code indexes them, not by position
            # among all the inputs (`reference(x, y, *ws)` named ws[0] "ws2", its gradient "grad_ws2").
            first = len(names)
            while len(names) < n:
                names.append("%s%d" % (p.name, len(names) - first))
    seen = set()
    out = []
    for i, nm in enumerate(names):
        if nm in seen:
            nm = "in%d" % i
        seen.add(nm)
        out.append(nm)
    return out

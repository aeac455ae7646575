"""The rewrite catalog of the metamorphic generator (issue 18): semantics-preserving rewrites, each
tagged with the level it preserves, and bug mutations. Each works on the Python AST of the
production side of a seed pair file.

A rewrite is `Rewrite(name, level, sites, apply)`: `sites(fn_ast, ctx)` lists the nodes where it
applies, `apply(node, ctx)` returns the node that replaces one. `level` is "bitwise" (the rewritten
code computes the same bits, as IEEE evaluation in PyTorch does: layout chains, operand order of
commutative ops, duplicated or dead code, detach), "real" (equal over the reals only: the
rounding may differ) or "bug" (a mutation that changes the values; the generator keeps only
mutants that eager evaluation shows to differ, see metamorphic.py).

Rewrites that need to look at the values' runtime types or shapes call helpers (PRELUDE, pasted
into every generated file): they run at capture time, so the captured graph holds only the
rewritten ATen ops.
"""
import ast
import copy

# Helpers pasted into every generated pair file. Each takes tensors (or, where a rewrite cannot
# tell a tensor from a Python number syntactically, anything) and leaves non-tensors alone.
PRELUDE = '''
import torch as _mm_torch


def _mm_is_t(t):
    return isinstance(t, _mm_torch.Tensor)


def _mm_view(t):
    """bitwise: a view chain (flatten, then view back)."""
    return t.reshape(-1).view(t.shape) if _mm_is_t(t) and t.dim() > 0 else t


def _mm_permute(t):
    """bitwise: a permutation and its inverse, the layout restored (contiguous again)."""
    if not _mm_is_t(t) or t.dim() < 2:
        return t
    order = list(range(t.dim()))[::-1]
    return t.permute(order).contiguous().permute(order).contiguous()


def _mm_strided(t):
    """real: a permutation and its inverse that leaves the value in a transposed memory layout.
    The elements are the same, but PyTorch's reductions and matmuls over it may accumulate in
    another order (a 1-ulp difference is common): bitwise only where eager agrees bit for bit."""
    if not _mm_is_t(t) or t.dim() < 2:
        return t
    order = list(range(t.dim()))[::-1]
    return t.permute(order).contiguous().permute(order)


def _mm_dead(t):
    """bitwise: a dead subgraph computed from the value, its result unused."""
    if _mm_is_t(t) and t.is_floating_point():
        _unused = (t * 2 + 1).sum()
    return t


def _mm_sum_nested(t):
    """real: a full sum as a sum over the last dim, then over the rest."""
    return t.sum(-1).sum() if _mm_is_t(t) and t.dim() >= 2 else t.sum()


def _mm_mean_square(a, *args, **kwargs):
    """real: the mean of a square by the variance formula, var(a) + mean(a)^2."""
    dims = args[0] if args else kwargs.get("dim")
    keep = kwargs.get("keepdim", args[1] if len(args) > 1 else False)
    m = a.mean(dims, keepdim=keep)
    return a.var(dims, unbiased=False, keepdim=keep) + m * m


def _mm_logsumexp_max(s, dim, keepdim=False):
    """real: logsumexp written out with the max(...).values shift."""
    m = s.max(dim, keepdim=True).values
    r = m + _mm_torch.log(_mm_torch.exp(s - m).sum(dim, keepdim=True))
    return r if keepdim else r.squeeze(dim)


def _mm_gelu(x, approximate="none"):
    """real: GELU written out (erf, or the tanh approximation)."""
    if approximate == "tanh":
        return 0.5 * x * (1 + _mm_torch.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))
    return 0.5 * x * (1 + _mm_torch.erf(x * 0.7071067811865476))


def _mm_matmul_reshaped(a, b):
    """real: a batched matmul by a matrix as one mm of the flattened batch, reshaped back."""
    if a.dim() >= 3 and b.dim() == 2:
        return a.reshape(-1, a.shape[-1]).mm(b).reshape(*a.shape[:-1], b.shape[-1])
    if a.dim() == 2 and b.dim() == 2:
        return _mm_torch.mm(a, b)
    return a @ b


def _mm_detach(t):
    """bitwise: detach in explicit (non-autograd) code changes no value."""
    return t.detach() if _mm_is_t(t) else t


def _mm_clone(t):
    """bitwise: a copy."""
    return t.clone() if _mm_is_t(t) else t


def _mm_mean_as_sum(t, *args, **kwargs):
    """real: mean as sum / n."""
    s = t.sum(*args, **kwargs)
    return s / (t.numel() // max(s.numel(), 1))


def _mm_sum_split(t, *args, **kwargs):
    """real: a reduction split in two halves along its (first) dim, then added."""
    dims = args[0] if args else kwargs.get("dim")
    if dims is None or t.dim() == 0:
        return t.sum(*args, **kwargs)
    d = dims if isinstance(dims, int) else list(dims)[0]
    n = t.shape[d]
    if n < 2:
        return t.sum(*args, **kwargs)
    return t.narrow(d, 0, n // 2).sum(*args, **kwargs) + t.narrow(d, n // 2, n - n // 2).sum(*args, **kwargs)


def _mm_matmul_einsum(a, b):
    """real: a 2-D matmul as einsum."""
    if a.dim() == 2 and b.dim() == 2:
        return _mm_torch.einsum("ij,jk->ik", a, b)
    return a @ b


def _mm_matmul_bmm(a, b):
    """real: a matmul as bmm of (reshaped) batches."""
    if a.dim() == 2 and b.dim() == 2:
        return _mm_torch.bmm(a.unsqueeze(0), b.unsqueeze(0)).squeeze(0)
    if a.dim() == 3 and b.dim() == 3:
        return _mm_torch.bmm(a, b)
    return a @ b


def _mm_matmul_transposed(a, b):
    """real: a @ b as (b^T @ a^T)^T."""
    return (b.transpose(-2, -1) @ a.transpose(-2, -1)).transpose(-2, -1)


def _mm_softmax_amax(s, dim):
    """real: softmax written out with the amax shift."""
    e = _mm_torch.exp(s - s.amax(dim, keepdim=True))
    return e / e.sum(dim, keepdim=True)


def _mm_softmax_max(s, dim):
    """real: softmax written out with the max(...).values shift."""
    e = _mm_torch.exp(s - s.max(dim, keepdim=True).values)
    return e / e.sum(dim, keepdim=True)


def _mm_logsumexp(s, dim, keepdim=False):
    """real: logsumexp written out with the amax shift."""
    m = s.amax(dim, keepdim=True)
    r = m + _mm_torch.log(_mm_torch.exp(s - m).sum(dim, keepdim=True))
    return r if keepdim else r.squeeze(dim)


def _mm_sigmoid(x):
    """real: sigmoid as 1 / (1 + exp(-x))."""
    return 1 / (1 + _mm_torch.exp(-x))
'''

BITWISE, REAL, BUG = "bitwise", "real", "bug"


class Ctx:
    """What a rewrite may look at: the module-level float constants (name -> value), the names of
    the module's functions, and the function being rewritten (function_of)."""

    def __init__(self, float_names, functions=()):
        self.float_names = float_names
        self.functions = set(functions)
        self.current = None

    def function_of(self, node):
        return self.current


def _call(name, *args, **kwargs):
    return ast.Call(func=ast.Name(id=name, ctx=ast.Load()), args=list(args),
                    keywords=[ast.keyword(arg=k, value=v) for k, v in kwargs.items()])


def _nodes(fn, pred):
    return [n for n in ast.walk(fn) if pred(n)]


def _is_binop(*ops):
    return lambda n: isinstance(n, ast.BinOp) and isinstance(n.op, ops)


def _is_method(*names):
    return lambda n: (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in names)


def _is_torch_fn(*names):
    return lambda n: (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in names
                      and isinstance(n.func.value, ast.Name) and n.func.value.id in ("torch", "F"))


def _is_number(n):
    return isinstance(n, ast.Constant) and type(n.value) in (int, float)


def _loaded_names(fn):
    """Loads of local names (the values production computes), not calls' function names."""
    funcs = {id(n.func) for n in ast.walk(fn) if isinstance(n, ast.Call)}
    return [n for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
            and id(n) not in funcs and n.id not in ("torch", "F", "math", "ops", "BUG")
            and not n.id.isupper()]


def _wrap(helper):
    return lambda n, ctx: _call(helper, n)


def _swap(n, ctx):
    return ast.BinOp(left=n.right, op=n.op, right=n.left)


def _assoc(n, ctx):
    """(a op b) op c -> a op (b op c), for the same op on the left."""
    inner = n.left
    return ast.BinOp(left=inner.left, op=n.op, right=ast.BinOp(left=inner.right, op=n.op, right=n.right))


def _left_assoc_sites(fn, ctx, op):
    return [n for n in _nodes(fn, _is_binop(op)) if isinstance(n.left, ast.BinOp) and isinstance(n.left.op, op)]


def _distribute(n, ctx):
    """a * (b +- c) -> a*b +- a*c (and (b +- c) * a)."""
    if isinstance(n.right, ast.BinOp) and isinstance(n.right.op, (ast.Add, ast.Sub)):
        a, s = n.left, n.right
        return ast.BinOp(left=ast.BinOp(left=a, op=ast.Mult(), right=s.left), op=s.op,
                         right=ast.BinOp(left=copy.deepcopy(a), op=ast.Mult(), right=s.right))
    a, s = n.right, n.left
    return ast.BinOp(left=ast.BinOp(left=s.left, op=ast.Mult(), right=a), op=s.op,
                     right=ast.BinOp(left=s.right, op=ast.Mult(), right=copy.deepcopy(a)))


def _distribute_sites(fn, ctx):
    def ok(n):
        return any(isinstance(o, ast.BinOp) and isinstance(o.op, (ast.Add, ast.Sub)) for o in (n.left, n.right))
    return [n for n in _nodes(fn, _is_binop(ast.Mult)) if ok(n)]


def _factor_sites(fn, ctx):
    """a*b + a*c with the same left factor (as written)."""
    out = []
    for n in _nodes(fn, _is_binop(ast.Add, ast.Sub)):
        l, r = n.left, n.right
        if (isinstance(l, ast.BinOp) and isinstance(l.op, ast.Mult) and isinstance(r, ast.BinOp)
                and isinstance(r.op, ast.Mult) and ast.dump(l.left) == ast.dump(r.left)):
            out.append(n)
    return out


def _factor(n, ctx):
    return ast.BinOp(left=n.left.left, op=ast.Mult(), right=ast.BinOp(left=n.left.right, op=n.op, right=n.right.right))


def _const_divisor(n, ctx):
    r = n.right
    return _is_number(r) and r.value != 0 or isinstance(r, ast.Name) and r.id in ctx.float_names


def _div_to_recip(n, ctx):
    return ast.BinOp(left=n.left, op=ast.Mult(), right=ast.BinOp(left=ast.Constant(1.0), op=ast.Div(), right=n.right))


def _mul_to_div(n, ctx):
    c = n.right
    return ast.BinOp(left=n.left, op=ast.Div(), right=ast.BinOp(left=ast.Constant(1.0), op=ast.Div(), right=c))


def _helper_method(helper):
    """x.method(args) -> helper(x, args)."""
    return lambda n, ctx: ast.Call(func=ast.Name(id=helper, ctx=ast.Load()), args=[n.func.value] + n.args,
                                   keywords=n.keywords)


def _helper_args(helper):
    """torch.f(args) or a @ b -> helper(args)."""
    def apply(n, ctx):
        args = [n.left, n.right] if isinstance(n, ast.BinOp) else n.args
        return ast.Call(func=ast.Name(id=helper, ctx=ast.Load()), args=args,
                        keywords=[] if isinstance(n, ast.BinOp) else n.keywords)
    return apply


def _reduction_with_dim(*names):
    def sites(fn, ctx):
        return [n for n in _nodes(fn, _is_method(*names)) if n.args or any(k.arg == "dim" for k in n.keywords)]
    return sites


def _pow2_sites(fn, ctx):
    return [n for n in _nodes(fn, _is_method("pow")) if len(n.args) == 1 and _is_number(n.args[0])
            and n.args[0].value == 2]


def _pow2_to_mul(n, ctx):
    return ast.BinOp(left=n.func.value, op=ast.Mult(), right=copy.deepcopy(n.func.value))


def _max_values_sites(fn, ctx):
    """x.max(dim, keepdim=True).values"""
    return [n for n in _nodes(fn, lambda n: isinstance(n, ast.Attribute) and n.attr == "values")
            if _is_method("max")(n.value)]


def _max_to_amax(n, ctx):
    call = n.value
    return ast.Call(func=ast.Attribute(value=call.func.value, attr="amax", ctx=ast.Load()), args=call.args,
                    keywords=call.keywords)


def _eq_arange_sites(fn, ctx):
    """(y[:, None] == torch.arange(V)): a one-hot mask by comparison."""
    return [n for n in _nodes(fn, lambda n: isinstance(n, ast.Compare) and len(n.ops) == 1
                              and isinstance(n.ops[0], ast.Eq))
            if _is_torch_fn("arange")(n.comparators[0]) and isinstance(n.left, ast.Subscript)]


def _eq_to_scatter(n, ctx):
    """the same mask built by scatter: zeros(T, V, bool).scatter(1, y[:, None], True)."""
    y = n.left          # y[:, None]
    v = n.comparators[0].args[0]
    return ast.parse("_mm_torch.zeros(%s.shape[0], %s, dtype=_mm_torch.bool).scatter(1, %s, True)"
                     % (ast.unparse(y), ast.unparse(v), ast.unparse(y)), mode="eval").body


def _one_hot_names(fn):
    """name -> (index expression, classes) of assignments `M = (Y == torch.arange(V)).to(...)`."""
    out = {}
    for n in _nodes(fn, lambda n: isinstance(n, ast.Assign) and len(n.targets) == 1
                    and isinstance(n.targets[0], ast.Name)):
        v = n.value
        if _is_method("to")(v):
            v = v.func.value
        if isinstance(v, ast.Compare) and v in _eq_arange_sites(fn, None):
            out[n.targets[0].id] = v.left
    return out


def _one_hot_pick_sites(fn, ctx):
    """(A * M).sum() with M a one-hot mask by eq/arange: the picked entries' sum."""
    names = _one_hot_names(fn)
    out = []
    for n in _nodes(fn, _is_method("sum")):
        r = n.func.value
        if (not n.args and not n.keywords and isinstance(r, ast.BinOp) and isinstance(r.op, ast.Mult)
                and any(isinstance(o, ast.Name) and o.id in names for o in (r.left, r.right))):
            out.append(n)
    return out


def _one_hot_to_gather(n, ctx):
    """(A * M).sum() as A.gather(1, Y).sum(), Y the mask's index column."""
    fn = ctx.function_of(n)
    names = _one_hot_names(fn)
    r = n.func.value
    m, a = (r.left, r.right) if isinstance(r.left, ast.Name) and r.left.id in names else (r.right, r.left)
    return ast.parse("(%s).gather(1, %s).sum()" % (ast.unparse(a), ast.unparse(names[m.id])), mode="eval").body


def _fused_sites(fn, ctx):
    """ops.NAME(...) calls of a fused custom op whose plain definition NAME_ref is in the file."""
    return [n for n in _nodes(fn, lambda n: isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                              and isinstance(n.func.value, ast.Name) and n.func.value.id == "ops")
            if n.func.attr + "_ref" in ctx.functions]


def _inline_fused(n, ctx):
    return ast.Call(func=ast.Name(id=n.func.attr + "_ref", ctx=ast.Load()), args=n.args, keywords=n.keywords)


def _tanh_derivative_sites(fn, ctx):
    """1 - t * t (the derivative of tanh, t = tanh(x))."""
    return [n for n in _nodes(fn, _is_binop(ast.Sub)) if _is_number(n.left) and n.left.value == 1
            and isinstance(n.right, ast.BinOp) and isinstance(n.right.op, ast.Mult)
            and ast.dump(n.right.left) == ast.dump(n.right.right)]


def _tanh_derivative(n, ctx):
    t = n.right.left
    return ast.BinOp(left=ast.BinOp(left=ast.Constant(1), op=ast.Sub(), right=t), op=ast.Mult(),
                     right=ast.BinOp(left=ast.Constant(1), op=ast.Add(), right=copy.deepcopy(t)))


def _mean_square_sites(fn, ctx):
    """(a * a).mean(dim, ...) with the same a."""
    return [n for n in _reduction_with_dim("mean")(fn, ctx) if isinstance(n.func.value, ast.BinOp)
            and isinstance(n.func.value.op, ast.Mult) and ast.dump(n.func.value.left) == ast.dump(n.func.value.right)]


def _mean_square(n, ctx):
    return ast.Call(func=ast.Name(id="_mm_mean_square", ctx=ast.Load()), args=[n.func.value.left] + n.args,
                    keywords=n.keywords)


def _log_softmax_sites(fn, ctx):
    """X - X.logsumexp(d, keepdim=True): a log-softmax written out."""
    return [n for n in _nodes(fn, _is_binop(ast.Sub)) if _is_method("logsumexp")(n.right)
            and ast.dump(n.right.func.value) == ast.dump(n.left) and n.right.args]


def _log_softmax(n, ctx):
    return ast.parse("_mm_torch.log_softmax(%s, %s)" % (ast.unparse(n.left), ast.unparse(n.right.args[0])),
                     mode="eval").body


# ---- bug mutations -------------------------------------------------------------------------------

def _nudge_sites(fn, ctx):
    """numeric literals and module-level float constants that take part in arithmetic."""
    out = []
    for n in _nodes(fn, _is_binop(ast.Add, ast.Sub, ast.Mult, ast.Div)):
        for o in (n.left, n.right):
            if _is_number(o) and o.value != 0 or isinstance(o, ast.Name) and o.id in ctx.float_names:
                out.append(o)
    return out


def _nudge(n, ctx):
    return ast.BinOp(left=n, op=ast.Mult(), right=ast.Constant(1 + 1e-6))


def _drop_term(n, ctx):
    return n.left


def _wrong_dim_sites(fn, ctx):
    names = ("sum", "mean", "amax", "max", "logsumexp", "softmax", "log_softmax")
    out = []
    for n in _nodes(fn, lambda n: _is_method(*names)(n) or _is_torch_fn(*names)(n)):
        pos = 1 if _is_torch_fn(*names)(n) else 0
        if len(n.args) > pos and _is_number(n.args[pos]):
            out.append(n)
    return out


def _wrong_dim(n, ctx):
    pos = 1 if _is_torch_fn("sum", "mean", "amax", "max", "logsumexp", "softmax", "log_softmax")(n) else 0
    m = copy.deepcopy(n)
    d = n.args[pos].value
    m.args[pos] = ast.Constant(0 if d != 0 else -1)
    return m


def _offset_sites(fn, ctx):
    """triu/tril diagonals and constant slice bounds."""
    tri = [n for n in _nodes(fn, _is_method("triu", "tril")) if n.args]
    sl = [n for n in _nodes(fn, lambda n: isinstance(n, ast.Slice))
          if _is_number(n.lower) or _is_number(n.upper)]
    return tri + sl


def _off_by_one(n, ctx):
    m = copy.deepcopy(n)
    if isinstance(m, ast.Slice):
        if _is_number(m.upper):
            m.upper = ast.Constant(m.upper.value - 1)
        else:
            m.lower = ast.Constant(m.lower.value + 1)
        return m
    m.args[0] = ast.BinOp(left=m.args[0], op=ast.Sub(), right=ast.Constant(1))
    return m


def _mask_sites(fn, ctx):
    return _nodes(fn, _is_method("masked_fill")) + _nodes(fn, _is_torch_fn("where"))


def _invert_mask(n, ctx):
    m = copy.deepcopy(n)
    if _is_method("masked_fill")(m):
        m.args[0] = ast.UnaryOp(op=ast.Invert(), operand=m.args[0])
    else:
        m.args[0] = ast.UnaryOp(op=ast.Invert(), operand=m.args[0])
    return m


class Rewrite:
    """`narrows`: the rewritten code raises on inputs where the original computes a value (a scatter
    raises for an index out of range where a comparison with an arange gives zeros). It preserves the
    values only on the domain of a reference that raises there too, so the generator applies it
    only against the seed's autograd reference (train mode: F.cross_entropy raises), never against
    the seed's own production (self mode), where no such pair is equivalent."""

    def __init__(self, name, level, sites, apply, what, narrows=False):
        self.name, self.level, self.sites, self.apply, self.what = name, level, sites, apply, what
        self.narrows = narrows


CATALOG = [
    # bitwise
    Rewrite("commute_add", BITWISE, lambda f, c: _nodes(f, _is_binop(ast.Add)), _swap, "a + b as b + a"),
    Rewrite("commute_mul", BITWISE, lambda f, c: _nodes(f, _is_binop(ast.Mult)), _swap, "a * b as b * a"),
    Rewrite("view_chain", BITWISE, lambda f, c: _loaded_names(f), _wrap("_mm_view"), "a value through flatten + view"),
    Rewrite("permute_chain", BITWISE, lambda f, c: _loaded_names(f), _wrap("_mm_permute"),
            "a value through a permutation and its inverse"),
    Rewrite("detach", BITWISE, lambda f, c: _loaded_names(f), _wrap("_mm_detach"), "detach() on a value"),
    Rewrite("duplicate", BITWISE, lambda f, c: _loaded_names(f), _wrap("_mm_clone"), "a value copied (clone)"),
    Rewrite("dead_code", BITWISE, lambda f, c: _loaded_names(f), _wrap("_mm_dead"), "a dead subgraph on a value"),
    Rewrite("fused_inline", BITWISE, _fused_sites, _inline_fused, "a fused custom op as its plain definition"),
    Rewrite("one_hot_scatter", BITWISE, _eq_arange_sites, _eq_to_scatter, "one-hot by eq/arange as scatter",
            narrows=True),
    # real
    Rewrite("div_as_mul_recip", REAL, lambda f, c: [n for n in _nodes(f, _is_binop(ast.Div)) if _const_divisor(n, c)],
            _div_to_recip, "x / c as x * (1 / c)"),
    Rewrite("mul_as_div_recip", REAL, lambda f, c: [n for n in _nodes(f, _is_binop(ast.Mult)) if _const_divisor(n, c)],
            _mul_to_div, "x * c as x / (1 / c)"),
    Rewrite("distribute", REAL, _distribute_sites, _distribute, "a * (b + c) as a*b + a*c"),
    Rewrite("factor", REAL, _factor_sites, _factor, "a*b + a*c as a * (b + c)"),
    Rewrite("reassociate_add", REAL, lambda f, c: _left_assoc_sites(f, c, ast.Add), _assoc, "(a + b) + c as a + (b + c)"),
    Rewrite("reassociate_mul", REAL, lambda f, c: _left_assoc_sites(f, c, ast.Mult), _assoc, "(a * b) * c as a * (b * c)"),
    Rewrite("mean_as_sum", REAL, lambda f, c: _nodes(f, _is_method("mean")), _helper_method("_mm_mean_as_sum"),
            "mean as sum / n"),
    Rewrite("split_reduction", REAL, _reduction_with_dim("sum"), _helper_method("_mm_sum_split"),
            "a sum split in two halves"),
    Rewrite("strided_layout", REAL, lambda f, c: _loaded_names(f), _wrap("_mm_strided"),
            "a value left in a transposed memory layout (permute, copy, permute back)"),
    Rewrite("nested_reduction", REAL, lambda f, c: [n for n in _nodes(f, _is_method("sum")) if not n.args
                                                    and not n.keywords], _helper_method("_mm_sum_nested"),
            "a full sum as a sum over the last dim, then the rest"),
    Rewrite("variance_formula", REAL, _mean_square_sites, _mean_square, "mean(a * a) as var(a) + mean(a)^2"),
    Rewrite("one_hot_gather", REAL, _one_hot_pick_sites, _one_hot_to_gather,
            "(A * one_hot).sum() as A.gather(1, y).sum()", narrows=True),
    Rewrite("tanh_derivative", REAL, _tanh_derivative_sites, _tanh_derivative, "1 - t * t as (1 - t) * (1 + t)"),
    Rewrite("gelu_explicit", REAL, lambda f, c: _nodes(f, _is_torch_fn("gelu")), _helper_args("_mm_gelu"),
            "gelu written out (erf or tanh form)"),
    Rewrite("log_softmax_fn", REAL, _log_softmax_sites, _log_softmax, "x - x.logsumexp(d) as log_softmax(x, d)"),
    Rewrite("logsumexp_max", REAL, lambda f, c: _nodes(f, _is_method("logsumexp")),
            _helper_method("_mm_logsumexp_max"), "logsumexp written out with the max(...).values shift"),
    Rewrite("matmul_reshaped", REAL, lambda f, c: _nodes(f, _is_binop(ast.MatMult)),
            _helper_args("_mm_matmul_reshaped"), "a matmul as mm of the flattened batch, reshaped back"),
    Rewrite("pow2_as_mul", REAL, _pow2_sites, _pow2_to_mul, "x.pow(2) as x * x"),
    Rewrite("max_as_amax", REAL, _max_values_sites, _max_to_amax, "max(...).values as amax"),
    Rewrite("softmax_amax", REAL, lambda f, c: _nodes(f, _is_torch_fn("softmax")), _helper_args("_mm_softmax_amax"),
            "softmax written out with the amax shift"),
    Rewrite("softmax_max", REAL, lambda f, c: _nodes(f, _is_torch_fn("softmax")), _helper_args("_mm_softmax_max"),
            "softmax written out with the max shift"),
    Rewrite("logsumexp_explicit", REAL, lambda f, c: _nodes(f, _is_method("logsumexp")),
            _helper_method("_mm_logsumexp"), "logsumexp written out"),
    Rewrite("sigmoid_explicit", REAL, lambda f, c: _nodes(f, _is_torch_fn("sigmoid")), _helper_args("_mm_sigmoid"),
            "sigmoid as 1 / (1 + exp(-x))"),
    Rewrite("matmul_einsum", REAL, lambda f, c: _nodes(f, _is_binop(ast.MatMult)), _helper_args("_mm_matmul_einsum"),
            "a 2-D matmul as einsum"),
    Rewrite("matmul_bmm", REAL, lambda f, c: _nodes(f, _is_binop(ast.MatMult)), _helper_args("_mm_matmul_bmm"),
            "a matmul as bmm"),
    Rewrite("matmul_transposed", REAL, lambda f, c: _nodes(f, _is_binop(ast.MatMult)),
            _helper_args("_mm_matmul_transposed"), "a @ b as (b^T a^T)^T"),
    # bugs
    Rewrite("nudge_constant", BUG, _nudge_sites, _nudge, "a constant nudged by 1e-6 relative"),
    Rewrite("swap_operands", BUG, lambda f, c: _nodes(f, _is_binop(ast.Sub, ast.Div, ast.MatMult)), _swap,
            "the operands of -, / or @ swapped"),
    Rewrite("drop_term", BUG, lambda f, c: _nodes(f, _is_binop(ast.Add, ast.Sub)), _drop_term, "a term dropped"),
    Rewrite("wrong_dim", BUG, _wrong_dim_sites, _wrong_dim, "a reduction over the wrong dim"),
    Rewrite("off_by_one", BUG, _offset_sites, _off_by_one, "a slice bound or mask diagonal off by one"),
    Rewrite("invert_mask", BUG, _mask_sites, _invert_mask, "a mask inverted"),
]
BY_NAME = {r.name: r for r in CATALOG}


def apply_at(fn, rewrite, index, ctx):
    """Applies `rewrite` at its index-th site in fn (an ast.FunctionDef, modified in place)."""
    ctx.current = fn
    target = rewrite.sites(fn, ctx)[index]
    new = rewrite.apply(target, ctx)

    class Replace(ast.NodeTransformer):
        def generic_visit(self, node):
            for field, old in ast.iter_fields(node):
                if isinstance(old, list):
                    node.__dict__[field] = [new if o is target else o for o in old]
                    for o in node.__dict__[field]:
                        if isinstance(o, ast.AST) and o is not new:
                            self.visit(o)
                elif old is target:
                    setattr(node, field, new)
                elif isinstance(old, ast.AST):
                    self.visit(old)
            return node

    Replace().visit(fn)
    ast.fix_missing_locations(fn)

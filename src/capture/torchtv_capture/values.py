"""Encoding of dtypes, scalars and operator arguments into the JSON format (version 1)."""
import math
import re

import torch

from .errors import CaptureError

_DTYPES = [
    ("bool", "bool"), ("uint8", "u8"), ("int8", "i8"), ("int16", "i16"), ("int32", "i32"),
    ("int64", "i64"), ("float16", "f16"), ("bfloat16", "bf16"), ("float32", "f32"),
    ("float64", "f64"), ("uint64", "u64"),  # uint64: torch >= 2.3 (flash attention's RNG state)
    ("complex64", "c64"), ("complex128", "c128"),  # read as pairs of reals (docs/complex.md)
]
DTYPE_NAMES = {}
for _attr, _short in _DTYPES:
    _dt = getattr(torch, _attr, None)
    if _dt is not None:
        DTYPE_NAMES[_dt] = _short

# c10::ScalarType / Layout / MemoryFormat enum codes, as they appear in schema default values.
_SCALARTYPE_CODES = {0: "u8", 1: "i8", 2: "i16", 3: "i32", 4: "i64", 5: "f16", 6: "f32", 7: "f64",
                     9: "c64", 10: "c128", 11: "bool", 15: "bf16"}
_LAYOUT_CODES = {0: "strided", 1: "sparse_coo", 2: "sparse_csr", 3: "mkldnn", 4: "sparse_csc",
                 5: "sparse_bsr", 6: "sparse_bsc"}
_MEMFMT_CODES = {0: "contiguous_format", 1: "preserve_format", 2: "channels_last",
                 3: "channels_last_3d"}


def dtype_name(dt):
    try:
        return DTYPE_NAMES[dt]
    except KeyError:
        raise CaptureError("dtype %s is not supported (supported: %s)"
                           % (dt, ", ".join(str(d) for d in DTYPE_NAMES)))


def data_dtype_name(dt, what):
    """dtype_name for a tensor whose values the capture writes (an example input, a constant):
    complex values are computed inside a graph, but not yet written (docs/complex.md)."""
    if getattr(dt, "is_complex", False):
        raise CaptureError("%s is %s: complex values inside the function are supported, complex inputs and "
                           "constants not yet; pass torch.view_as_real(x) and call torch.view_as_complex "
                           "inside the function" % (what, dt))
    return dtype_name(dt)


def enc_float(x):
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def _enum_str(v, codes, what):
    if isinstance(v, int) and not isinstance(v, bool):
        if v in codes:
            return codes[v]
        raise CaptureError("unknown %s code %d" % (what, v))
    s = str(v)
    return s[len("torch."):] if s.startswith("torch.") else s


# --------------------------------------------------------------------------------------------
# Schema parsing. The JIT types exposed by torch._C.Argument lose distinctions we need
# (ScalarType/Layout/MemoryFormat are all `int`, Scalar is `number`), so we parse the textual
# schema, which is stable across torch versions.

class ArgSpec:
    __slots__ = ("name", "type_text", "base", "is_list", "list_size", "optional", "kwarg_only",
                 "has_default", "default", "writes")

    def __repr__(self):
        return "ArgSpec(%s: %s)" % (self.name, self.type_text)


def _split_top(s, sep=","):
    parts, depth, cur, quote = [], 0, [], None
    for ch in s:
        if quote:
            cur.append(ch)
            if ch == quote:
                quote = None
            continue
        if ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    tail = "".join(cur).strip()
    if tail:
        parts.append(tail)
    return parts


_ALIAS_RE = re.compile(r"\([^)]*\)")
_LIST_RE = re.compile(r"^(.*)\[(\d*)\]$")


def _parse_type(t):
    """-> (base, is_list, list_size, optional, writes)"""
    writes = "!" in t
    t = _ALIAS_RE.sub("", t).strip()
    optional = False
    if t.endswith("?"):
        optional, t = True, t[:-1]
    m = _LIST_RE.match(t)
    if m:
        return m.group(1), True, (int(m.group(2)) if m.group(2) else None), optional, writes
    return t, False, None, optional, writes


_SCHEMA_CACHE = {}


def parse_schema(op):
    """ArgSpecs of ``op`` (an OpOverload), in schema order, defaults from the JIT schema."""
    try:
        return _SCHEMA_CACHE[op]
    except (KeyError, TypeError):
        pass
    schema = op._schema
    s = str(schema)
    i = s.index("(")
    depth, j = 0, i
    for j in range(i, len(s)):
        if s[j] == "(":
            depth += 1
        elif s[j] == ")":
            depth -= 1
            if depth == 0:
                break
    pieces = _split_top(s[i + 1:j])
    jit_args = list(schema.arguments)
    specs = []
    kwarg_only = False
    for piece in pieces:
        if piece == "*":
            kwarg_only = True
            continue
        decl = piece.split("=", 1)[0].strip()
        # the type is everything before the last top-level space
        depth, cut = 0, None
        for k, ch in enumerate(decl):
            if ch == "(":
                depth += 1
            elif ch == ")":
                depth -= 1
            elif ch == " " and depth == 0:
                cut = k
        type_text = decl[:cut].strip() if cut is not None else decl
        name = decl[cut + 1:].strip() if cut is not None else ""
        sp = ArgSpec()
        sp.name = name
        sp.type_text = type_text
        sp.base, sp.is_list, sp.list_size, sp.optional, sp.writes = _parse_type(type_text)
        sp.kwarg_only = kwarg_only
        sp.has_default = "=" in piece
        sp.default = None
        specs.append(sp)
    if len(specs) != len(jit_args):
        raise CaptureError("cannot parse the schema of %s: %s" % (op, s))
    for sp, ja in zip(specs, jit_args):
        if sp.name != ja.name:
            raise CaptureError("cannot parse the schema of %s: %s" % (op, s))
        sp.kwarg_only = bool(getattr(ja, "kwarg_only", sp.kwarg_only))
        hd = getattr(ja, "has_default_value", None)
        if hd is not None:
            try:
                sp.has_default = bool(hd())
            except Exception:
                pass
        sp.default = ja.default_value
    try:
        _SCHEMA_CACHE[op] = specs
    except TypeError:
        pass
    return specs


def canonical_name(op):
    """``ns::name.overload``; the overload "default" (empty) is omitted."""
    schema = op._schema
    ov = schema.overload_name
    return schema.name + ("." + ov if ov and ov != "default" else "")


def bind_args(op, args, kwargs):
    """Full argument list [(ArgSpec, value)] in schema order, with defaults filled in."""
    specs = parse_schema(op)
    args = list(args)
    kwargs = dict(kwargs or {})
    out = []
    pos = 0
    for sp in specs:
        if not sp.kwarg_only and pos < len(args):
            v = args[pos]
            pos += 1
            if sp.name in kwargs:
                raise CaptureError("%s: argument '%s' given twice" % (canonical_name(op), sp.name))
        elif sp.name in kwargs:
            v = kwargs.pop(sp.name)
        elif sp.has_default:
            v = sp.default
        elif sp.optional:
            v = None
        else:
            raise CaptureError("%s: missing argument '%s'" % (canonical_name(op), sp.name))
        out.append((sp, v))
    if pos < len(args):
        raise CaptureError("%s: too many positional arguments (%d)" % (canonical_name(op), len(args)))
    if kwargs:
        raise CaptureError("%s: unknown keyword arguments %s" % (canonical_name(op), sorted(kwargs)))
    return out


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _scalar(v, what):
    if isinstance(v, bool):
        return {"bool": v}
    if _is_int(v):
        return {"int": int(v)}
    if isinstance(v, float):
        return {"float": enc_float(v)}
    if isinstance(v, complex):
        raise CaptureError("%s: complex scalars are not supported" % what)
    raise CaptureError("%s: unsupported scalar %r (%s)%s" % (
        what, v, type(v).__name__,
        "; symbolic shapes are not supported" if "Sym" in type(v).__name__ else ""))


def encode_value(sp, v, ref, what):
    """Encode one argument value per its schema type. ``ref(node)`` returns the value name of an
    fx.Node (or raises). Returns a dict with exactly one value key."""
    if v is None:
        return {"none": True}
    base = sp.base if sp is not None else None
    if sp is not None and sp.is_list:
        if base == "Tensor":
            if not isinstance(v, (list, tuple)):
                v = [v]
            for x in v:
                if x is not None and not isinstance(x, torch.fx.Node):
                    raise CaptureError("%s: a list of tensors holds %r, not a traced tensor" % (what, x))
            return {"values": [None if x is None else ref(x) for x in v]}
        if not isinstance(v, (list, tuple)):
            v = [v] * (sp.list_size or 1)
        if base in ("int", "SymInt"):
            for x in v:
                if not _is_int(x):
                    raise CaptureError("%s: expected ints, got %r%s" % (
                        what, x, "; symbolic shapes are not supported" if "Sym" in type(x).__name__ else ""))
            return {"ints": [int(x) for x in v]}
        if base == "float":
            return {"floats": [enc_float(x) for x in v]}
        if base == "bool":
            return {"bools": [bool(x) for x in v]}
        if base == "Scalar":
            if all(_is_int(x) for x in v):
                return {"ints": [int(x) for x in v]}
            return {"floats": [enc_float(x) for x in v]}
        return _by_value(v, ref, what)
    if base == "Tensor":
        if isinstance(v, (bool, int, float)):
            # a "wrapped number": make_fx records `x + 1e-5` as aten::add.Tensor(x, 1e-05)
            return _scalar(v, what)
        return {"value": ref(v)}
    if base in ("int", "SymInt"):
        if not _is_int(v):
            return _scalar(v, what)
        return {"int": int(v)}
    if base == "float":
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return {"float": enc_float(v)}
        return _scalar(v, what)
    if base == "bool":
        return {"bool": bool(v)}
    if base in ("Scalar", "number"):
        return _scalar(v, what)
    if base == "ScalarType":
        if isinstance(v, torch.dtype):
            return {"dtype": dtype_name(v)}
        if _is_int(v) and v in _SCALARTYPE_CODES:
            return {"dtype": _SCALARTYPE_CODES[v]}
        raise CaptureError("%s: unsupported dtype %r" % (what, v))
    if base == "Layout":
        return {"layout": _enum_str(v, _LAYOUT_CODES, "layout")}
    if base == "MemoryFormat":
        return {"memory_format": _enum_str(v, _MEMFMT_CODES, "memory format")}
    if base == "Device":
        return {"device": str(v)}
    if base == "str":
        return {"str": str(v)}
    if base == "Generator":
        raise CaptureError("%s: an explicit torch.Generator is not supported" % what)
    return _by_value(v, ref, what)


def _by_value(v, ref, what):
    """Fallback encoding by the Python type of the value."""
    if v is None:
        return {"none": True}
    if isinstance(v, torch.fx.Node):
        return {"value": ref(v)}
    if isinstance(v, torch.dtype):
        return {"dtype": dtype_name(v)}
    if isinstance(v, torch.device):
        return {"device": str(v)}
    if isinstance(v, torch.layout):
        return {"layout": _enum_str(v, {}, "layout")}
    if isinstance(v, torch.memory_format):
        return {"memory_format": _enum_str(v, {}, "memory format")}
    if isinstance(v, str):
        return {"str": v}
    if isinstance(v, (list, tuple)):
        if any(isinstance(x, torch.fx.Node) for x in v):
            return {"values": [None if x is None else ref(x) for x in v]}
        if all(isinstance(x, bool) for x in v):
            return {"bools": list(v)}
        if all(_is_int(x) for x in v):
            return {"ints": [int(x) for x in v]}
        if all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in v):
            return {"floats": [enc_float(x) for x in v]}
        raise CaptureError("%s: unsupported list value %r" % (what, v))
    return _scalar(v, what)

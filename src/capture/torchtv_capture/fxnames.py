"""FX node names in amortized constant time while tracing (torch 1.13's are quadratic).

Note [Node names while tracing]
torch 1.13's ``torch.fx.graph._Namespace.create_name`` finds a free name by trying ``mm``,
``mm_1``, ``mm_2``, ... from the start every time: the n-th ``mm`` of a graph costs n tries, and a
64-layer train step (thousands of ``mm``, ``t``, ``mul``, ``view``) spends seconds of make_fx's
time there. Within ``fast_node_names()`` the namespace also remembers, per base name, the highest
suffix up to which every name is known to be taken, and starts the search after it. The names
are the very ones torch would give (node names become the captured graph's value names):
- a namespace never frees a name (nothing in torch.fx removes from ``_used_names``), so a name
  once taken stays taken;
- the search skips a name that is taken or that ``_is_illegal_name`` refuses (a keyword, a
  builtin); the known range only grows over names that were taken, so an illegal one (whose
  verdict depends on the object being named) is always tried again;
- only a search that starts inside the known range extends it (the names between it and the
  range's end were not looked at otherwise).
torch versions whose namespace counts per base name already (``_base_count``, torch >= 2.1) are
left alone.
"""
import contextlib

import torch.fx.graph as fx_graph

_KNOWN = "_torchtv_taken_up_to"   # per namespace: base name -> every base_1 .. base_k is taken


def _create_name(self, candidate, obj):
    """torch 1.13's _Namespace.create_name, with the search started after the known range."""
    if obj is not None and obj in self._obj_to_name:
        return self._obj_to_name[obj]
    candidate = self._illegal_char_regex.sub('_', candidate)
    if candidate[0].isdigit():
        candidate = '_' + candidate
    match = self._name_suffix_regex.match(candidate)
    if match is None:
        base, num = candidate, 0
    else:
        base, num = match.group(1), int(match.group(2))
        candidate = '%s_%d' % (base, num)
    used = self._used_names
    if candidate in used or self._is_illegal_name(candidate, obj):
        known = self.__dict__.setdefault(_KNOWN, {})
        end = known.get(base, 0)
        extends = num <= end
        num = max(num, end) + 1
        candidate = '%s_%d' % (base, num)
        while candidate in used or self._is_illegal_name(candidate, obj):
            extends = extends and candidate in used
            num += 1
            candidate = '%s_%d' % (base, num)
        if extends:
            known[base] = num   # taken just below
    used.setdefault(candidate, 0)
    if obj is None:
        self._unassociated_names.add(candidate)
    else:
        self._obj_to_name[obj] = candidate
    return candidate


def _quadratic():
    """True for the namespace this module knows (torch 1.13's), which has no per-base count."""
    ns = getattr(fx_graph, "_Namespace", None)
    if ns is None or not hasattr(ns, "create_name"):
        return False
    try:
        probe = ns()
    except Exception:
        return False
    return (not hasattr(probe, "_base_count") and hasattr(probe, "_used_names")
            and hasattr(probe, "_name_suffix_regex") and hasattr(probe, "_unassociated_names"))


_APPLIES = _quadratic()


@contextlib.contextmanager
def fast_node_names():
    """Within the block, new FX node names cost amortized constant time (Note [Node names while
    tracing]); the names are torch's own."""
    if not _APPLIES:
        yield
        return
    original = fx_graph._Namespace.create_name
    fx_graph._Namespace.create_name = _create_name
    try:
        yield
    finally:
        fx_graph._Namespace.create_name = original

"""Source locations for traced nodes.

make_fx (torch 1.13 and 2.x) records no usable stack trace by default, so we record our own:

* While tracing, ``torch.fx.Graph.create_node`` is wrapped. For every node created we walk the
  live Python stack and keep the innermost frame that lies in a user file (the pair file, or a
  file defining a FUSIONS reference). This covers everything executed by the user's functions.

* Backward ops of the reference's joint graph are dispatched by the autograd engine while only
  our own ``torch.autograd.grad`` call is on the Python stack. For those we run the forward in
  autograd anomaly mode (``check_nan=False``), which stores the forward stack of every autograd
  node in ``grad_fn.metadata["traceback_"]``, and register a pre-hook on every autograd node that,
  just before the engine runs the node, makes that node's forward location the "current backward
  location". Nodes created with no user frame on the stack get it. (The CPU engine runs nodes
  one at a time on the calling thread, so this is exact up to the engine's own gradient
  accumulation ops, which get the location of the node that produced the gradient.)
  Anomaly mode formats the whole Python stack, source lines included, for every autograd node
  (``torch.fx.traceback.format_stack``); of it only the innermost user frame is read, so while
  the forward runs ``user_stack()`` has it format that frame alone, in the same format: the same
  location for a fraction of the work.
"""
import contextlib
import re
import sys
import threading

import torch

META_KEY = "torchtv_loc"

_FRAME_RE = re.compile(r'File "([^"]+)", line (\d+)')


def stack_frames(text):
    """(file, line) of every frame of a formatted Python stack trace, outermost first."""
    return _FRAME_RE.findall(text)
_patch_lock = threading.Lock()


class LocationRecorder:
    def __init__(self, user_files):
        self.user_files = user_files
        self.backward_loc = None
        self._orig = None
        self._paths = {}   # code object -> its user file's path, or None

    # ---- live stack -------------------------------------------------------------------------
    def current(self):
        # Every node walks the stack through the same few dozen functions (the user's, torch's
        # dispatch): whether a function lies in a user file (fixed once the pair file is loaded)
        # is asked once per code object.
        f = sys._getframe(1)
        paths = self._paths
        while f is not None:
            code = f.f_code
            try:
                path = paths[code]
            except KeyError:
                path = paths[code] = self.user_files.match(code.co_filename)
            if path is not None:
                return (path, f.f_lineno)
            f = f.f_back
        return self.backward_loc

    # ---- anomaly-mode stack strings ---------------------------------------------------------
    def from_formatted_stack(self, tb):
        if not tb:
            return None
        if isinstance(tb, (list, tuple)):
            tb = "".join(str(x) for x in tb)
        loc = None
        for fname, line in stack_frames(str(tb)):
            path = self.user_files.match(fname)
            if path is not None:
                loc = (path, int(line))   # outermost first: keep the last (innermost)
        return loc

    @contextlib.contextmanager
    def user_stack(self):
        """Within the block, the stack anomaly mode stores for each autograd node is its innermost
        user frame only (see the module's doc), unless torch's own override is on."""
        try:
            import torch.fx.traceback as fx_traceback
            original = fx_traceback.format_stack
        except (ImportError, AttributeError):
            yield
            return
        match = self.user_files.match

        def format_stack():
            if getattr(fx_traceback, "is_overridden", False):
                return original()
            f = sys._getframe(1)
            while f is not None:
                if match(f.f_code.co_filename) is not None:
                    return ['  File "%s", line %d, in %s\n' % (f.f_code.co_filename, f.f_lineno,
                                                               f.f_code.co_name)]
                f = f.f_back
            return []

        fx_traceback.format_stack = format_stack
        try:
            yield
        finally:
            fx_traceback.format_stack = original

    def grad_fn_loc(self, fn):
        try:
            md = fn.metadata
        except Exception:
            return None
        if not isinstance(md, dict):
            return None
        return self.from_formatted_stack(md.get("traceback_"))

    def install_backward_hooks(self, root):
        """Pre-hooks on every autograd node reachable from ``root``. Returns False when the
        running torch cannot register pre-hooks on autograd nodes."""
        if root is None or not hasattr(root, "register_prehook"):
            return False
        # Keep the visited wrapper objects alive: id()s of freed wrappers get reused.
        seen = {}
        stack = [root]
        handles = []
        while stack:
            fn = stack.pop()
            if fn is None or id(fn) in seen:
                continue
            seen[id(fn)] = fn
            loc = self.grad_fn_loc(fn)

            def hook(grad_outputs, _loc=loc):
                self.backward_loc = _loc
                return None

            try:
                handles.append(fn.register_prehook(hook))
            except Exception:
                pass
            for nxt, _ in getattr(fn, "next_functions", ()):
                if nxt is not None:
                    stack.append(nxt)
        return True

    # ---- patching -----------------------------------------------------------------------------
    def __enter__(self):
        _patch_lock.acquire()
        graph_cls = torch.fx.Graph
        orig = graph_cls.create_node
        self._orig = orig
        rec = self

        def create_node(graph, op, target, *args, **kwargs):
            node = orig(graph, op, target, *args, **kwargs)
            if op in ("call_function", "call_method", "call_module", "get_attr"):
                try:
                    node.meta[META_KEY] = rec.current()
                except Exception:
                    pass
            return node

        create_node.__wrapped__ = orig
        graph_cls.create_node = create_node
        return self

    def __exit__(self, *exc):
        try:
            torch.fx.Graph.create_node = self._orig
            self.backward_loc = None
        finally:
            _patch_lock.release()
        return False


def node_loc(node):
    loc = node.meta.get(META_KEY)
    if not loc:
        return None
    return {"file": loc[0], "line": int(loc[1])}

"""Checks torch.compile's own graph rewrites with torchtv, as they happen (torch >= 2.4).

    import torchtv.inductor
    with torchtv.inductor.validate(on_failure="raise"):
        torch.compile(model)(x).sum().backward()

A debugging aid for compiler and kernel developers, in the spirit of Alive2's `opt` plugin: it
installs Inductor's custom-pass hooks around the joint-graph passes and the post-grad passes
(`joint_custom_pre_pass` / `joint_custom_post_pass`, `post_grad_custom_pre_pass` /
`post_grad_custom_post_pass`), snapshots each graph just before and just after those passes, and
hands every pair that differs to `torchtv check`. A rewrite that torchtv refutes, or cannot
prove, is logged (logger "torchtv.inductor") or raised, with the path of the pair and its HTML
report. It slows compilation down (one torchtv run per changed graph) and turns Inductor's FX
graph cache off while installed, so that the passes run. Hooks already installed are kept and
run inside torchtv's snapshots, so they are validated too.
"""
import json
import logging
import os
import shutil
import tempfile

from . import TorchtvError, _find_binary, check_dir

__all__ = ["validate", "Validator", "RewriteNotValidated", "STAGES"]

log = logging.getLogger("torchtv.inductor")

# fusions/inductor of the source tree this package sits in: definitions of the ops Inductor
# introduces (its README says what they rest on).
_TREE_FUSIONS = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                              "fusions", "inductor"))

# stage -> (pre hook, post hook) in torch._inductor.config
STAGES = {
    "joint": ("joint_custom_pre_pass", "joint_custom_post_pass"),
    "post_grad": ("post_grad_custom_pre_pass", "post_grad_custom_post_pass"),
}


class RewriteNotValidated(AssertionError):
    """An Inductor rewrite that torchtv refuted or could not prove (on_failure="raise")."""


def _pass_base():
    try:
        from torch._inductor.custom_graph_pass import CustomGraphPass
        return CustomGraphPass
    except ImportError:  # older torch: plain callables
        return object


class _Hook(_pass_base()):
    """One installed hook: a snapshot wrapped around the hook that was there before."""

    def __init__(self, validator, stage, is_pre, previous):
        self.validator, self.stage, self.is_pre, self.previous = validator, stage, is_pre, previous

    def __call__(self, graph):
        if self.is_pre:
            self.validator._before(self.stage, graph)
            if self.previous is not None:
                self.previous(graph)
        else:
            if self.previous is not None:
                self.previous(graph)
            self.validator._after(self.stage, graph)

    def uuid(self):
        return None   # never cache a compilation that torchtv is watching


class PairResult:
    """One rewrite: where its pair lies, and what torchtv said (None when not checked)."""

    def __init__(self, index, stage, directory, nodes_before, nodes_after, changed, result=None,
                 error=None):
        self.index, self.stage, self.directory = index, stage, directory
        self.nodes_before, self.nodes_after, self.changed = nodes_before, nodes_after, changed
        self.result, self.error = result, error

    @property
    def validated(self):
        return not self.changed or (self.result is not None and self.result.equivalent)

    def to_json(self):
        return {"index": self.index, "stage": self.stage, "directory": self.directory,
                "nodes_before": self.nodes_before, "nodes_after": self.nodes_after,
                "changed": self.changed, "error": self.error,
                "verdict": self.result.verdict if self.result else None,
                "level": self.result.level if self.result else None,
                "reason": self.result.reason if self.result else None}


class Validator:
    """Installs the hooks (install/uninstall, or use it as a context manager)."""

    def __init__(self, on_failure="log", out_dir=None, stages=("joint", "post_grad"), check=True,
                 keep="failures", require="rounded", timeout=300, name=None, binary=None, fusions=None):
        if on_failure not in ("log", "raise"):
            raise ValueError("on_failure must be 'log' or 'raise'")
        if keep not in ("failures", "all", "changed"):
            raise ValueError("keep must be 'failures', 'changed' or 'all'")
        unknown = [s for s in stages if s not in STAGES]
        if unknown:
            raise ValueError("unknown stages %s (known: %s)" % (unknown, sorted(STAGES)))
        self.on_failure, self.stages, self.check, self.keep = on_failure, tuple(stages), check, keep
        self.require, self.timeout, self.name = require, timeout, name or "graph"
        self.out_dir = os.path.abspath(out_dir) if out_dir else tempfile.mkdtemp(prefix="torchtv-inductor-")
        self.binary = (binary or _find_binary()) if check else None
        self.fusions = fusions or (_TREE_FUSIONS if os.path.isdir(_TREE_FUSIONS) else None)
        self.results = []
        self._pending = {}
        self._saved = None

    # -- installation -------------------------------------------------------------------------
    def install(self):
        import torch._inductor.config as config
        if self._saved is not None:
            return self
        self._saved = {"fx_graph_cache": config.fx_graph_cache}
        config.fx_graph_cache = False
        for stage in self.stages:
            for is_pre, key in zip((True, False), STAGES[stage]):
                self._saved[key] = getattr(config, key)
                setattr(config, key, _Hook(self, stage, is_pre, self._saved[key]))
        try:
            import torch._functorch.config as fconfig
            self._saved["enable_autograd_cache"] = fconfig.enable_autograd_cache
            fconfig.enable_autograd_cache = False
        except (ImportError, AttributeError):
            pass
        return self

    def uninstall(self):
        if self._saved is None:
            return
        import torch._inductor.config as config
        saved, self._saved = self._saved, None
        autograd_cache = saved.pop("enable_autograd_cache", None)
        if autograd_cache is not None:
            import torch._functorch.config as fconfig
            fconfig.enable_autograd_cache = autograd_cache
        for key, value in saved.items():
            setattr(config, key, value)

    def __enter__(self):
        return self.install()

    def __exit__(self, *exc):
        self.uninstall()
        return False

    # -- the hooks ----------------------------------------------------------------------------
    def _snapshot(self, graph, role):
        import torch
        from torchtv_capture.fx_snapshot import snapshot_graph
        producer = {"tool": "torchtv.inductor", "torch": torch.__version__,
                    "source": "inductor", "mode": "forward"}
        return snapshot_graph(graph, role, producer)

    def _before(self, stage, graph):
        try:
            self._pending[stage] = (self._snapshot(graph, "reference"), None)
        except Exception as e:  # a graph torchtv cannot read is reported, never fatal to compile
            self._pending[stage] = (None, "snapshot before the %s passes failed: %s" % (stage, e))

    def _after(self, stage, graph):
        before, error = self._pending.pop(stage, (None, "no snapshot before the %s passes" % stage))
        after = None
        if error is None:
            try:
                after = self._snapshot(graph, "production")
            except Exception as e:
                error = "snapshot after the %s passes failed: %s" % (stage, e)
        index = len(self.results) + 1
        changed = error is not None or _body(before) != _body(after)
        directory = None
        if self.keep == "all" or (changed and self.keep == "changed") or (changed and self.check) \
                or error is not None:
            directory = os.path.join(self.out_dir, "%s_%03d_%s" % (self.name, index, stage))
            _write_pair(directory, before, after, stage, error)
        pair = PairResult(index, stage, directory, _count(before), _count(after), changed, error=error)
        self.results.append(pair)
        if self.check and changed and error is None:
            report = os.path.join(directory, "report.html")
            try:
                pair.result = check_dir(self.binary, directory, self.require, self.timeout, report,
                                        self.fusions)
            except TorchtvError as e:
                pair.error = str(e)
        if self.check:
            self._judge(pair)

    def _judge(self, pair):
        if pair.validated:
            if self.keep == "failures" and pair.directory:
                shutil.rmtree(pair.directory, ignore_errors=True)
                pair.directory = None
            return
        what = pair.result.summary() if pair.result else "torchtv could not check it: %s" % pair.error
        message = ("Inductor's %s passes rewrote a graph (%s -> %s nodes) and torchtv did not "
                   "validate the rewrite; the pair is in %s\n%s"
                   % (pair.stage, pair.nodes_before, pair.nodes_after, pair.directory, what))
        if self.on_failure == "raise":
            raise RewriteNotValidated(message)
        log.warning("%s", message)


def _body(graph):
    return None if graph is None else json.dumps([graph["inputs"], graph["nodes"], graph["outputs"]],
                                                 sort_keys=True)


def _count(graph):
    return None if graph is None else len(graph["nodes"])


def _write_pair(directory, before, after, stage, error):
    from torchtv_capture.cli import write_dir
    if error is not None:
        os.makedirs(directory, exist_ok=True)
        with open(os.path.join(directory, "error.txt"), "w") as f:
            f.write(error + "\n")
        return
    capture = {"format": "torchtv-capture", "version": 1, "mode": "forward",
               "torch": before["producer"]["torch"], "source": "inductor %s passes" % stage,
               "reference": "reference.json", "production": "production.json", "fusions": {},
               "warnings": []}
    write_dir({"capture": capture, "graphs": {"reference": before, "production": after,
                                              "fusions": {}}}, directory, force=True)


def validate(**kwargs):
    """Installs a Validator (see its arguments) and returns it; use it in a `with` block, or
    call .uninstall() when done. Its .results lists every pair seen."""
    return Validator(**kwargs).install()

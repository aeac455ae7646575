"""torchtv's Python API, for people who live in pytest.

    import torchtv
    result = torchtv.verify(reference, production, example_inputs, mode="train_step",
                            fusions={"ns::op": op_reference})
    assert result.equivalent, result.summary()
    torchtv.assert_equivalent(reference, production, example_inputs)

`assert_equivalent` raises AssertionError when the functions are not proven equivalent (a test
that fails), and TorchtvError when torchtv could not decide them at all: the functions cannot be
captured, or the binary is missing or fails (a test that errors, with the file and line).

The two functions are captured in this process (with the torch you import), written as a
capture directory (docs/capture-format.md) and decided by the `torchtv` binary, found at
$TORCHTV_BIN, else at build/torchtv of the source tree this package sits in, else on PATH
(`/usr/bin/torchtv` of the Debian package). `python -m torchtv ARGS` runs that binary.
"""
import json
import os
import shutil
import subprocess
import tempfile

__version__ = "0.1.0"  # the CMake project's VERSION; e2e/package checks that they agree

__all__ = ["verify", "assert_equivalent", "check_dir", "Result", "TorchtvError", "CaptureFailed"]

EXIT_CODES = {"equivalent": 0, "not_equivalent": 1, "unknown": 2, "error": 3}


class TorchtvError(RuntimeError):
    """torchtv could not run (binary missing, crashed) - never a verdict."""


class CaptureFailed(TorchtvError):
    """The functions could not be captured or checked (verdict "error"): `result` says why and
    where (`result.data["error"]["location"]`, FILE:LINE when known)."""

    def __init__(self, result):
        super().__init__(result.summary())
        self.result = result


def _output_lines(o, indent):
    """An output that is not proven, what running the code showed of it (`runs`, Note [Evidence of
    undecided outputs] in src/verify/cross_check.h) and what would decide it (`to_decide`, Note
    [What would decide it] in src/verify/obstacle.h)."""
    lines = ["%soutput %s: %s - %s" % (indent, o["name"], o["verdict"], o["reason"])]
    if o.get("runs"):
        lines.append("%s    runs of the code: %s" % (indent, o["runs"]))
    if o.get("to_decide"):
        lines.append("%s    to decide it, try: %s" % (indent, o["to_decide"]))
    return lines


def _site_text(site):
    """'%mul_5 = aten::mul.Scalar (f.py:13, run 4 of 4 of this line)', as the text report says it."""
    where = [site["loc"]] if site.get("loc") else []
    if site.get("runs", 0) > 1:
        where.append("run %d of %d of this line" % (site["run"], site["runs"]))
    return "%%%s = %s%s" % (site["value"], site["op"], " (%s)" % ", ".join(where) if where else "")


class Result:
    """The outcome of torchtv.verify: the fields of `torchtv check --format json`."""

    def __init__(self, data, report_path=None):
        self.data = data
        self.verdict = data["verdict"]
        self.level = data["level"]
        self.reason = data["reason"]
        self.outputs = data["outputs"]
        self.counterexample = data["counterexample"]
        # Level "rounded": what was rounded where, each site with its bound (docs/json-output.md)
        self.roundings = data.get("roundings") or []
        self.report_path = report_path

    @property
    def equivalent(self):
        return self.verdict == "equivalent"

    def summary(self):
        """What a failing test should say: the verdict and the counts, each output that is not
        proven with where the two sides start to differ, the differing element, the first differing
        intermediate values (Note [Localized counterexample]) and the report.
        The inputs' values stay in `self.counterexample` (and the report), not in the message."""
        head = "torchtv: %s%s - %s" % (self.verdict, " (%s)" % self.level if self.level else "",
                                        self.reason)
        lines = [head]
        if self.outputs:
            count = lambda v: sum(1 for o in self.outputs if o["verdict"] == v)
            n = len(self.outputs)
            lines.append("  %d output%s: %d proven, %d refuted, %d unknown" % (
                n, "" if n == 1 else "s", count("equivalent"), count("not_equivalent"),
                n - count("equivalent") - count("not_equivalent")))
        proven = [o["name"] for o in self.outputs if o["verdict"] == "equivalent"]
        by_name = {o["name"]: o for o in self.outputs}
        # One block per cause, its outputs under it (Note [One alert per cause]); a result without
        # `causes` (an older binary's) one per output.
        causes = self.data.get("causes")
        if causes is None:
            causes = [{"outputs": [o["name"]], "reference_site": o.get("reference_site"),
                       "production_site": o.get("production_site")}
                      for o in self.outputs if o["verdict"] != "equivalent"]
        for cause in causes:
            outputs = [by_name[n] for n in cause["outputs"] if n in by_name]
            if len(outputs) > 1 and cause.get("production_site"):
                lines.append("  %d outputs diverge where production's %s does:" % (
                    len(outputs), _site_text(cause["production_site"])))
                for o in outputs:
                    lines += _output_lines(o, "    ")
                continue
            for o in outputs:
                lines += _output_lines(o, "  ")
                for side in ("reference", "production"):
                    site = cause.get(side + "_site")
                    if site:
                        lines.append("    %s diverges at %s" % (side, _site_text(site)))
        if proven:
            lines.append("  proven equivalent: " + ", ".join(proven))
        for site in self.roundings:
            lines.append("  rounded: " + site["description"])
        for warning in self.data.get("warnings", []):  # the capture's (docs/json-output.md)
            lines.append("  warning: " + warning)
        cex = self.counterexample
        if cex:
            index = "[%s]" % ", ".join(str(i) for i in cex.get("index") or [])
            first = cex.get("first_difference")
            if cex.get("reference_value") is None:  # the output types differ: no values
                lines.append("  differs at %s: %s" % (cex.get("output"), (first or {}).get("type_difference")))
            else:
                lines.append("  differs at %s%s: reference %r, production %r" % (
                    cex.get("output"), index, cex.get("reference_value"), cex.get("production_value")))
            if first:
                lines.append("    first differing intermediate: production %s, closest reference %s" % (
                    _site_text(first["production"]), _site_text(first["reference"])))
                if first.get("production_value") is None:
                    lines.append("      " + first["type_difference"])
                else:
                    lines.append("      at [%s]: production %r, reference %r%s" % (
                        ", ".join(str(i) for i in first["index"]), first["production_value"],
                        first["reference_value"],
                        " (%s)" % first["type_difference"] if first.get("type_difference") else ""))
            inputs = ", ".join("%s: %s" % (i["name"], i["type"]) for i in cex.get("inputs") or [])
            if inputs:
                lines.append("    on inputs %s (values in result.counterexample%s)" % (
                    inputs, " and the report" if self.report_path else ""))
            if cex.get("note"):
                lines.append("    " + cex["note"])
        error = self.data.get("error") or {}
        if self.verdict == "error" and error.get("location"):
            lines.append("  at " + error["location"])
        if self.report_path:
            lines.append("  report: " + self.report_path)
        return "\n".join(lines)

    def __repr__(self):
        return "<torchtv.Result %s%s>" % (self.verdict, " " + self.level if self.level else "")


def _find_binary():
    env = os.environ.get("TORCHTV_BIN")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    built = os.path.normpath(os.path.join(here, "..", "..", "..", "build", "torchtv"))
    if os.path.isfile(built) and os.access(built, os.X_OK):
        return built
    found = shutil.which("torchtv")
    if found:
        return found
    raise TorchtvError("torchtv binary not found: install it (the .deb, README 'Install'), build it "
                       "(scripts/build.sh) or set TORCHTV_BIN")


def verify(reference, production, example_inputs, mode="forward", fusions=None,
           require="rounded", timeout=600, keep_capture=None, report=None, fusion_dir=None,
           assume=(), cache=None):
    """Captures `reference` and `production` at `example_inputs` (a tuple of tensors, or a
    function returning one) and decides them. `mode` and `fusions` mean what MODE and FUSIONS
    mean in a pair file. Returns a Result; a capture problem comes back as verdict "error"
    with the reason, as from the CLI. `keep_capture`, a directory path, keeps the captured
    graphs there; `report`, a file path, gets the HTML diff report (as `--report`). `require`:
    the weakest level that counts as equivalent, "rounded" (the default; constants within one
    rounding are proven equal there, naming them), "real" or "bitwise" (as `--require`).
    `fusion_dir`: a folder of .tvir definitions of fused or custom ops (as `--fusions`);
    `assume`: input domains you declare, e.g. ["target in [0, 5) or -100"] (as `--assume`, named
    in the verdict as your assumption); `cache`: the proof cache, a SQLite path or
    redis://HOST:PORT/DB (as `--cache`), False for none (`--no-cache`), None for torchtv's default."""
    from torchtv_capture.capture import capture_loaded_pair
    from torchtv_capture.cli import write_dir
    from torchtv_capture.errors import CaptureError
    from torchtv_capture.pairfile import pair_from_objects

    binary = _find_binary()
    workdir = tempfile.mkdtemp(prefix="torchtv-")
    try:
        capture_dir = keep_capture or os.path.join(workdir, "capture")
        try:
            pair = pair_from_objects(reference, production, example_inputs, mode, fusions)
            write_dir(capture_loaded_pair(pair), capture_dir, force=bool(keep_capture))
        except CaptureError as e:
            where = "%s:%s" % (e.file, e.line) if e.line else (e.file or "")
            return Result({"verdict": "error", "level": None, "reason": "capture failed: " + e.message,
                           "outputs": [], "counterexample": None,
                           "error": {"message": e.message, "location": where or None}})
        return check_dir(binary, capture_dir, require, timeout,
                         report_path=os.path.abspath(report) if report else None, fusions=fusion_dir,
                         pair=pair, assume=assume, cache=cache)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def check_dir(binary, capture_dir, require="rounded", timeout=600, report_path=None, fusions=None, pair=None,
              assume=(), cache=None):
    """Runs `torchtv check` on a capture directory (with `--fusions DIR`, `--assume`, `--cache`
    as verify() passes them); returns its Result (never a verdict made up here: a crash or a
    mismatch between exit code and verdict raises TorchtvError). With `pair` (torchtv_capture's
    Pair of the captured functions), a refutation of the graphs is run through those functions
    here (_CodeRunner)."""
    if require not in ("rounded", "real", "bitwise"):
        raise ValueError("require must be 'rounded', 'real' or 'bitwise', not %r" % (require,))
    if isinstance(assume, str):
        raise ValueError("assume is a list of domains, e.g. [%r], not one string" % (assume,))
    if fusions is not None and not os.path.isdir(fusions):
        raise ValueError("fusion_dir %r is not a folder of .tvir definitions" % (fusions,))
    cmd = [binary, "check", capture_dir, "--format", "json", "--require", require,
           "--timeout", str(timeout)]
    if report_path:
        cmd += ["--report", report_path]
    if fusions:
        cmd += ["--fusions", fusions]
    for domain in assume:
        cmd += ["--assume", domain]
    if cache is False:
        cmd.append("--no-cache")
    elif cache is not None:
        cmd += ["--cache", str(cache)]
    runner = _CodeRunner(pair) if pair is not None else None
    try:
        if runner is not None:
            cmd += ["--code-runner-fds", runner.child_fds]
        # the wall-clock limit is torchtv's own --timeout plus its start and its report
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                pass_fds=runner.pass_fds if runner else ())
        if runner is not None:
            runner.start()
        try:
            stdout, stderr = proc.communicate(timeout=timeout + 60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            raise TorchtvError("torchtv timed out after %s s" % timeout)
    finally:
        if runner is not None:
            runner.finish()
    proc = subprocess.CompletedProcess(cmd, proc.returncode, stdout, stderr)
    try:
        data = json.loads(proc.stdout)
    except json.JSONDecodeError:
        raise TorchtvError("torchtv exited with %s and printed no result:\n%s"
                           % (proc.returncode, proc.stderr[-2000:]))
    if proc.returncode != EXIT_CODES.get(data.get("verdict")):
        raise TorchtvError("torchtv's exit code %s does not match its verdict %s"
                           % (proc.returncode, data.get("verdict")))
    return Result(data, report_path)


class _CodeRunner:
    """Serves `torchtv check --code-runner-fds R,W` (src/cli/code_runner_fds.h): the check writes
    at most one request, the inputs of a refutation of the graphs, and reads the reply: the
    captured functions, run on them in this process (Note [A refutation reproduces on the code]
    in torchtv_capture/code_runs.py)."""

    def __init__(self, pair):
        import threading
        self.pair = pair
        self.request_r, self.request_w = os.pipe()   # torchtv writes, we read
        self.reply_r, self.reply_w = os.pipe()       # we write, torchtv reads
        self.child_fds = "%d,%d" % (self.reply_r, self.request_w)
        self.pass_fds = (self.reply_r, self.request_w)
        self.thread = threading.Thread(target=self._serve, daemon=True)

    def start(self):
        os.close(self.reply_r)     # the child's ends: theirs alone now, so that EOF comes
        os.close(self.request_w)
        self.reply_r = self.request_w = None
        self.thread.start()

    def _serve(self):
        from torchtv_capture.code_runs import run_code
        with os.fdopen(self.request_r, "rb") as f:
            request = f.read()
        self.request_r = None
        with os.fdopen(self.reply_w, "w") as out:
            self.reply_w = None
            if not request:  # no refutation: the check ended without asking
                return
            try:
                reply = run_code(self.pair, json.loads(request))
            except Exception as e:  # noqa: BLE001 -- torchtv says the code could not be run
                reply = {"ran": False, "why": "running the functions failed: %s: %s" % (type(e).__name__, e)}
            out.write(json.dumps(reply, allow_nan=False))

    def finish(self):
        started = self.thread.ident is not None
        ends = (self.reply_r, self.request_w) if started else \
            (self.reply_r, self.request_w, self.request_r, self.reply_w)  # torchtv never ran
        for fd in ends:
            if fd is not None:
                os.close(fd)
        if started:
            self.thread.join(timeout=60)


def assert_equivalent(reference, production, example_inputs, **kwargs):
    """torchtv.verify, raising AssertionError with the diff summary (Result.summary) unless
    equivalent, CaptureFailed (a TorchtvError) when they could not be decided at all (verdict
    "error": a capture problem, at its file and line). `report="x.html"` writes the HTML report,
    and the message names it."""
    result = verify(reference, production, example_inputs, **kwargs)
    if result.verdict == "error":
        raise CaptureFailed(result)
    if not result.equivalent:
        raise AssertionError(result.summary())
    return result

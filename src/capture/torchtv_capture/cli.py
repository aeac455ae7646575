"""Command line: python -m torchtv_capture PAIR.py (-o DIR [--force] | --emit-stdout) [--debug]
              python -m torchtv_capture PAIR.py... --each DIR [--each-timeout S] [--debug]
              python -m torchtv_capture PAIR.py --run-code < REQUEST.json

Exit status: 0 on success; 3 on a capture error, with one JSON line
{"error": ..., "file": ..., "line": ...} as the last line of stderr; 2 on bad usage."""
import argparse
import contextlib
import json
import os
import shutil
import sys
import tempfile
import traceback

EXIT_ERROR = 3


def _dump(obj, fp, compact=False):
    if compact:
        json.dump(obj, fp, allow_nan=False, separators=(",", ":"))
    else:
        json.dump(obj, fp, allow_nan=False, indent=1)
        fp.write("\n")


def _compact(obj):
    return json.dumps(obj, allow_nan=False, separators=(", ", ": "))


def _dump_graph(g, fp):
    """Pretty but diff-friendly: one line per schema, input, node and output."""
    keys = list(g)
    fp.write("{\n")
    for i, k in enumerate(keys):
        v = g[k]
        fp.write(" %s: " % json.dumps(k))
        if isinstance(v, list) and v:
            fp.write("[\n" + ",\n".join("  " + _compact(x) for x in v) + "\n ]")
        elif isinstance(v, dict) and v and k in ("schemas", "producer", "fusion"):
            fp.write("{\n" + ",\n".join("  %s: %s" % (json.dumps(a), _compact(b)) for a, b in v.items())
                     + "\n }")
        else:
            fp.write(_compact(v))
        fp.write(",\n" if i + 1 < len(keys) else "\n")
    fp.write("}\n")


def check_out_dir(out_dir, force):
    from .errors import CaptureError
    out_dir = os.path.abspath(out_dir)
    if os.path.exists(out_dir):
        if not os.path.isdir(out_dir):
            raise CaptureError("output path %s exists and is not a directory" % out_dir)
        if os.listdir(out_dir) and not force:
            raise CaptureError("output directory %s exists and is not empty (use --force to replace it)"
                               % out_dir)


def _write_graphs(tmp, index, graphs):
    """The graph files an index (capture.json, or its "reduced" entry) names, under tmp."""
    with open(os.path.join(tmp, index["reference"]), "w") as f:
        _dump_graph(graphs["reference"], f)
    with open(os.path.join(tmp, index["production"]), "w") as f:
        _dump_graph(graphs["production"], f)
    for name, rel in index["fusions"].items():
        os.makedirs(os.path.dirname(os.path.join(tmp, rel)), exist_ok=True)
        with open(os.path.join(tmp, rel), "w") as f:
            _dump_graph(graphs["fusions"][name], f)


def write_dir(result, out_dir, force):
    """Writes the capture into out_dir atomically: everything goes into a temporary directory
    next to it, which is renamed into place at the end."""
    check_out_dir(out_dir, force)
    out_dir = os.path.abspath(out_dir)
    parent = os.path.dirname(out_dir) or "."
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="." + os.path.basename(out_dir) + ".tmp-", dir=parent)
    old = None
    try:
        cap = result["capture"]
        graphs = result["graphs"]
        _write_graphs(tmp, cap, graphs)
        if "reduced" in cap:  # Note [Reduced-shape graphs] in capture.py
            os.makedirs(os.path.join(tmp, "reduced"))
            _write_graphs(tmp, cap["reduced"], graphs["reduced"])
        with open(os.path.join(tmp, "capture.json"), "w") as f:
            _dump(cap, f)
        if os.path.exists(out_dir):
            old = tempfile.mkdtemp(prefix="." + os.path.basename(out_dir) + ".old-", dir=parent)
            os.rmdir(old)
            os.rename(out_dir, old)
        os.rename(tmp, out_dir)
        tmp = None
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)


def _error(err, debug):
    line = json.dumps(err, allow_nan=False)
    sys.stderr.write(line + "\n")
    sys.stderr.flush()
    return EXIT_ERROR


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m torchtv_capture",
                                 description="Capture the reference/production graphs of a torchtv pair file as JSON.")
    ap.add_argument("pair", nargs="+", help="the pair file (.py); several only with --each")
    ap.add_argument("-o", "--out", metavar="DIR", help="write DIR/capture.json, reference.json, production.json, fusions/")
    ap.add_argument("--force", action="store_true", help="replace DIR if it exists and is not empty")
    ap.add_argument("--emit-stdout", action="store_true",
                    help='print {"capture":..., "graphs": {...}} as one JSON object on stdout')
    ap.add_argument("--each", metavar="DIR",
                    help="capture every pair file, each in a child forked once torch is imported, into DIR/K.json "
                         "(K: its place, from 0), or its stderr into DIR/K.err (Note [Capturing each file])")
    ap.add_argument("--each-timeout", type=float, default=600, metavar="SECONDS",
                    help="with --each: the limit of each pair file's capture")
    ap.add_argument("--run-code", action="store_true",
                    help="run the pair's two functions on the inputs of the JSON request on stdin and print the "
                         "reply (Note [A refutation reproduces on the code] in code_runs.py)")
    ap.add_argument("--debug", action="store_true", help="also print Python tracebacks and warnings on stderr")
    args = ap.parse_args(argv)
    if args.run_code:
        if args.out or args.emit_stdout or args.each or len(args.pair) > 1:
            ap.error("--run-code takes one pair file and nothing else")
        return run_code_one(args.pair[0], args.debug)
    if args.each:
        if args.out or args.emit_stdout:
            ap.error("--each writes DIR/K.json; it takes neither -o nor --emit-stdout")
        return capture_each(args.pair, args.each, args.each_timeout, args.debug)
    if len(args.pair) > 1:
        ap.error("one pair file, or --each DIR for several")
    if not args.out and not args.emit_stdout:
        ap.error("give -o DIR and/or --emit-stdout")
    return capture_one(args.pair[0], args.out, args.force, args.emit_stdout, args.debug)


# Note [Capturing each file]
# `torchtv verify --each A.py B.py ...` captures many pair files with one Python:
# importing torch takes seconds, a small capture a fraction of that. The parent
# imports torch once and runs nothing else; each pair file is captured in a child
# forked from it, so no pair file sees another's modules, globals or RNG state:
# each starts from the state a fresh `python -m torchtv_capture` has once torch
# is imported. A child writes K.json (renamed into place when complete) or, on
# failure, the error line of a single capture as the last line of K.err; one
# that outlives the limit is killed and its K.err says so.
def capture_each(pairs, out_dir, timeout, debug):
    import signal
    import time
    os.makedirs(out_dir, exist_ok=True)
    with contextlib.redirect_stdout(sys.stderr):
        try:
            import torch  # noqa: F401
        except Exception as e:
            for k, pair in enumerate(pairs):
                with open(os.path.join(out_dir, "%d.err" % k), "w") as f:
                    f.write(json.dumps({"error": "cannot import torch in %s: %s: %s"
                                        % (sys.executable, type(e).__name__, e), "file": pair, "line": 0}) + "\n")
            return EXIT_ERROR
    sys.stdout.flush()
    sys.stderr.flush()
    worst = 0
    for k, pair in enumerate(pairs):
        result, errors = os.path.join(out_dir, "%d.json" % k), os.path.join(out_dir, "%d.err" % k)
        pid = os.fork()
        if pid == 0:
            code = EXIT_ERROR
            try:
                out = os.open(result + ".tmp", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
                err = os.open(errors, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
                os.dup2(out, 1)
                os.dup2(err, 2)
                code = capture_one(pair, None, False, True, debug)
                sys.stdout.flush()
                os.replace(result + ".tmp", result) if code == 0 else os.unlink(result + ".tmp")
            finally:
                os._exit(code)
        deadline = time.monotonic() + timeout
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                status = 1 << 8
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(result + ".tmp")
                with open(errors, "a") as f:
                    f.write(json.dumps({"error": "the capture took longer than %g s" % timeout,
                                        "file": os.path.abspath(pair), "line": 0}) + "\n")
                break
            time.sleep(0.01)
        worst = max(worst, 0 if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0 else EXIT_ERROR)
    return worst


def run_code_one(pair, debug):
    """--run-code: the request on stdin, the reply on stdout; errors as a capture's."""
    real_stdout = sys.stdout
    try:
        request = json.load(sys.stdin)
        with contextlib.redirect_stdout(sys.stderr):
            import warnings
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                from .code_runs import run_code
                from .pairfile import load_pair
                reply = run_code(load_pair(pair), request)
        _dump(reply, real_stdout, compact=True)
        real_stdout.write("\n")
        real_stdout.flush()
        return 0
    except (Exception, SystemExit) as e:
        from .errors import CaptureError
        if debug:
            traceback.print_exc(file=sys.stderr)
        err = e.to_json() if isinstance(e, CaptureError) else {
            "error": "running the pair's functions failed: %s: %s" % (type(e).__name__, e),
            "file": os.path.abspath(pair), "line": 0}
        return _error(err, debug)


def capture_one(pair, out, force, emit_stdout, debug):
    pair_abs = os.path.abspath(pair)
    real_stdout = sys.stdout
    try:
        import warnings
        # The user's code must not write to our stdout (it carries the JSON with --emit-stdout).
        with contextlib.redirect_stdout(sys.stderr), warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("default")
            if out:
                check_out_dir(out, force)
            try:
                import torch  # noqa: F401
            except Exception as e:
                from .errors import CaptureError
                raise CaptureError("cannot import torch in %s: %s: %s" % (sys.executable, type(e).__name__, e))
            from .capture import capture_pair
            result = capture_pair(pair)
            if out:
                write_dir(result, out, force)
        if debug:
            for w in caught:
                sys.stderr.write("warning: %s:%s: %s\n" % (w.filename, w.lineno, w.message))
        if emit_stdout:
            _dump(result, real_stdout, compact=True)
            real_stdout.write("\n")
            real_stdout.flush()
        return 0
    except (Exception, SystemExit) as e:  # CaptureError, anything unexpected, sys.exit() in user code
        from .errors import CaptureError, UserFiles, user_frame_of_exception
        if debug:
            traceback.print_exc(file=sys.stderr)
        if isinstance(e, CaptureError):
            err = e.to_json()
        elif isinstance(e, SystemExit):
            f, l = user_frame_of_exception(e, UserFiles([pair_abs]), pair_abs)
            err = {"error": "the pair file called sys.exit(%r) during capture" % (e.code,), "file": f, "line": l}
        else:
            f, l = user_frame_of_exception(e, UserFiles([pair_abs]), None)
            err = {"error": "internal error in torchtv_capture: %s: %s" % (type(e).__name__, e),
                   "file": f, "line": l}
        return _error(err, debug)

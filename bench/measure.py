"""Measuring the commands the benchmark runs: wall time and peak memory of a child process, and
the cache of captured pairs."""
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CAPTURE_SRC = os.path.join(REPO, "src", "capture")
TORCH_PYTHON = "/usr/bin/python3"


class Run:
    """One finished child process."""

    def __init__(self, rc, seconds, peak_mb, stdout, stderr, timed_out=False, cpu_seconds=None):
        self.rc, self.seconds, self.peak_mb = rc, seconds, peak_mb
        self.stdout, self.stderr, self.timed_out = stdout, stderr, timed_out
        self.cpu_seconds = cpu_seconds  # user + system of the process and the children it waited for

    def json(self):
        try:
            return json.loads(self.stdout)
        except ValueError:
            return None


def run(cmd, timeout=None, env=None):
    """Runs cmd; wall time, and peak resident memory (ru_maxrss, the largest of the process and
    the descendants it waited for) from wait4. Output goes through files, so a large report
    cannot block the child."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=env, cwd=REPO)
        timed_out = False
        deadline = None if timeout is None else start + timeout
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if deadline is not None and time.perf_counter() > deadline:
                proc.kill()
                pid, status, usage = os.wait4(proc.pid, 0)
                timed_out = True
                break
            time.sleep(0.002)
        seconds = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return Run(proc.returncode, seconds, usage.ru_maxrss / 1024.0,
                   out.read().decode(errors="replace"), err.read().decode(errors="replace"), timed_out,
                   usage.ru_utime + usage.ru_stime)


def best_of(cmd, repeat, timeout=None):
    """The fastest of `repeat` runs (the least disturbed by other load on a shared machine); its
    peak memory is the largest seen."""
    runs = [run(cmd, timeout) for _ in range(max(1, repeat))]
    best = min(runs, key=lambda r: r.seconds)
    best.peak_mb = max(r.peak_mb for r in runs)
    return best


def python_env():
    env = dict(os.environ)
    env["PYTHONPATH"] = CAPTURE_SRC + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def _capture_key(pair_path):
    """What a capture depends on: the pair file and the capture package's source."""
    h = hashlib.sha256()
    with open(pair_path, "rb") as f:
        h.update(f.read())
    pkg = os.path.join(CAPTURE_SRC, "torchtv_capture")
    for name in sorted(os.listdir(pkg)):
        if name.endswith(".py"):
            with open(os.path.join(pkg, name), "rb") as f:
                h.update(name.encode() + f.read())
    return h.hexdigest()


def capture(torchtv, pair_path, cache_dir, timeout=None):
    """Captures pair_path into cache_dir/<name> unless a capture of the same pair file and capture
    package is there. Returns {"dir", "seconds", "peak_mb", "cached", "error"}; the time and memory
    of a cached capture are those measured when it was made."""
    name = os.path.splitext(os.path.basename(pair_path))[0]
    out = os.path.join(cache_dir, name)
    stamp = os.path.join(cache_dir, name + ".stamp.json")
    key = _capture_key(pair_path)
    if os.path.exists(stamp) and os.path.isdir(out):
        with open(stamp) as f:
            old = json.load(f)
        if old.get("key") == key:
            return dict(old["result"], cached=True)
    os.makedirs(cache_dir, exist_ok=True)
    if os.path.exists(out):
        shutil.rmtree(out)
    r = run([torchtv, "capture", pair_path, "-o", out], timeout)
    result = {"dir": out, "seconds": r.seconds, "peak_mb": r.peak_mb,
              "error": None if r.rc == 0 else (r.stderr.strip().splitlines() or ["exit %d" % r.rc])[-1]}
    if r.timed_out:
        result["error"] = "capture timed out after %.0f s" % timeout
    if result["error"] is None:
        with open(stamp, "w") as f:
            json.dump({"key": key, "result": result}, f)
    return dict(result, cached=False)

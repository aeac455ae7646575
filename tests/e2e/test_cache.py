#!/usr/bin/env python3
"""The persistent proof cache through the real CLI (Note [Proof cache]): a proof made by one run
is reused by the next (stats.proof_cache shows the hit, the verdict is the same), a changed
semantics version is a miss, a damaged or unreachable cache is ignored with one warning, and a
real redis-server (started and stopped here, on a loopback port) is shared like the SQLite file."""
import glob
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time

from e2e_util import Checker, args, run

a = args()
c = Checker("proof cache")
env = dict(os.environ)
env.pop("TORCHTV_CACHE", None)
env.pop("TORCHTV_CACHE_SALT", None)


def check(pair, *extra, salt=None):
    e = dict(env)
    if salt:
        e["TORCHTV_CACHE_SALT"] = salt
    p = run([a.torchtv, "check", pair, "--format", "json", *extra], env=e)
    try:
        return json.loads(p.stdout), p.stderr
    except ValueError:
        c.check(False, f"no JSON from {pair} {extra}: {p.stdout[-300:]} {p.stderr[-300:]}")
        return None, p.stderr


def verdicts(r):
    return (r["verdict"], r["level"], [(o["name"], o["verdict"], o["level"]) for o in r["outputs"]])


def pc(r):
    return r["stats"]["proof_cache"]


# A pair whose outputs need the prover (the train-step pairs all do).
pairs = sorted(glob.glob(os.path.join(a.source_dir, "tests/golden/prover/train/*_train.tvir")))
with tempfile.TemporaryDirectory() as tmp:
    db = os.path.join(tmp, "proofs.sqlite")
    pair = None
    for candidate in pairs:
        r, _ = check(candidate, "--cache", db)
        if r and r["stats"]["distinct_proofs"] > 0:
            pair, first = candidate, r
            break
    if c.check(pair is not None, "no pair needs the prover"):
        c.check(pc(first)["misses"] > 0 and pc(first)["hits"] == 0, f"first run: {pc(first)}")
        second, _ = check(pair, "--cache", db)
        c.check(pc(second)["hits"] > 0, f"second run has no hit: {pc(second)}")
        c.check(second["stats"]["distinct_proofs"] < first["stats"]["distinct_proofs"],
                "second run proved as much as the first")
        c.check(verdicts(second) == verdicts(first), "a cached run decided otherwise")
        # A changed semantics version (here through the salt) misses every entry.
        salted, _ = check(pair, "--cache", db, salt="another-version")
        c.check(pc(salted)["hits"] == 0 and pc(salted)["misses"] > 0, f"changed version hit: {pc(salted)}")
        c.check(verdicts(salted) == verdicts(first), "a changed version decided otherwise")
        # TORCHTV_CACHE names the same cache; --no-cache turns it off.
        env["TORCHTV_CACHE"] = db
        by_env, _ = check(pair)
        c.check(pc(by_env)["hits"] > 0, f"TORCHTV_CACHE not used: {pc(by_env)}")
        off, _ = check(pair, "--no-cache")
        c.check(pc(off) == {"hits": 0, "misses": 0}, f"--no-cache still looked: {pc(off)}")
        del env["TORCHTV_CACHE"]
        stats = run([a.torchtv, "cache", "stats", "--cache", db], env=env)
        c.check(stats.returncode == 0 and "entries: " in stats.stdout and "entries: 0" not in stats.stdout,
                f"cache stats: {stats.stdout} {stats.stderr}")
        cleared = run([a.torchtv, "cache", "clear", "--cache", db], env=env)
        c.check(cleared.returncode == 0, f"cache clear: {cleared.stderr}")
        after, _ = check(pair, "--cache", db)
        c.check(pc(after)["hits"] == 0, f"hit after clear: {pc(after)}")

        # A damaged cache file: ignored with one warning, the same verdict.
        bad = os.path.join(tmp, "bad.sqlite")
        with open(bad, "wb") as f:
            f.write(b"SQLite format 3\0" + os.urandom(4000))
        damaged, err = check(pair, "--cache", bad)
        c.check(damaged is not None and verdicts(damaged) == verdicts(first), "a damaged cache changed the verdict")
        c.check(err.count("proof cache") == 1, f"not exactly one warning for a damaged cache: {err!r}")

        # Redis: a real server on a free loopback port, nothing saved to disk.
        server = shutil.which("redis-server") or "/usr/bin/redis-server"
        if c.check(os.path.exists(server), "redis-server is not installed (scripts/install-deps.sh)"):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
            s.close()
            url = f"redis://127.0.0.1:{port}/3"
            proc = subprocess.Popen([server, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                                     "--appendonly", "no", "--dir", tmp],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            try:
                for _ in range(100):
                    try:
                        socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                        break
                    except OSError:
                        time.sleep(0.1)
                r1, err1 = check(pair, "--cache", url)
                c.check(r1 is not None and pc(r1)["misses"] > 0 and "proof cache" not in err1,
                        f"redis first run: {r1 and pc(r1)} {err1}")
                r2, _ = check(pair, "--cache", url)
                c.check(r2 is not None and pc(r2)["hits"] > 0, f"redis second run has no hit: {r2 and pc(r2)}")
                c.check(r2 is not None and verdicts(r2) == verdicts(first), "a redis-cached run decided otherwise")
                stats = run([a.torchtv, "cache", "stats", "--cache", url], env=env)
                c.check(stats.returncode == 0 and "entries: 0" not in stats.stdout, f"redis stats: {stats.stdout}")
            finally:
                proc.terminate()
                proc.wait(timeout=10)
            # The server is gone: unreachable, one warning, the same verdict.
            gone, err = check(pair, "--cache", url)
            c.check(gone is not None and verdicts(gone) == verdicts(first), "an unreachable cache changed the verdict")
            c.check(err.count("proof cache") == 1, f"not exactly one warning for an unreachable cache: {err!r}")
c.done()

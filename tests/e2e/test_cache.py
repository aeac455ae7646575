#!/usr/bin/env python3
"""The persistent proof cache through the real CLI (Note [Proof cache]): a decision made by one
run answers the next whole (stats.result_cache "hit", no prover work, the same verdicts: Note
[Result cache]), a run that cannot use the whole decision reuses its regions (stats.proof_cache),
a planted bug is never answered from the cache, a changed semantics version is a miss, a damaged
or unreachable cache is ignored with one warning, and a real redis-server (started and stopped
here, on a loopback port) is shared like the SQLite file. Then the capture cache (Note [Capture
cache]): `verify` of an unchanged pair file does not run it again; a changed module it imports
does, and so does --recapture."""
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


def answered_from_cache(r):
    return r["stats"]["result_cache"] == "hit" or pc(r)["hits"] > 0


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
        c.check(first["verdict"] == "equivalent" and first["stats"]["result_cache"] == "miss",
                f"first run: {first['verdict']} {first['stats']['result_cache']}")
        second, _ = check(pair, "--cache", db)
        c.check(second["stats"]["result_cache"] == "hit", f"second run: {second['stats']}")
        c.check(second["stats"]["distinct_proofs"] == 0 and second["stats"]["solver_queries"] == 0,
                f"a whole cached decision still proved: {second['stats']}")
        c.check(verdicts(second) == verdicts(first), "a cached run decided otherwise")
        c.check(all(o["reason"].endswith("from the proof cache") for o in second["outputs"]),
                "a cached output does not say so")
        # Another per-query budget is another whole-decision key; the regions' proofs still answer.
        budget, _ = check(pair, "--cache", db, "--rlimit", "999999")
        c.check(budget["stats"]["result_cache"] == "miss" and pc(budget)["hits"] > 0,
                f"regions not reused: {budget['stats']}")
        c.check(budget["stats"]["distinct_proofs"] < first["stats"]["distinct_proofs"],
                "a run with every region cached proved as much as the first")
        c.check(verdicts(budget) == verdicts(first), "a region-cached run decided otherwise")
        # A planted bug is decided on its own graphs every time, never from the cache.
        bug = os.path.join(a.source_dir, "tests/golden/prover/train/layernorm_train__extra_term.tvir")
        if c.check(os.path.exists(bug), f"{bug} is gone"):
            b1, _ = check(bug, "--cache", db)
            b2, _ = check(bug, "--cache", db)
            c.check(b1["verdict"] == b2["verdict"] == "not_equivalent" and b2["stats"]["result_cache"] == "miss",
                    f"planted bug: {b1['verdict']} then {b2['verdict']} ({b2['stats']['result_cache']})")
        # A changed semantics version (here through the salt) misses every entry.
        salted, _ = check(pair, "--cache", db, salt="another-version")
        c.check(pc(salted)["hits"] == 0 and pc(salted)["misses"] > 0 and salted["stats"]["result_cache"] == "miss",
                f"changed version hit: {salted['stats']}")
        c.check(verdicts(salted) == verdicts(first), "a changed version decided otherwise")
        # TORCHTV_CACHE names the same cache; --no-cache turns it off.
        env["TORCHTV_CACHE"] = db
        by_env, _ = check(pair)
        c.check(answered_from_cache(by_env), f"TORCHTV_CACHE not used: {by_env['stats']}")
        off, _ = check(pair, "--no-cache")
        c.check(pc(off) == {"hits": 0, "misses": 0} and off["stats"]["result_cache"] == "off",
                f"--no-cache still looked: {off['stats']}")
        del env["TORCHTV_CACHE"]
        stats = run([a.torchtv, "cache", "stats", "--cache", db], env=env)
        c.check(stats.returncode == 0 and "entries: " in stats.stdout and "entries: 0" not in stats.stdout and
                "cut search records: " in stats.stdout,
                f"cache stats: {stats.stdout} {stats.stderr}")
        cleared = run([a.torchtv, "cache", "clear", "--cache", db], env=env)
        c.check(cleared.returncode == 0, f"cache clear: {cleared.stderr}")
        after, _ = check(pair, "--cache", db)
        c.check(not answered_from_cache(after), f"hit after clear: {after['stats']}")

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
                c.check(r2 is not None and answered_from_cache(r2), f"redis second run has no hit: {r2 and r2['stats']}")
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

    # The capture cache. The pair file imports a module of the user's tree and logs each time it is
    # imported (that is, traced): the log counts the captures.
    work = os.path.join(tmp, "user")
    os.makedirs(work)
    log = os.path.join(tmp, "imports.log")
    helper = os.path.join(work, "scale_helper.py")
    with open(helper, "w") as f:
        f.write("FACTOR = 2.0\n")
    pair_file = os.path.join(work, "cached_pair.py")
    with open(pair_file, "w") as f:
        f.write(f"""import sys
import torch
sys.path.insert(0, {work!r})
import scale_helper
with open({log!r}, "a") as log:
    log.write("imported\\n")


def example_inputs():
    return (torch.arange(6.0).reshape(2, 3),)


def reference(x):
    return x * scale_helper.FACTOR


def production(x):
    return x + x
""")
    cdb = os.path.join(tmp, "captures.sqlite")

    def verify(*extra):
        p = run([a.torchtv, "verify", pair_file, "--format", "json", "--cache", cdb, *extra], env=env)
        try:
            return json.loads(p.stdout)["verdict"]
        except (ValueError, KeyError):
            return f"no JSON: {p.stdout[-300:]} {p.stderr[-300:]}"

    def captures():
        with open(log) as f:
            return f.read().count("imported")

    c.check(verify() == "equivalent" and captures() == 1, f"first verify: {captures()} captures")
    c.check(verify() == "equivalent" and captures() == 1, f"unchanged pair traced again: {captures()} captures")
    c.check(verify("--recapture") == "equivalent" and captures() == 2, "--recapture did not trace")
    c.check(verify("--no-cache") == "equivalent" and captures() == 3, "--no-cache used the capture cache")
    with open(helper, "w") as f:
        f.write("FACTOR = 3.0\n")
    # traced again (4), and its refutation run through the code, which loads the pair file once
    # more (5: Note [A refutation reproduces on the code] in src/verify/code_runs.h)
    c.check(verify() == "not_equivalent" and captures() == 5,
            f"a changed imported module was not traced again: {captures()} loads of the pair file")
c.done()

#!/usr/bin/env python3
"""`verify --sandbox` (issue 37, item 4; Note [The capture sandbox] in src/util/sandbox.h):
pair files that try to write outside, open a socket, fork-bomb or take the machine's memory are
stopped with a clear error (exit 3, the line and the sandbox named) and nothing outside is
touched; a correct pair is decided under the sandbox as without it; `ci` sandboxes a manifest's
`untrusted = true` pairs.

Each hostile pair acts only when it sees the sandbox's limits (a finite RLIMIT_NPROC and
RLIMIT_AS): were the sandbox missing, it fails with "not sandboxed" instead of harming the machine
that runs the test, and the test fails on that text."""
import os
import socket
import tempfile
import textwrap
import threading

from e2e_util import Checker, args, run

a = args()
c = Checker("sandbox")
tv = a.torchtv
src = a.source_dir

PREAMBLE = textwrap.dedent('''\
    import os
    import resource
    import torch

    def example_inputs():
        return (torch.ones(3),)

    def reference(x):
        return x * 2

    def sandboxed():
        nproc = resource.getrlimit(resource.RLIMIT_NPROC)[0]
        memory = resource.getrlimit(resource.RLIMIT_AS)[0]
        if nproc == resource.RLIM_INFINITY or memory == resource.RLIM_INFINITY:
            raise RuntimeError("not sandboxed")

    ''')

HOSTILE = {
    # name: (production's body, what the error must say: one of these)
    "write_outside": ('open(OUTSIDE, "w").write("escaped")', ["Read-only file system"]),
    # The sandbox's own network namespace: its loopback is not the machine's (refused), or down.
    "socket": ("import socket\n    socket.create_connection(('127.0.0.1', PORT), timeout=5)",
               ["Connection refused", "Network is unreachable"]),
    # Forks until it cannot: children that do not fork on keep the test short (a bomb whose every
    # child forks too churns at the limit until the capture's time limit: CPU, not the machine).
    "fork_bomb": ("while True:\n        if os.fork() == 0:\n            __import__('time').sleep(120)\n"
                  "            os._exit(0)", ["Resource temporarily unavailable"]),
    "memory": ("torch.ones(8 * 2**30)", ["memory"]),
}


def pair_text(body, outside, port):
    return (PREAMBLE + f"OUTSIDE = {outside!r}\nPORT = {port}\n\n\ndef production(x):\n    sandboxed()\n    "
            + body + "\n    return x * 2\n")


def verify(pair, *extra, timeout=300):
    cmd = [tv, "verify", pair, "--sandbox", "--no-cache", "--capture-timeout", "240", *extra]
    r = run(cmd, timeout=timeout)
    return r.returncode, r.stdout + r.stderr


with tempfile.TemporaryDirectory() as d:
    outside = os.path.join(d, "outside.txt")
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    listener.settimeout(0.2)
    port = listener.getsockname()[1]
    connections = []
    stop = threading.Event()

    def accept():
        while not stop.is_set():
            try:
                connections.append(listener.accept()[0])
            except OSError:
                pass

    watcher = threading.Thread(target=accept)
    watcher.start()
    try:
        for name, (body, wants) in HOSTILE.items():
            pair = os.path.join(d, name + ".py")
            with open(pair, "w") as f:
                f.write(pair_text(body, outside, port))
            rc, out = verify(pair)
            c.check(rc == 3, f"{name}: exit {rc}, want 3 (an error)\n{out[-1500:]}")
            c.check("not sandboxed" not in out, f"{name}: ran without the sandbox's limits\n{out[-1500:]}")
            c.check(any(w in out for w in wants), f"{name}: the error says none of {wants}\n{out[-1500:]}")
            c.check("--sandbox" in out, f"{name}: the error does not name the sandbox\n{out[-1500:]}")
            c.check(f"{name}.py:" in out, f"{name}: the error does not name the pair file's line\n{out[-1500:]}")
        c.check(not os.path.exists(outside), "a sandboxed pair wrote outside the sandbox")
        c.check(not connections, f"a sandboxed pair connected to the test's socket ({len(connections)} times)")

        # A correct pair decides under the sandbox as without it.
        good = os.path.join(src, "tests/capture/pairs/forward_ops.py")
        rc, out = verify(good)
        plain = run([tv, "verify", good, "--no-cache"], timeout=300)
        c.check(rc == plain.returncode == 0, f"forward_ops.py: exit {rc} sandboxed, {plain.returncode} plain\n{out[-1500:]}")

        # `ci`: a manifest's untrusted = true captures its pair files in the sandbox.
        hostile = os.path.join(d, "write_outside.py")
        manifest = os.path.join(d, "torchtv.toml")
        with open(manifest, "w") as f:
            f.write('[defaults]\nuntrusted = true\n\n[[pair]]\nname = "hostile"\npair = "write_outside.py"\n')
        r = run([tv, "ci", manifest, "--out", os.path.join(d, "reports"), "--no-cache"], timeout=300)
        c.check(r.returncode == 3, f"ci untrusted: exit {r.returncode}, want 3\n{(r.stdout + r.stderr)[-1500:]}")
        c.check(not os.path.exists(outside), "ci: an untrusted pair wrote outside the sandbox")
    finally:
        stop.set()
        watcher.join()
        listener.close()

c.done()

"""The files whose code a capture ran (Note [Capture cache] in src/cli/capture_cache.h).

torchtv may answer a later `verify` of the same pair file from its capture cache instead of
tracing again; it does so only while every file listed here still has the same content. Listed:
the pair file, every module loaded from outside the Python installation (the user's own tree,
including this package), and torch's version file (a torch upgrade in place is a miss). Not
listed, hence not guarded: the standard library and installed packages other than torch's version,
data files the user's code reads, and the environment. A user who changes those runs
`verify --recapture`.
"""
import hashlib
import os
import site
import sys
import sysconfig


def _installation_dirs():
    dirs = set()
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        p = sysconfig.get_paths().get(key)
        if p:
            dirs.add(os.path.realpath(p))
    for p in list(getattr(site, "getsitepackages", lambda: [])()) + [getattr(site, "USER_SITE", None)]:
        if p:
            dirs.add(os.path.realpath(p))
    return tuple(d.rstrip(os.sep) + os.sep for d in dirs)


def _installed(path, dirs):
    return path.startswith(dirs) or "/site-packages/" in path or "/dist-packages/" in path


def _digest(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def code_files(pair_path):
    """[{"path": absolute path, "sha256": hex}] of the code this capture ran, sorted by path."""
    import torch
    dirs = _installation_dirs()
    paths = {os.path.realpath(pair_path)}
    for mod in list(sys.modules.values()):
        f = getattr(mod, "__file__", None)
        if not f or not f.endswith(".py"):
            continue
        real = os.path.realpath(f)
        if not _installed(real, dirs):
            paths.add(real)
    version = os.path.join(os.path.dirname(os.path.realpath(torch.__file__)), "version.py")
    paths.add(version)
    return [{"path": p, "sha256": _digest(p)} for p in sorted(paths) if os.path.isfile(p)]

"""`python -m torchtv ARGS...`: runs the torchtv binary with ARGS.

The binary is found as torchtv.verify finds it ($TORCHTV_BIN, the build tree this package sits
in, else `torchtv` on PATH). Pair files are captured with this interpreter (so with this
environment's torch, 1.13 or 2.x) unless TORCHTV_PYTHON or --python says otherwise."""
import os
import sys

from . import TorchtvError, _find_binary


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    try:
        binary = _find_binary()
    except TorchtvError as e:
        print("torchtv: error: %s" % e, file=sys.stderr)
        return 3
    env = dict(os.environ)
    env.setdefault("TORCHTV_PYTHON", sys.executable)
    try:
        os.execve(binary, [binary] + list(argv), env)
    except OSError as e:
        print("torchtv: error: cannot run %s: %s" % (binary, e), file=sys.stderr)
        return 3


if __name__ == "__main__":
    sys.exit(main())

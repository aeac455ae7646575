"""torchtv_capture: captures the reference and production graphs of a torchtv pair file as JSON.

Usage: ``python -m torchtv_capture PAIR.py -o DIR`` (see docs/capture-format.md).
The torch-dependent modules are imported lazily so that ``python -m torchtv_capture`` can
report a missing torch as a proper error.
"""
FORMAT_VERSION = 1


def capture_pair(path):
    from .capture import capture_pair as _cp
    return _cp(path)


def __getattr__(name):
    if name == "CaptureError":
        from .errors import CaptureError
        return CaptureError
    raise AttributeError(name)

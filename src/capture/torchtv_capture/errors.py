"""Errors raised by the capture, carrying a location in the user's pair file."""
import os
import traceback


class CaptureError(Exception):
    """A capture failure that is reported to the user.

    ``file``/``line`` point into the user's pair file (the last frame of the failure that lies in
    it), or are None when no such frame exists.
    """

    def __init__(self, message, file=None, line=None):
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line

    def to_json(self):
        return {"error": self.message, "file": self.file, "line": self.line}


class UserFiles:
    """The set of files that count as "user code" (the pair file, plus the files defining
    FUSIONS reference functions), matched by real path and reported by absolute path."""

    def __init__(self, paths=()):
        self._real = {}
        self._cache = {}
        for p in paths:
            self.add(p)

    def add(self, path):
        if not path:
            return
        ap = os.path.abspath(path)
        self._real.setdefault(os.path.realpath(ap), ap)
        self._cache.clear()

    def match(self, filename):
        """Absolute path of the user file ``filename`` names, or None."""
        try:
            return self._cache[filename]
        except KeyError:
            pass
        res = None
        if filename and not filename.startswith("<"):
            res = self._real.get(os.path.realpath(os.path.abspath(filename)))
        self._cache[filename] = res
        return res


def user_frame_of_exception(exc, user_files, default_file=None):
    """(file, line) of the innermost traceback frame of ``exc`` that lies in a user file.

    Follows ``__cause__``/``__context__`` chains. Falls back to (default_file, None)."""
    seen = set()
    e = exc
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        if isinstance(e, SyntaxError) and e.filename and user_files.match(e.filename):
            return user_files.match(e.filename), e.lineno
        found = None
        for fs in traceback.extract_tb(e.__traceback__):
            f = user_files.match(fs.filename)
            if f:
                found = (f, fs.lineno)
        if found:
            return found
        e = e.__cause__ or e.__context__
    return default_file, None


def short_exc(exc, limit=600):
    """``TypeName: first lines of message``, shortened."""
    msg = str(exc).strip()
    if len(msg) > limit:
        msg = msg[:limit] + "..."
    return "%s: %s" % (type(exc).__name__, msg) if msg else type(exc).__name__

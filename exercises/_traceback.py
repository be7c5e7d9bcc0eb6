"""Finding the student's line in a traceback, for the runner and for ``checks._support.call``.

The student's frame is the innermost one that is not exercise machinery (the
checks, the runner, the pytest plugin) and not a library (minigrad, numpy, the
standard library, installed packages).  Libraries are known by where they are
installed, not by a word in the path: a course cloned to ``~/minigrad/`` still
has its student files found.
"""

from __future__ import annotations

import os
import sysconfig
import traceback

import numpy

import minigrad

__all__ = ["student_frame"]

_HERE = os.path.dirname(os.path.abspath(__file__))
_MACHINERY = (os.path.join(_HERE, "checks") + os.sep, os.path.join(_HERE, "_runner.py"),
              os.path.join(_HERE, "conftest.py"), os.path.abspath(__file__))
_LIBRARIES = tuple(
    {os.path.dirname(os.path.abspath(module.__file__)) + os.sep for module in (minigrad, numpy)}
    | {os.path.abspath(sysconfig.get_paths()[key]) + os.sep
       for key in ("stdlib", "platstdlib", "purelib", "platlib")})


def student_frame(tb, own: str | None = None) -> tuple[str, int] | None:
    """(absolute path, line number) of the innermost frame in the student's code, or None.

    With ``own`` (the file the task is defined in), a frame in that file wins
    over any other: a helper the student's code calls may live elsewhere.
    """
    found = fallback = None
    for frame, lineno in traceback.walk_tb(tb):
        path = os.path.abspath(frame.f_code.co_filename)
        if own and path == own:
            found = (path, lineno)
        elif not path.startswith(_MACHINERY + _LIBRARIES):
            fallback = (path, lineno)
    return found or fallback

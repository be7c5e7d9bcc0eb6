"""Anomaly detection: find the op whose backward produced NaN or Inf.

A NaN in a parameter's gradient is hard to trace back: it may have been born
many ops earlier.  Inside ``detect_anomaly()`` every new node remembers where
in *your* code it was created, and backward checks each edge's contribution;
the first non-finite one raises ``AnomalyError`` naming the op and showing
that creation trace.  Both cost time, so the mode is off by default.
"""

from __future__ import annotations

import os
import re
import sysconfig
import traceback

from .state import set_anomaly

__all__ = ["detect_anomaly", "AnomalyError"]

_PKG = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class AnomalyError(RuntimeError):
    """Raised during backward in anomaly mode when a gradient is NaN or Inf."""


class detect_anomaly:
    """Context manager: record creation traces and check gradients for NaN/Inf."""

    def __init__(self, check_nan: bool = True):
        self.check_nan = check_nan

    def __enter__(self):
        self.prev = set_anomaly(self.check_nan)
        return self

    def __exit__(self, *exc):
        set_anomaly(self.prev)
        return False


def _library_dirs() -> tuple[str, ...]:
    """Folders whose frames are not the user's: minigrad itself, the standard
    library and installed packages (Jupyter's kernel machinery lives there)."""
    dirs = {_PKG}
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        try:
            dirs.add(os.path.abspath(sysconfig.get_paths()[key]))
        except KeyError:
            pass
    return tuple(sorted(dirs))


_LIBRARY_DIRS = _library_dirs()
_CELL_FILE = re.compile(r".*ipykernel_\d+[/\\]\d+\.py$")


def _user_frame(frame: traceback.FrameSummary) -> bool:
    name = frame.filename
    if name.startswith("<") and name not in ("<stdin>", "<string>"):
        return False  # frozen importlib and other synthetic frames
    path = os.path.abspath(name)
    return not any(path.startswith(d + os.sep) or path == d for d in _LIBRARY_DIRS)


def creation_trace() -> list[traceback.FrameSummary]:
    """The stack where a node is being created, keeping only the user's frames.

    A notebook cell's file (``/tmp/ipykernel_<pid>/<n>.py``) is renamed
    ``<notebook cell>``: the pid changes every run, the cell's code does not.
    """
    frames = []
    for f in traceback.extract_stack()[:-1]:
        if not _user_frame(f):
            continue
        if _CELL_FILE.match(f.filename):
            f = traceback.FrameSummary("<notebook cell>", f.lineno, f.name, line=f.line)
        frames.append(f)
    return frames


def anomaly_error(node, parent, slot, local) -> AnomalyError:
    kind = "nan" if _has_nan(local) else "inf"
    who = f"'{parent.label}'" if parent.label else f"#{parent.id}"
    lines = [
        f"Function '{node.op.name}' (node #{node.id}) returned {kind} values in its "
        f"gradient for input {slot} (node {who}).",
    ]
    if node.trace:
        lines.append("The node was created here:")
        lines.extend(traceback.format_list(node.trace[-6:]))
    else:
        lines.append(
            "No creation trace: the node was built outside detect_anomaly(); build the "
            "forward pass inside it as well to see where."
        )
    return AnomalyError("\n".join(line.rstrip("\n") for line in lines))


def _has_nan(x) -> bool:
    import numpy as np

    if hasattr(x, "engine_class"):  # a node (a create_graph pass): its value
        x = x.data
    if isinstance(x, np.ndarray):
        return bool(np.isnan(x).any())
    return x != x

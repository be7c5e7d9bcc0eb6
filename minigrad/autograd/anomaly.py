"""Anomaly detection: find the op whose backward produced NaN or Inf.

A NaN in a parameter's gradient is hard to trace back: it may have been born
many ops earlier.  Inside ``detect_anomaly()`` every new node remembers where
in *your* code it was created, and backward checks each edge's contribution;
the first non-finite one raises ``AnomalyError`` naming the op and showing
that creation stack.  Both cost time, so the mode is off by default.

Anomaly mode is a recorder (``core/modes.py``): it sees every node made, and
keeps its creation stack in ``node.origin.stack``; it hears every contribution
of backward, and checks it.  Being a recorder is also what makes backward run
the announced reference loop while it is on (``engines/choose.py``).
"""

from __future__ import annotations

import math
import os
import re
import sysconfig
import traceback

import numpy as np

from ..core.modes import STATE, set_recorders
from ..core.node import origin_of
from ..engines.output_grads import OutputGrads

__all__ = ["detect_anomaly", "AnomalyError", "AnomalyWatch", "creation_stack"]

_PKG = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class AnomalyError(RuntimeError):
    """Raised during backward in anomaly mode when a gradient is NaN or Inf."""


class detect_anomaly:
    """Context manager: record creation stacks and check gradients for NaN/Inf.

    ``check_nan=False`` leaves anomaly mode off inside the block."""

    def __init__(self, check_nan: bool = True):
        self.check_nan = check_nan

    def __enter__(self):
        recorders = STATE.recorders
        inner = tuple(r for r in recorders if not isinstance(r, AnomalyWatch))
        self.prev = set_recorders(inner + (AnomalyWatch(),) if self.check_nan else inner)
        return self

    def __exit__(self, *exc):
        set_recorders(self.prev)
        return False


class AnomalyWatch:
    """Anomaly mode's recorder: a creation stack per node, a check per contribution."""

    def created(self, node) -> None:
        origin_of(node).stack = creation_stack()

    def seeded(self, root, seed) -> None:
        pass

    def visit(self, node, upstream) -> None:
        pass

    def contribute(self, node, parent, slot, local, before, after) -> None:
        if _not_finite(local):  # name the op whose rule made it
            raise anomaly_error(node, parent, slot, local)


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


def creation_stack() -> list[traceback.FrameSummary]:
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
    stack = None if node.origin is None else node.origin.stack
    if stack:
        lines.append("The node was created here:")
        lines.extend(traceback.format_list(stack[-6:]))
    else:
        lines.append(
            "No creation stack: the node was built outside detect_anomaly(); build the "
            "forward pass inside it as well to see where."
        )
    return AnomalyError("\n".join(line.rstrip("\n") for line in lines))


def _not_finite(x) -> bool:
    if x.__class__ is OutputGrads:  # what an output sends its multi-output record
        return not x.finite()
    if hasattr(x, "engine_class"):  # a create_graph pass: look at the node's value
        x = x.data
    if isinstance(x, np.ndarray):
        return not np.isfinite(x).all()
    return not math.isfinite(x)


def _has_nan(x) -> bool:
    if hasattr(x, "engine_class"):  # a node (a create_graph pass): its value
        x = x.data
    if isinstance(x, np.ndarray):
        return bool(np.isnan(x).any())
    return x != x

"""Writing a file so that an interruption never leaves half of it.

A model or a training history written straight to its name is truncated if the
process is stopped mid-write (Ctrl-C, a full disk, a killed kernel), and the
previous good copy is gone too.  ``atomic_write`` writes to a temporary file
beside the target and renames it over the target only once it is complete: a
rename within one folder replaces the file in one step, so the name always holds
either the old file or the new one.
"""

from __future__ import annotations

import os
import uuid
from contextlib import contextmanager

__all__ = ["atomic_write"]


@contextmanager
def atomic_write(path, mode: str = "wb", **open_kwargs):
    """``with atomic_write(path) as fh: ...`` writes ``path`` all at once, or not at all.

    On an exception (``KeyboardInterrupt`` included) the temporary file is removed
    and ``path`` is left as it was.  ``mode`` is ``"wb"`` or ``"w"``.
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_write: mode must be 'w' or 'wb', got {mode!r}")
    path = os.fspath(path)
    folder, name = os.path.split(os.path.abspath(path))
    tmp = os.path.join(folder, f".{name}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        # "x": a new file, created with the usual permissions (umask), never someone else's
        with open(tmp, mode.replace("w", "x"), **open_kwargs) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise

"""The counts that tell ``choose.py`` which backward loop a pass needs.

Each is a process-wide number kept up to date by the feature it belongs to,
and read in one place only: ``engines/choose.py``, once per backward call.
While they are all zero, which is the usual case, backward runs the fast loop
and pays nothing for the features.

* ``hooked_nodes``: live nodes with gradient hooks (``register_hook``; kept
  by ``hooked.py``).  Nonzero: the hooked loop runs, which calls them.
* ``retaining_nodes``: live nodes on which ``retain_grad()`` was called (kept by
  ``hooked.py``).  Nonzero: backward keeps their ``.grad`` across the pass, whichever
  loop runs (their gradients add up across passes, as a leaf's do).
* ``packed_records``: live saved records packed by ``saved_tensors_hooks``
  (kept by ``autograd/saved.py``).  Nonzero: the reference loop runs, which
  unpacks them (the fast loops read ``node.saved`` as plain tuples).
* ``latest_inplace_change``: the stamp (a node id) of the latest in-place
  change to a tensor (kept by ``inplace.py``).  Newer than a graph's
  oldest node: backward first checks the graph for stale saved arrays.

Recorders (``autograd.record``, anomaly mode) are the other thing ``choose``
reads; they live with grad mode in ``core/modes.py``, because node
construction reads them too.
"""

from __future__ import annotations

import threading

__all__ = ["SWITCHES", "count_hooked", "count_retaining", "count_packed",
           "stamp_inplace_change"]


class Switches:
    __slots__ = ("hooked_nodes", "retaining_nodes", "packed_records", "latest_inplace_change")

    def __init__(self):
        self.hooked_nodes = 0
        self.retaining_nodes = 0
        self.packed_records = 0
        self.latest_inplace_change = 0


SWITCHES = Switches()
_lock = threading.Lock()
# (re-entrant and apart from ``_lock``: a packed record's ``__del__`` counts down, and
# it may run wherever a reference is dropped, in any thread, lock held or not)
_packed_lock = threading.RLock()


def count_hooked(delta: int) -> None:
    """A node gained its first gradient hook (+1) or lost its last one (-1)."""
    with _lock:
        SWITCHES.hooked_nodes += delta


def count_retaining(delta: int) -> None:
    """A node started retaining its gradient (+1), or died retaining it (-1)."""
    with _lock:
        SWITCHES.retaining_nodes += delta


def count_packed(delta: int) -> None:
    """A packed saved record was made (+1) or freed (-1)."""
    with _packed_lock:
        SWITCHES.packed_records += delta


def stamp_inplace_change(stamp: int) -> None:
    """Some tensor changed in place; ``stamp`` is newer than every node made before."""
    SWITCHES.latest_inplace_change = stamp

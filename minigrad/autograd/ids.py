"""Node ids: one process-wide counter.

Every node gets the next number when it is made, never ``id()`` (which Python
reuses), so renderers and tests name nodes the same way run after run.  Because
an op's inputs exist before its output, a parent's id is always smaller than
its children's: sorting by id is a topological order (``graph.py``).  In-place
changes are stamped from the same counter (``inplace.py``).
"""

import itertools

__all__ = ["next_id"]

next_id = itertools.count(1).__next__

"""In-place changes, tracked the way PyTorch's version counters are.

``t += 1`` under ``no_grad()``, an optimizer step or ``load_state_dict``
overwrite arrays that a graph built earlier may have saved for backward
(``x * w`` saves ``w``, ``x @ w.T`` a view of it).  Backward must then refuse
to run on stale values instead of returning a wrong gradient.

It costs nothing per op: ``mark_modified`` stamps the changed tensor with a
fresh value of the same counter that numbers nodes, so "changed after node
``n`` was made" is simply ``stamp > n.id``; backward then checks whether ``n``
saved memory of it (``check_unmodified``).  Writing to ``t.data`` yourself is
not tracked, as in PyTorch.
"""

from __future__ import annotations

import weakref
from functools import partial

import numpy as np

from ..core.node import next_id
from .switches import stamp_inplace_change

__all__ = ["mark_modified", "changed_since", "check_unmodified"]

#: id(node) -> (weak reference to it, stamp of its latest in-place change), for
#: live nodes only: an entry leaves when its node dies.
_CHANGED: dict = {}


def mark_modified(nodes) -> None:
    """Record that these tensors' ``data`` just changed in place."""
    stamp = next_id()
    for node in nodes:
        key = id(node)
        _CHANGED[key] = (weakref.ref(node, partial(_forget, key)), stamp)
    stamp_inplace_change(stamp)


def _forget(key, ref) -> None:
    entry = _CHANGED.get(key)
    if entry is not None and entry[0] is ref:  # not a newer node that reused the id
        del _CHANGED[key]


def changed_since(first_id: int) -> list:
    """``[(node, stamp)]`` for live nodes changed in place after node ``first_id`` was made."""
    out = []
    for ref, stamp in list(_CHANGED.values()):
        if stamp > first_id:
            node = ref()
            if node is not None:
                out.append((node, stamp))
    return out


def check_unmodified(order) -> None:
    """Refuse a graph whose saved arrays were changed in place after they were saved.

    ``y = x * w`` saves ``w`` for ``dy/dx = w``; an optimizer step or ``w -= ...``
    under ``no_grad()`` before ``y.backward()`` would make that gradient use the
    new ``w`` silently.  PyTorch raises here too ("modified by an inplace
    operation").  A node made before the stamp is stale if one of its saved
    arrays shares memory with the changed data, which also catches what an op
    saved through a view (``x @ w.T``, ``w[0]``, ``w.detach()``).

    It is conservative: ops keep all their inputs (``mul`` saves both), so a
    changed saved input is refused even if only the gradient that does not use
    it is needed.  PyTorch saves per requested gradient and refuses a bit less.
    """
    # (``choose.run_backward`` calls this only when the latest in-place change is newer
    # than the graph's oldest node: one comparison a pass, made there)
    changed = changed_since(order[0].id)
    if not changed:
        return
    for node in order:
        saved = node.saved
        if not saved:
            continue
        arrays = [s for s in saved if isinstance(s, np.ndarray)]
        for tensor, stamp in changed:
            if stamp > node.id and _overlaps(arrays, tensor.data):
                label = f" '{tensor.label}'" if tensor.label else ""
                direct = any(p is tensor for p in node.parents)
                raise RuntimeError(
                    f"backward(): tensor #{tensor.id}{label} of shape {tensor.data.shape} was "
                    f"changed in place (by an optimizer step, load_state_dict or a `+=`-style "
                    f"update under no_grad()) after op '{node.op.name}' (node #{node.id}) "
                    f"saved {'it' if direct else 'a view of it'} for backward: the gradients "
                    f"would silently mix the old forward pass with the new values. Call "
                    f"backward() before updating, or recompute the forward pass after it.")


def _overlaps(arrays, data) -> bool:
    """Whether any of ``arrays`` shares memory with ``data`` (exactly, within reason)."""
    for a in arrays:
        if np.may_share_memory(a, data):  # cheap bounds test first
            try:
                if np.shares_memory(a, data, max_work=10_000):
                    return True
            except np.exceptions.TooHardError:
                return True
    return False

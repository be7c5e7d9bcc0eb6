"""How a node's saved values are drawn: one box per array, its settings in one box.

A saved array is data the backward reads (``x = input 0`` and its shape): it gets a box
of its own.  Settings (sizes, strides, a dim, a flag) are what a rule needs to know how,
not what, to compute: PyTorch's ``mm`` keeps four of them, and four boxes with four
dashed edges crowd the picture more than one box of four rows.  Both renderers draw
these boxes (``viz.render.dot``, ``viz.render.svg_draw``); the view, the text tree and
the stepper's panel keep one ``SavedItem`` per value.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["SavedBox", "saved_boxes"]


@dataclass(frozen=True, slots=True)
class SavedBox:
    """One box of saved values as the pictures draw it: its id is its first value's
    (``s_<id>_<k>``), its rows what it says."""

    key: str
    index: int
    rows: tuple


def saved_boxes(items) -> list[SavedBox]:
    """The boxes a node's saved values (``SavedItem``s) are drawn in: each array its own,
    and the node's settings, when it saved two or more, together in one box, a row each,
    with the id of the first of them (the player hides and fades it with its node)."""
    settings = [s for s in items if s.setting and s.alias is None]
    if len(settings) < 2:
        settings = []
    out = []
    for s in items:
        if settings and s is settings[0]:
            out.append(SavedBox(s.key, s.index, tuple(t.head for t in settings)))
        elif all(s is not t for t in settings):
            out.append(SavedBox(s.key, s.index, tuple(s.rows)))
    return out

"""``rankdir="auto"``: draw a graph left to right or top to bottom, whichever reads best.

Drawn left to right (LR) a graph is as wide as it is deep; top to bottom (TB)
it is as wide as its widest layer.  A screen is wide but not that wide: the
scalar MLP 3-4-4-1 of the lessons is 17 ranks deep, 4,800 px wide in LR, and a
browser shrinks it to a third of its size to fit a 1,400 px window.  Top to
bottom, with each scalar node's fields stacked (``viz.render.dot``), it is 1,900 px.

The rule:

* LR while the estimated LR width fits ``TARGET_PT`` (a 1,400 px window less
  margins): small graphs read left to right, the way the lessons draw them;
* otherwise the direction with the smaller width: the player fits the
  picture to the window's width, so a narrower picture means bigger text (a
  taller one scrolls vertically, which pages do anyway).

The estimate needs no layout: a node's size from its label's text (characters
times an average Helvetica width, lines times a line height); its rank from
the longest path from the inputs, except that a leaf sits one rank before its
first consumer (where dot puts it).  LR width is the sum over ranks of the
widest node, TB width the widest rank's sum of node widths, plus dot's gaps.
"""

from __future__ import annotations

import html
import re

__all__ = ["TARGET_PT", "choose_rankdir", "estimate", "label_size", "ranks"]

#: the width (points, 1 pt = 4/3 px) a picture may have and still be read unscaled
TARGET_PT = 1000.0
CHAR_PT = 6.2  # an average character of 11 pt Helvetica (digits are 6.1)
PAD_PT = 10.0  # a cell's padding and borders
LINE_PT = 14.0  # one line of text
NODESEP_PT, RANKSEP_PT = 18.0, 25.0  # viz.render.dot's nodesep=0.25, ranksep=0.35 (inches)

_ROW = re.compile(r"<tr>(.*?)</tr>", re.S)
_CELL = re.compile(r"<td\b[^>]*>(.*?)</td>", re.S)
_BR = re.compile(r"<br\b[^>]*/?>")
_TAG = re.compile(r"<[^>]+>")


def label_size(label: str) -> tuple[float, float]:
    """``(width, height)`` in points of a DOT HTML-like table label, estimated from its text."""
    width = height = 0.0
    for row in _ROW.findall(label):
        w = h = 0.0
        for cell in _CELL.findall(row):
            lines = [html.unescape(_TAG.sub("", part)) for part in _BR.split(cell)]
            w += max(len(line) for line in lines) * CHAR_PT + PAD_PT
            h = max(h, len(lines) * LINE_PT + PAD_PT)
        width, height = max(width, w), height + h
    return width, height


def ranks(keys, edges) -> dict:
    """``{key: rank}``: longest path from the inputs; a leaf one rank before its first consumer.

    ``edges`` are ``(source, target)`` pairs between ``keys``; the walk is
    iterative (Kahn's order), so deep graphs are fine.
    """
    keys = list(keys)
    into = {k: 0 for k in keys}
    out: dict = {k: [] for k in keys}
    for src, dst in edges:
        out[src].append(dst)
        into[dst] += 1
    leaves = [k for k in keys if into[k] == 0]
    rank = {k: 0 for k in keys}
    ready = list(leaves)
    while ready:
        k = ready.pop()
        for dst in out[k]:
            rank[dst] = max(rank[dst], rank[k] + 1)
            into[dst] -= 1
            if into[dst] == 0:
                ready.append(dst)
    for k in leaves:
        if out[k]:
            rank[k] = min(rank[dst] for dst in out[k]) - 1
    return rank


def estimate(sizes: dict, rank: dict, rankdir: str) -> tuple[float, float]:
    """``(width, height)`` in points of the picture, for ``sizes`` ``{key: (w, h)}``."""
    layers: dict[int, list] = {}
    for k, size in sizes.items():
        layers.setdefault(rank.get(k, 0), []).append(size)
    along, across = [], []  # per rank: its extent along the ranks, its extent across them
    vertical = rankdir in ("TB", "BT")
    for sizes_in_rank in layers.values():
        if vertical:
            along.append(max(h for _, h in sizes_in_rank))
            across.append(sum(w for w, _ in sizes_in_rank))
        else:
            along.append(max(w for w, _ in sizes_in_rank))
            across.append(sum(h for _, h in sizes_in_rank))
        across[-1] += NODESEP_PT * (len(sizes_in_rank) - 1)
    deep = sum(along) + RANKSEP_PT * max(0, len(along) - 1)
    wide = max(across, default=0.0)
    return (wide, deep) if vertical else (deep, wide)


def choose_rankdir(sizes_lr: dict, sizes_tb: dict, edges) -> str:
    """``"LR"`` or ``"TB"`` for a graph whose nodes measure ``sizes_lr`` drawn left to
    right and ``sizes_tb`` top to bottom (``{key: (w, h)}`` in points; see the module doc)."""
    rank = ranks(sizes_lr, edges)
    lr_width = estimate(sizes_lr, rank, "LR")[0]
    if lr_width <= TARGET_PT:
        return "LR"
    return "TB" if estimate(sizes_tb, rank, "TB")[0] < lr_width else "LR"

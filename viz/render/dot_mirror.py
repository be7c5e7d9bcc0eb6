"""Module frames in the model's order in ``dot``'s pictures: its layout, mirrored.

``dot`` orders each rank to remove crossings, and where two orders cross as little
(sibling frames side by side, ``layers.0`` beside ``layers.1``) it settles ties its own
way: micrograd's demo MLP comes out ``layers.2``, ``layers.1``, ``layers.0`` left to right.
Nothing in the DOT text can tell it the order of sibling clusters: emitting them in
another order only moves the tie, and an invisible edge between two clusters on one rank
(the usual way to order nodes) is dropped when dot builds its cluster skeletons
(graphviz's ``class2``: an inter-cluster edge whose ends share a rank is not kept).

A mirror image has exactly the crossings of the picture it mirrors.  So when the frames
``dot`` drew side by side are more often against the model's order than with it
(``against``: pairs of sibling frames that share ranks, ``layers.9`` before
``layers.10``, numbers compared as numbers), ``mirrored_svg`` takes dot's layout
(``dot -Tdot``: every position), mirrors it across the ranks, and has graphviz draw it as
it is (``neato -n2``, which keeps given positions): the same boxes, edges and frames,
in the model's order, its text reading the right way.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from ..layout.crossings import natural
from .view import cluster_key

__all__ = ["against", "frame_boxes", "mirror_layout"]

_SVG = "{http://www.w3.org/2000/svg}"
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def frame_boxes(svg: str) -> dict:
    """``{frame id: (x0, y0, x1, y1)}`` of each module frame (``c_…``) drawn in ``svg``."""
    out = {}
    for g in ET.fromstring(svg).iter(f"{_SVG}g"):
        if "cluster" not in (g.get("class") or "").split():
            continue
        for shape in g:
            spec = shape.get("points") or shape.get("d")
            if shape.tag == f"{_SVG}rect":
                x, y = float(shape.get("x")), float(shape.get("y"))
                out[g.get("id")] = (x, y, x + float(shape.get("width")),
                                    y + float(shape.get("height")))
                break
            if spec:
                nums = [float(v) for v in _NUMBER.findall(spec)]
                xs, ys = nums[0::2], nums[1::2]
                out[g.get("id")] = (min(xs), min(ys), max(xs), max(ys))
                break
    return out


def against(view, svg: str, rankdir: str) -> tuple[int, int]:
    """``(against, along)``: pairs of sibling frames drawn side by side (sharing some
    ranks) against the model's order, and with it, across the picture (left to right
    drawn top to bottom, top to bottom drawn left to right)."""
    boxes = frame_boxes(svg)
    across, flow = (1, 0) if rankdir in ("LR", "RL") else (0, 1)
    kids: dict = {}
    for c in view.clusters:
        kids.setdefault(c.path[:-1], []).append(c.path)
    bad = good = 0
    for paths in kids.values():
        paths = sorted((p for p in paths if cluster_key(p) in boxes), key=natural)
        for i, a in enumerate(paths):
            for b in paths[i + 1:]:
                A, B = boxes[cluster_key(a)], boxes[cluster_key(b)]
                if min(A[flow + 2], B[flow + 2]) - max(A[flow], B[flow]) <= 1:
                    continue  # one after the other along the flow: no order across
                if A[across] > B[across]:
                    bad += 1
                else:
                    good += 1
    return bad, good


_BB = re.compile(r'\bbb="([-\d.e+]+),([-\d.e+]+),([-\d.e+]+),([-\d.e+]+)"')
_GRAPH_ATTRS = re.compile(r"\bgraph \[(.*?)\];", re.S)
_POSITIONS = re.compile(r'\b(pos|lp|xlp|head_lp|tail_lp)="([^"]*)"')


def mirror_layout(laid: str, rankdir: str) -> str:
    """``laid`` (``dot -Tdot``'s output: DOT with every position) mirrored across the
    ranks: left and right swapped when drawn top to bottom, top and bottom when drawn
    left to right.  A frame's title keeps its place from the frame's left (or top)."""
    laid = laid.replace("\\\n", "")  # (dot breaks long strings with a backslash)
    k = 1 if rankdir in ("LR", "RL") else 0
    whole = [float(v) for v in _BB.search(laid).groups()]
    lo, hi = whole[k], whole[k + 2]

    def flip(v: float) -> float:
        return lo + hi - v

    def point(p: str) -> str:
        parts = p.split(",")
        head = parts[:1] if parts[0] in ("e", "s") else []  # an arrow's end: "e,x,y"
        xy = parts[len(head):]
        xy[k] = f"{flip(float(xy[k])):.2f}"
        return ",".join(head + xy)

    def graph_block(m) -> str:
        body = m.group(1)
        bb = _BB.search(body)
        if bb is None:
            return m.group(0)
        box = [float(v) for v in bb.groups()]
        shift = flip(box[k + 2]) - box[k]  # where its low edge goes
        box[k], box[k + 2] = box[k] + shift, box[k + 2] + shift
        body = body.replace(bb.group(0), 'bb="' + ",".join(f"{v:.2f}" for v in box) + '"')

        def title(t):
            xy = [float(v) for v in t.group(2).split(",")]
            xy[k] += shift
            return f'{t.group(1)}="{xy[0]:.2f},{xy[1]:.2f}"'

        body = re.sub(r'\b(lp)="([-\d.e+]+,[-\d.e+]+)"', title, body)
        return f"graph [{body}];"

    out, at = [], 0
    for m in _GRAPH_ATTRS.finditer(laid):
        out.append(_POSITIONS.sub(
            lambda p: f'{p.group(1)}="' + " ".join(map(point, p.group(2).split())) + '"',
            laid[at:m.start()]))
        out.append(graph_block(m))
        at = m.end()
    out.append(_POSITIONS.sub(
        lambda p: f'{p.group(1)}="' + " ".join(map(point, p.group(2).split())) + '"',
        laid[at:]))
    return "".join(out)

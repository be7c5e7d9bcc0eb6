"""What a click on a node shows: its value, formula and saved values (the inspector).

The player (``viz/assets/player.js``) shows, under the graph, the node a student
clicked: its name and op, its value, its gradient *at the current step* (the
player knows that one: the node's gradient text), the formula that made it and
what its op saved for backward.  All but the gradient are fixed over a replay,
so they are computed once here, one small dict per drawn node:

``{"e": element index, "n": name, "k": kind, "v": value, "f": formula, "s": [saved, ...]}``

The formula is the forward step's own sentence (``mul: e = a × b = 2.0000 ×
-3.0000 = -6.0000``, ``viz.stepper.narration``), so the inspector and the panel
say the same thing; a replay without forward steps (``mode="backward"``) writes
the op applied to its inputs' names.
"""

from __future__ import annotations

from ..render.view import build_view, node_key

__all__ = ["node_info"]


def node_info(frames, options) -> list[dict]:
    """The inspector's text for every node of ``frames`` (``DisplayOptions``: ``options``,
    for the digits and the saved values as recorded)."""
    view = build_view(frames.roots, options=options, show_saved=True)  # (drawn or not)
    created = {f.node: f.text for f in frames.frames if f.kind == "created"}
    index = {el: i for i, el in enumerate(frames.elements)}
    out = []
    for node in frames.nodes:
        key = node_key(node)
        vn = view.by_id.get(node.id)
        if vn is None or key not in index:
            continue
        name = frames.name(node)
        value = vn.data if vn.data is not None else "(not kept)"
        if vn.example is not None:  # inside vmap: which example's values these are
            value = f"{vn.example}: {value}"
        if vn.shape is not None:
            value = f"{value}  (shape {vn.shape}, {vn.dtype})"
        out.append({"e": index[key], "n": name, "k": _kind(vn), "v": value,
                    "f": created.get(node.id) or _formula(frames, vn, name),
                    "s": _saved(vn)})
    return out


def _kind(vn) -> str:
    if vn.op is None:
        return "leaf parameter" if vn.requires_grad else "leaf constant"
    return vn.op


def _formula(frames, vn, name: str) -> str:
    if vn.op is None:
        return f"{name}: a leaf, made by you, not by an op"
    by_id = {n.id: n for n in frames.nodes}
    args = ", ".join(frames.name(by_id[i]) if i in by_id else f"#{i}" for i in vn.inputs)
    return f"{name} = {vn.symbol or vn.op}({args})"


def _saved(vn) -> list[str]:
    if vn.saved is None:
        return ["released after its node's backward"]
    return [item.line for item in vn.saved]

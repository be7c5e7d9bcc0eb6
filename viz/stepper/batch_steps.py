"""A vmapped function in a replay: one node per op, each standing for a whole batch.

``minigrad.func.vmap(f)`` runs ``f`` once, on tensors whose data are batches
(``viz.render.batches``), so the recorded graph is ``f``'s own graph, drawn once, and
every step shows one example's shape beside the batch's.  Two internal ops mark the
way in and out (``move_batch``, drawn ``vmap↓ dim 0`` and ``vmap↑ dim 0``): in, axis
``dim`` of an input becomes the batch; out, the per-example results are stacked along
axis ``dim`` (``out_dims``).  The words for them are written here:

* the forward pass's first step says which axis is the batch: ``vmap over 5 examples:
  batch axis 0 of x; not mapped (shared by every example): w`` (``vmap_summary``);
  the inputs that are *not* mapped are the nodes made before the vmap ran (a vmap's
  level is the first node id of its run) that an op inside it reads;
* the creation of a ``move_batch`` node says what moved (``move_text``);
* backward: an input shared by every example gets the *sum* of the examples'
  contributions, as for any input broadcast over an axis (``shared_note``).

The values a step shows are one example's: the first, or the one ``example=`` picks
(``step_through(vmap(f), *inputs, example=2)``: "example 2 of 5"; the frames' view holds
the choice, ``GraphView.examples``, and the panel and the drawn grads read it).
"""

from __future__ import annotations

from ..render.batches import batch_sizes, is_batched, shape_text
from ..render.numbers import format_shape

__all__ = ["is_move", "move_text", "vmap_summary", "shared_note", "seed_note"]


def is_move(node) -> bool:
    """Whether ``node`` moves a batch axis into or out of a vmap (op ``move_batch``)."""
    op = getattr(node, "op", None)
    return op is not None and op.name == "move_batch"


def _level(data) -> int | None:
    """The innermost vmap level of a batch (``None``: not batched)."""
    return data.level if is_batched(data) else None


def move_text(node, name) -> str:
    """What the creation of a ``move_batch`` node says (``name``: how the panel names a
    node)."""
    attrs = node.attrs or {}
    dim, size = attrs.get("dim"), attrs.get("size")
    src = node.parents[0]
    if attrs.get("into"):
        return (f"vmap in: axis {dim} of {name(src)} is the batch axis: {size} examples, "
                f"each of shape {format_shape(node.data.shape)}.\n{name(node)} = "
                f"{shape_text(node.data)}: the ops that follow run once, on all {size} "
                f"examples at a time (the batch is held in front), and each node shows one "
                f"example's shape beside the batch's.")
    what = (f"{name(src)} ({shape_text(src.data)})" if is_batched(src.data) else
            f"{name(src)} (the same for every example, so repeated)")
    return (f"vmap out: the {size} per-example results {what} are stacked along axis "
            f"{dim} (out_dims={dim}): {name(node)} has shape "
            f"{format_shape(node.data.shape)}.")


def vmap_summary(nodes, name) -> str:
    """One line per vmap the graph ran: its batch axes and its inputs not mapped
    (``""``: no vmap).  ``nodes``: every node of the replay."""
    lines = []
    for level in sorted({n.attrs["level"] for n in nodes if is_move(n) and n.attrs}):
        moves = [n for n in nodes if is_move(n) and n.attrs.get("level") == level]
        into = [n for n in moves if n.attrs.get("into")]
        outs = [n for n in moves if not n.attrs.get("into")]
        size = moves[0].attrs.get("size")
        axes = "; ".join(f"batch axis {n.attrs['dim']} of {name(n.parents[0])}" for n in into)
        shared = []
        for n in nodes:
            if is_move(n) or _level(n.data) != level:
                continue
            for p in n.parents:
                # (made before the vmap, or a leaf made inside it to differentiate, as
                # grad's copy of its input: not a constant the function made)
                outside = p.id < level or (p.op is None and p.requires_grad)
                if outside and _level(p.data) != level and p not in shared:
                    shared.append(p)
        text = f"vmap over {size} examples: {axes or 'its inputs are constants'}"
        if shared:
            text += (f"; not mapped (shared by every example): "
                     f"{', '.join(_shared_name(p, nodes, name) for p in shared)}")
        if outs:
            text += f"; out_dims {', '.join(str(n.attrs['dim']) for n in outs)}"
        lines.append(text + ".")
    return "\n".join(lines)


def _shared_name(p, nodes, name) -> str:
    """A shared input by name; a leaf made inside the vmap on the values of a node made
    before it (``grad(f)`` differentiates such a copy of its input) says whose."""
    source = next((q for q in nodes if q.id < p.id and q.data is p.data), None)
    if source is None:
        return name(p)
    return f"{name(p)} (a leaf on {name(source)}'s values, as grad makes to differentiate)"


def shared_note(local, after, parent, name) -> str:
    """What a batch's contribution ``local`` to a node made outside the vmap says: the
    examples' contributions were summed into its gradient ``after`` (``""`` when they
    were not: no batch, or a backward pass run inside the vmap, per example)."""
    if not is_batched(local) or is_batched(after):
        return ""
    sizes = batch_sizes(local)
    return (f" ({name(parent)} is not mapped: it is shared by every example, so the "
            f"{' × '.join(map(str, sizes))} examples' contributions are summed)")


def seed_note(node) -> str:
    """What the seed of a vmapped function's stacked output adds: one 1 per example."""
    if not is_move(node) or (node.attrs or {}).get("into"):
        return ""
    return ("\nOne 1 per example: each example's own backward pass, all at once (an input "
            "mapped over gets one gradient per example; one not mapped, their sum).")

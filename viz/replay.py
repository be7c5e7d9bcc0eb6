"""Which recorded events a replay shows, and as what (``viz.frames`` reads this).

A tape is one list of events: ``created`` for every node, then for each
backward pass a ``seeded`` event and its ``visit``/``contribute`` events.  A
replay sorts the nodes into two kinds:

* the **forward** nodes: created outside every backward pass; the forward
  replay shows them appear, one per step;
* the **built** nodes: made by a ``create_graph`` backward pass (derivative
  order >= 1, ``node.origin.made_by`` names the edge whose rule made them),
  together with the seed ``dL/dL = 1`` such a pass starts from.  The backward
  replay shows each appear at the moment it was made, between the edges of
  the walk: the gradient's graph being built.

Nodes created during a plain backward pass (a custom Function's backward
computing with Tensors) belong to neither: the engine throws them away, and
so does the replay.  A pass runs from its ``seeded`` event to its last edge
event; nodes created between two passes (the next step's forward) are forward
nodes, unless they have an order (a sum of gradients a second pass starts from).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .view import is_node

__all__ = ["Replay", "split_events"]


@dataclass
class Replay:
    """The events of a tape, sorted for the frames (see the module doc)."""

    forward: list = field(default_factory=list)  # forward nodes, in creation order
    built: list = field(default_factory=list)  # nodes built by create_graph passes, in order
    seeds: set = field(default_factory=set)  # ids of seed nodes (shown at their pass's seed)
    events: list = field(default_factory=list)  # what the backward replay walks
    roots: list = field(default_factory=list)  # the outputs: what the view is built from

    @property
    def builds(self) -> bool:
        """Whether a backward pass built a graph (``create_graph=True``)."""
        return bool(self.built)


def _spans(events) -> set[int]:
    """Indices of the events inside a backward pass (seed to last edge)."""
    marks = [i for i, e in enumerate(events) if e.kind != "created"]
    span = set()
    starts = [i for i in marks if events[i].kind == "seeded"] or marks[:1]
    for k, start in enumerate(starts):
        stop = starts[k + 1] if k + 1 < len(starts) else len(events)
        span.update(range(start, max(i for i in marks if start <= i < stop) + 1))
    return span


def split_events(events, mode: str) -> Replay:
    """Sort ``events`` (a tape's) into forward nodes, built nodes and the backward walk;
    ``mode="forward"`` leaves the built nodes out of the graph altogether."""
    span = _spans(events)
    seeds = {e.grad.id for e in events if e.kind == "seeded" and is_node(e.grad)
             and e.grad.op is None and not e.grad.requires_grad and e.grad.origin is None}
    out = Replay(seeds=seeds)
    for i, e in enumerate(events):
        if e.kind != "created":
            out.events.append(e)
            continue
        n = e.node
        if n.order >= 1 or n.id in seeds:
            out.built.append(n)
            if n.id not in seeds:  # (a seed appears with its pass's "seeded" step)
                out.events.append(e)
        elif i not in span:
            out.forward.append(n)
    kept = out.forward + (out.built if mode != "forward" else [])
    used = {p.id for n in kept for p in n.parents}
    roots = [n for n in kept if n.id not in used]
    seen = {n.id for n in roots}
    if mode == "forward":  # (a pass through a gradient's graph starts from a built node)
        seen.update(n.id for n in out.built)
    for e in events:
        if e.kind == "seeded" and e.node.id not in seen:
            roots.append(e.node)
            seen.add(e.node.id)
    out.roots = roots
    return out

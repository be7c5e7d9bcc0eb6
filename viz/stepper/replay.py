"""Which recorded events a replay shows, and as what (``viz.stepper.frames`` reads this).

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

A checkpointed block (``minigrad.checkpoint``) is one node in the forward graph;
when backward visits it, it runs the block again (``created`` events: the
**recomputed** nodes) and a backward pass through the block alone (a *nested*
``seeded`` event, inside the visit).  The replay keeps both in the walk: the
recomputed nodes appear at that point, and the nested seed starts no new pass
(``Replay.outer``); ``viz.stepper.checkpoint_steps`` says what the frames show.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..render.view import is_node

__all__ = ["Replay", "split_events"]


@dataclass
class Replay:
    """The events of a tape, sorted for the frames (see the module doc)."""

    forward: list = field(default_factory=list)  # forward nodes, in creation order
    built: list = field(default_factory=list)  # nodes built by create_graph passes, in order
    seeds: set = field(default_factory=set)  # ids of seed nodes (shown at their pass's seed)
    events: list = field(default_factory=list)  # what the backward replay walks
    roots: list = field(default_factory=list)  # the outputs: what the view is built from
    recomputed: list = field(default_factory=list)  # nodes a checkpoint's recompute made
    block_of: dict = field(default_factory=dict)  # recomputed node id -> its checkpoint node
    nested: set = field(default_factory=set)  # id() of the seeded events inside a recompute

    def outer(self, e) -> bool:
        """Whether ``e`` starts a backward pass: a ``seeded`` event not inside a recompute."""
        return e.kind == "seeded" and id(e) not in self.nested

    def crosses(self, e) -> bool:
        """Whether ``e`` is a recomputed block's contribution to a node outside the block:
        the block's gradient for one of its inputs, which the checkpoint node then hands
        on as its own contribution (so it is not counted as one more)."""
        block = self.block_of.get(e.node.id) if e.kind == "contribute" else None
        return block is not None and self.block_of.get(e.parent.id) is not block

    @property
    def builds(self) -> bool:
        """Whether a backward pass built a graph (``create_graph=True``)."""
        return bool(self.built)


def _recomputes(events) -> tuple[dict, set]:
    """``({recomputed node id: checkpoint node}, {id() of nested seeded events})``: what
    happened while backward visited a checkpoint node, up to its first contribution."""
    block_of, nested, open_ = {}, set(), []  # open_: checkpoint nodes being visited
    for e in events:
        kind = e.kind
        if kind == "visit":
            while open_ and block_of.get(e.node.id) is not open_[-1]:
                open_.pop()  # (a block with no contribution of its own is over too)
            if e.node.op is not None and e.node.op.name == "checkpoint":
                open_.append(e.node)
        elif kind == "created" and open_ and e.node.order == open_[-1].order:
            block_of[e.node.id] = open_[-1]
        elif kind == "seeded" and open_:
            nested.add(id(e))
        elif kind == "contribute" and open_ and e.node is open_[-1]:
            open_.pop()
    return block_of, nested


def _spans(events, nested=frozenset()) -> set[int]:
    """Indices of the events inside a backward pass (seed to last edge)."""
    marks = [i for i, e in enumerate(events) if e.kind != "created"]
    span = set()
    starts = [i for i in marks if events[i].kind == "seeded" and id(events[i]) not in nested
              ] or marks[:1]
    for k, start in enumerate(starts):
        stop = starts[k + 1] if k + 1 < len(starts) else len(events)
        span.update(range(start, max(i for i in marks if start <= i < stop) + 1))
    return span


def split_events(events, mode: str) -> Replay:
    """Sort ``events`` (a tape's) into forward nodes, built nodes and the backward walk;
    ``mode="forward"`` leaves the built nodes out of the graph altogether."""
    block_of, nested = _recomputes(events)
    span = _spans(events, nested)
    seeds = {e.grad.id for e in events if e.kind == "seeded" and is_node(e.grad)
             and e.grad.op is None and not e.grad.requires_grad and e.grad.origin is None}
    out = Replay(seeds=seeds, block_of=block_of, nested=nested)
    for i, e in enumerate(events):
        if e.kind != "created":
            out.events.append(e)
            continue
        n = e.node
        if n.id in block_of:
            out.recomputed.append(n)
            out.events.append(e)
        elif n.order >= 1 or n.id in seeds:
            out.built.append(n)
            if n.id not in seeds:  # (a seed appears with its pass's "seeded" step)
                out.events.append(e)
        elif i not in span:
            out.forward.append(n)
    kept = out.forward + (out.built + out.recomputed if mode != "forward" else [])
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

"""Trace events: an opt-in record of everything the engine does.

While a recorder is active, the engine announces

* ``created(node)``, for every node made during the forward pass (leaves too);
* ``seeded(root, seed)``, when backward starts, with dL/dL;
* ``visit(node, upstream)``, when backward processes a node, with its gradient;
* ``contribute(node, parent, slot, local_grad, before, after)``, for every
  edge: ``local_grad = upstream · ∂node/∂parent`` was added to ``parent.grad``,
  which went from ``before`` to ``after``.

and, to a recorder that has the method (each is optional):

* ``scheduled(counts)``, when a ready-queue pass starts (``engines/ready_queue.py``), with
  ``{node id: pending contributions}``;
* ``ready(node, queue)``, when a node's count reaches zero (its last
  contribution arrived), with the ids waiting in the ready queue;
* ``hooked(node, hook, before, after)``, when a gradient hook (``engines/hooked.py``)
  replaced ``node``'s gradient ``before`` by ``after`` (``hook``: its name);
* ``dual(node, tangent)``, when ``forward_ad.make_dual`` gave ``node`` a tangent;
* ``tangent(node, op, parent, slot, incoming, contribution, total, derivative)``,
  in forward mode, for every edge that brings a tangent into a new node, right
  after the node's ``created``: ``contribution = ∂node/∂parent · incoming``
  (``incoming``: the parent's tangent; ``derivative``: the bare ∂node/∂parent
  of a scalar op, else ``None``) is that edge's share of ``total``, the node's
  tangent.  An op whose forward rule takes all inputs at once (one ``jvp``, or
  ``linear``) has no share per edge: ``slot`` and ``contribution`` are ``None``.
* ``freed(node, saved)``, when backward released what ``node``'s op saved
  (``saved``: what it held, for a memory ledger to weigh; ``memory.ledger``).

``record()`` returns a ``Tape`` that stores these events in order, which is all
the step-through widgets and the HTML player need to replay a computation.
The four classic kinds go to ``tape.events``, as they always did; the newer
ones (forward mode's ``dual`` and ``tangent`` too) to ``tape.notes``, each
with its place among the events, so that a reader of ``events`` sees only
kinds it knows.  ``tape.timeline`` has them all, in order.
With no recorder active the engine's cost is one truthiness check per op.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.modes import STATE, set_recorders
from .saved import Packed

__all__ = ["record", "Tape", "Created", "Seeded", "Visit", "Contribute", "Scheduled", "Ready",
           "Hooked", "Dual", "Tangent", "Freed"]


def _snapshot(x):
    """Copy arrays (the engine may later add into the same buffer in place)."""
    return x.copy() if isinstance(x, np.ndarray) else x


@dataclass(frozen=True)
class Created:
    """A node was made.  ``saved`` is what its op saved, by reference: backward
    releases ``node.saved``, and a replay of the forward pass still shows it."""

    node: Any
    saved: Any = None
    kind = "created"


@dataclass(frozen=True)
class Seeded:
    node: Any
    grad: Any
    kind = "seeded"


@dataclass(frozen=True)
class Visit:
    node: Any
    upstream: Any
    kind = "visit"


@dataclass(frozen=True)
class Contribute:
    """One edge of the chain rule: ``parent.grad += local_grad``.

    ``derivative`` is the bare local derivative ∂node/∂parent for scalar
    nodes (so a panel can say "∂out/∂a = b = 3.0"); ``None`` for tensors,
    where the local derivative is a Jacobian nobody wants printed.
    """

    node: Any
    parent: Any
    slot: int
    local_grad: Any
    before: Any
    after: Any
    derivative: Any = None
    kind = "contribute"


@dataclass(frozen=True)
class Scheduled:
    """A ready-queue pass starts: ``counts[id]`` contributions are pending for each node."""

    counts: dict
    kind = "scheduled"


@dataclass(frozen=True)
class Ready:
    """``node``'s last contribution arrived (its count reached zero); ``queue``: the ids
    of the nodes waiting to run, next first (a leaf is not queued: it has nothing to run)."""

    node: Any
    queue: tuple
    kind = "ready"


@dataclass(frozen=True)
class Hooked:
    """A gradient hook named ``hook`` replaced ``node``'s gradient ``before`` by ``after``."""

    node: Any
    hook: str
    before: Any
    after: Any
    kind = "hooked"


@dataclass(frozen=True)
class Dual:
    """``make_dual`` gave ``node`` the tangent ``tangent``: where forward mode starts."""

    node: Any
    tangent: Any
    kind = "dual"


@dataclass(frozen=True)
class Tangent:
    """One edge of forward mode: ``contribution = ∂node/∂parent · incoming``, that
    edge's share of ``total``, the tangent ``node`` got (the sum of its edges' shares).

    The backward panel's ``Contribute``, direction reversed: ``derivative`` is the
    bare ∂node/∂parent for a built-in scalar op, ``None`` for tensors.  ``slot``
    and ``contribution`` are ``None`` for an op whose rule takes every input's
    tangent at once (one ``jvp``, or ``linear``).  ``op`` is the op that made
    ``node``: forward mode needs no graph, so a node no graph records (no input
    requires grad) has ``node.op is None`` and no parents, and these events are
    the only record of its edges.
    """

    node: Any
    op: Any
    parent: Any
    slot: int | None
    incoming: Any
    contribution: Any
    total: Any
    derivative: Any = None
    kind = "tangent"


@dataclass(frozen=True)
class Freed:
    """Backward released what ``node``'s op saved (``node.saved`` became ``None``)."""

    node: Any
    kind = "freed"


class Tape:
    """The ordered events of one recording; replay it as often as you like.

    A tape keeps references to what it saw (nodes, what their ops saved) and
    copies of gradients, so they live as long as the tape does, after backward
    has released the graph's own references.  Record a training step to look
    at it, not a whole training run.
    """

    def __init__(self):
        self.events: list = []
        #: ids of the recorded op nodes whose saved values were gone when the recording
        #: last stopped (``None`` while it has not): a later, unrecorded backward may
        #: release more, and a replay must not show that as this recording's doing
        self.released: set | None = None
        #: ``(position, event)`` for the newer kinds (``scheduled``, ``ready``, ``hooked``,
        #: ``freed``):
        #: the event came after ``events[position - 1]`` (see the module doc)
        self.notes: list = []

    # --- recorder protocol (called by the engine) ---------------------------------
    def created(self, node) -> None:
        self.events.append(Created(node, node.saved))

    def seeded(self, node, grad) -> None:
        self.events.append(Seeded(node, _snapshot(grad)))

    def visit(self, node, upstream) -> None:
        self.events.append(Visit(node, _snapshot(upstream)))

    def contribute(self, node, parent, slot, local_grad, before, after) -> None:
        derivative = None
        # The bare derivative of a built-in scalar op is its rule at g = 1.  A custom
        # Function's backward is user code: never run it a second time behind the
        # user's back (it may have side effects), so it gets no bare derivative.
        if (
            not isinstance(local_grad, np.ndarray)
            and node.saved is not None
            and not isinstance(node.saved, Packed)  # (unpacking again is not ours to do)
            and node.op.engine == "scalar"
            and node.op.grads
        ):
            derivative = _bare_derivative(node.op, slot, node.saved, node.attrs)
        self.events.append(
            Contribute(
                node,
                parent,
                slot,
                _snapshot(local_grad),
                _snapshot(before),
                _snapshot(after),
                derivative,
            )
        )

    def scheduled(self, counts) -> None:
        self.notes.append((len(self.events), Scheduled(dict(counts))))

    def ready(self, node, queue) -> None:
        self.notes.append((len(self.events), Ready(node, tuple(queue))))

    def hooked(self, node, hook, before, after) -> None:
        self.notes.append((len(self.events), Hooked(node, hook, _snapshot(before),
                                                    _snapshot(after))))

    def dual(self, node, tangent) -> None:
        self.notes.append((len(self.events), Dual(node, _snapshot(tangent))))

    def tangent(self, node, op, parent, slot, incoming, contribution, total,
                derivative=None) -> None:
        self.notes.append((len(self.events), Tangent(
            node, op, parent, slot, _snapshot(incoming), _snapshot(contribution),
            _snapshot(total), derivative)))

    def freed(self, node, saved) -> None:
        self.notes.append((len(self.events), Freed(node)))

    def stopped(self) -> None:
        """Called when a ``with record()`` block (or ``tape.backward``) ends."""
        self.released = {e.node.id for e in self.events
                         if e.kind in ("created", "visit") and e.node.op is not None
                         and e.node.saved is None}

    # --- using a tape ------------------------------------------------------------
    def backward(self, root, gradient=None, retain_graph: bool | None = None,
                 create_graph: bool = False, *, scheduler: str = "sorted") -> None:
        """Run ``root.backward(...)`` with this tape listening (also after ``with`` ended)."""
        with _listening(self):
            root.backward(gradient, retain_graph=retain_graph, create_graph=create_graph,
                          scheduler=scheduler)

    @property
    def timeline(self) -> list:
        """Every event, the classic kinds and the notes, in the order they happened."""
        out = []
        notes = iter(self.notes)
        note = next(notes, None)
        for i, event in enumerate(self.events):
            while note is not None and note[0] <= i:
                out.append(note[1])
                note = next(notes, None)
            out.append(event)
        while note is not None:
            out.append(note[1])
            note = next(notes, None)
        return out

    @property
    def nodes(self) -> list:
        """Nodes created while recording, in creation order."""
        return [e.node for e in self.events if e.kind == "created"]

    @property
    def forward_events(self) -> list:
        return [e for e in self.events if e.kind == "created"]

    @property
    def backward_events(self) -> list:
        return [e for e in self.events if e.kind != "created"]

    @property
    def roots(self) -> list:
        """Recorded nodes that no other recorded node uses: the outputs."""
        nodes = self.nodes
        used = {id(p) for n in nodes for p in n.parents}
        return [n for n in nodes if id(n) not in used]

    def __len__(self) -> int:
        return len(self.events)

    def __iter__(self):
        return iter(self.events)

    def __repr__(self) -> str:
        counts = {"created": 0, "seeded": 0, "visit": 0, "contribute": 0}
        for e in self.events:
            counts[e.kind] += 1
        hooked = sum(1 for _, e in self.notes if e.kind == "hooked")
        extra = f", {hooked} hooked" if hooked else ""
        return (
            f"<Tape {counts['created']} created, {counts['visit']} visits, "
            f"{counts['contribute']} contributions{extra}>"
        )


def _bare_derivative(op, slot, saved, attrs):
    """∂out/∂x_slot of a built-in scalar op: its rule at g = 1 (a scalar op's forward
    and backward rules are the same, see ``tangents.py``)."""
    if saved is None or not op.grads:
        return None
    return op.grads[slot](1.0, *saved, **(attrs or {}))


class _listening:
    def __init__(self, recorder):
        self.recorder = recorder

    def __enter__(self):
        self.prev = set_recorders(STATE.recorders + (self.recorder,))
        return self.recorder

    def __exit__(self, *exc):
        set_recorders(self.prev)
        stopped = getattr(self.recorder, "stopped", None)  # optional for a recorder
        if callable(stopped):
            stopped()
        return False


def record(recorder=None):
    """``with record() as tape:`` captures every engine event inside the block.

    Pass your own object with the recorder methods (``created``, ``seeded``,
    ``visit``, ``contribute``) to listen without storing; if it also has a
    ``stopped()`` method, that is called when the block ends, and the optional
    ``scheduled``, ``ready`` and ``hooked`` are called when they happen.
    """
    if recorder is None:
        return _listening(Tape())
    if isinstance(recorder, type):
        raise TypeError(f"record(recorder): pass an instance, e.g. {recorder.__name__}(), "
                        f"not the class")
    missing = [m for m in RECORDER_METHODS if not callable(getattr(recorder, m, None))]
    if missing:
        raise TypeError(
            f"record(recorder): a recorder needs the methods {', '.join(RECORDER_METHODS)}; "
            f"{type(recorder).__name__} lacks {', '.join(missing)}. Call record() with no "
            f"argument to get a Tape")
    return _listening(recorder)


#: what the engine calls on every recorder (see the module doc)
RECORDER_METHODS = ("created", "seeded", "visit", "contribute")
#: what it calls on a recorder that has them
OPTIONAL_RECORDER_METHODS = ("scheduled", "ready", "hooked", "dual", "tangent", "freed",
                             "stopped")

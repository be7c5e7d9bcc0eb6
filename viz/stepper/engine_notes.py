"""How the engine runs, in a replay: pending counts, the ready queue and gradient hooks.

Besides its events, a tape keeps the engine's *notes* (``minigrad.autograd.trace``):
``scheduled(counts)`` when a ready-queue pass starts (``backward(...,
scheduler="ready-queue")``), ``ready(node, queue)`` when a node's last contribution
arrived, and ``hooked(node, hook, before, after)`` when a ``register_hook`` hook
replaced a gradient.  ``NoteSteps`` is the part of ``viz.stepper.frames.Frames`` that reads
them (a module of its own for the line budget; it works on the frames' state):

* **pending counts.**  In a ready-queue pass each node that waits for gradient
  shows how many contributions it still waits for, next to its gradient in the
  card (``grad — · pending 2``), counting down as they arrive; at zero it reads
  ``ready`` and the node gets the class ``ready`` until it runs (a leaf keeps it:
  its gradient is final).  The count rides on the gradient text (``Badged``), so
  the drawing, the widget and the HTML player show it with no machinery of their
  own, and the layout leaves room for the widest text a node will show.
* **the ready queue.**  Every backward step of such a pass ends its panel with the
  queue, next to run first: ``ready queue: tanh (#4), mul (#5)``.
* **hooks.**  A hook that replaced a gradient gets a step of its own (kind
  ``hooked``; the node has the class ``hooked`` in it), in either scheduler:
  ``hook `clip` on h changed its gradient: 3.2000 → 1.0000``.

A depth-first tape has no ``scheduled`` note, so its frames are what they always were.
"""

from __future__ import annotations

from ..render.view import node_key

__all__ = ["Badged", "unbadged", "NoteSteps", "note_stream"]

NOTE_KINDS = ("scheduled", "ready", "hooked")


class Badged:
    """A gradient shown with a word after it (``pending 2``, ``ready``): what a
    ready-queue replay stores as a node's gradient; ``unbadged`` gives the value back."""

    __slots__ = ("value", "note")

    def __init__(self, value, note: str):
        self.value, self.note = value, note

    def __repr__(self) -> str:
        return f"Badged({self.value!r}, {self.note!r})"


def unbadged(value):
    """The gradient itself, whether or not it carries a badge."""
    return value.value if isinstance(value, Badged) else value


def note_stream(tape, events) -> tuple[list, dict]:
    """``(stream, attached)``: ``events`` (a replay's, a subsequence of ``tape.events``)
    with the hook notes in their places, and ``{id(event): [notes]}``, the ``scheduled``
    and ``ready`` notes to apply before that event's frame is shown.

    A ``ready`` note is attached to the event just before it (the contribution that
    made the count reach zero, or the seed for the root), so that the frame showing
    that contribution shows the node ready; ``scheduled`` to the seed it precedes.
    """
    timeline = getattr(tape, "timeline", None)
    if timeline is None or not getattr(tape, "notes", None):
        return list(events), {}
    kept = {id(e) for e in events}
    stream: list = []
    attached: dict = {}
    waiting = None  # a scheduled note, for the next seed
    last = None
    for e in timeline:
        kind = e.kind
        if kind == "scheduled":
            waiting = e
        elif kind == "ready":
            if last is not None:
                attached.setdefault(id(last), []).append(e)
        elif kind == "hooked":
            stream.append(e)
        elif id(e) in kept:
            if kind == "seeded" and waiting is not None:
                attached.setdefault(id(e), []).append(waiting)
                waiting = None
            stream.append(e)
            last = e
    return stream, attached


class NoteSteps:
    """The frames' side of the notes (see the module doc); mixed into ``Frames``."""

    #: ``{node id: contributions still pending}`` in a ready-queue pass (``None``: not one)
    _pending: dict | None = None
    _queue: list | None = None
    _ran: set = frozenset()

    def _notes_from(self, tape) -> None:
        self._stream, self._attached = note_stream(tape, self._events)
        if any(n.kind == "scheduled" for notes in self._attached.values() for n in notes):
            self._queue = []  # (empty until the first seed: the line shows from the start)

    def _badge(self, node, value):
        """``value`` with the node's pending count (a ready-queue pass, before it runs)."""
        pending = self._pending
        if pending is None or node.id not in pending or node.id in self._ran:
            return value
        n = pending[node.id]
        return Badged(unbadged(value), f"pending {n}" if n else "ready")

    def _rebadge(self, node) -> None:
        pos = self._node_pos.get(node.id)
        if pos is not None:
            code = self._gcur[pos]
            self._grad(node, unbadged(self._gvals[code]) if code >= 0 else None)

    def _before(self, e) -> None:
        """What the notes change before event ``e``'s frame (see ``note_stream``)."""
        self._strip("hooked")
        notes = self._attached.get(id(e), ())
        for note in notes:
            if note.kind == "scheduled":
                self._pending, self._queue, self._ran = dict(note.counts), [], set()
                for n in self.nodes:
                    self._rebadge(n)
        if self._pending is None:
            return
        if e.kind == "contribute" and self._pending.get(e.parent.id) and not self.replay.crosses(e):
            self._pending[e.parent.id] -= 1  # (the frame then stores its new gradient)
        for note in notes:
            if note.kind == "ready":
                n = note.node
                self._pending[n.id] = 0
                self._queue = list(note.queue)
                self._set(node_key(n), add=("ready",))
                self._rebadge(n)
        if e.kind == "visit":  # taken from the queue: it runs now
            n = e.node
            self._queue = [i for i in self._queue if i != n.id]
            self._ran.add(n.id)
            self._set(node_key(n), remove=("ready",))
            self._grad(n, e.upstream)

    def _queue_line(self) -> str:
        """``ready queue: tanh (#4), mul (#5)``, next to run first (``""``: not a
        ready-queue pass)."""
        if self._queue is None:
            return ""
        names = []
        for nid in self._queue:
            pos = self._node_pos.get(nid)
            if pos is None:
                names.append(f"#{nid}")
                continue
            n = self.nodes[pos]
            name = self.name(n)
            names.append(f"{n.op.name} ({name})" if n.op is not None else name)
        return "\nready queue: " + (", ".join(names) if names else "empty")

    def _hook_step(self, e, phase: str) -> None:
        """A hook replaced a gradient: a step of its own, the node marked ``hooked``."""
        self._mark_visited()
        n = e.node
        self._set(node_key(n), add=("hooked", "has-grad"))
        self._grad(n, e.after)
        name = self.name(n)
        before, after = self.say.value(e.before), self.say.value(e.after)
        text = f"hook `{e.hook}` on {name} changed its gradient: {before} → {after}"
        if n.op is None:
            text += (f"\nA leaf's hooks run once its gradient for this pass is complete: "
                     f"{name}.grad gets {after}, not {before}.")
        else:
            text += (f"\nIts gradient was complete ({before}); from now on {name} holds "
                     f"{after}, and its op's rules pass {after} on to its inputs.")
        self._emit("backward", "hooked", f"{phase} · hook {e.hook} on {name}", text, node=n.id)

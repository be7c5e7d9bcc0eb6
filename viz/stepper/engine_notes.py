"""How the engine runs, in a replay: pending counts, the ready queue and gradient hooks.

Besides its events, a tape keeps the engine's *notes* (``minigrad.autograd.tape``):
``scheduled(counts)`` when a ready-queue pass starts (``backward(...,
scheduler="ready-queue")``), ``ready(node, queue)`` when a node's last contribution
arrived, and ``hooked(node, hook, before, after)`` when a ``register_hook`` hook
replaced a gradient.  ``ReadyQueue`` replays a ready-queue pass's bookkeeping from
them (pending counts, the queue, which nodes ran), and ``hook_text`` says what a hook
did; ``viz.stepper.frames.Frames`` owns a ``ReadyQueue`` and turns what it knows into
classes, gradient texts and panel lines:

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

__all__ = ["Badged", "unbadged", "ReadyQueue", "hook_text", "note_stream"]

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


class ReadyQueue:
    """A ready-queue pass's state at each step of a replay, read off the tape's notes.

    ``pending`` maps each node still waiting to the contributions it waits for
    (``None``: not a ready-queue pass, or not yet started), ``queue`` lists the ready
    nodes' ids, next to run first (``None``: not a ready-queue pass), ``ran`` the nodes
    taken from it.  ``stream`` is the replay's events with the hook notes in their
    places (see ``note_stream``); the frames walk it and call, for each event,
    ``notes(e)`` to get the notes attached to it, then the transitions below.
    """

    def __init__(self, tape, events, crosses):
        self.stream, self._attached = note_stream(tape, events)
        self._crosses = crosses  # Replay.crosses: a block's gradient, not one more use
        self.pending: dict | None = None
        self.queue: list | None = None
        self.ran: set = set()
        if any(n.kind == "scheduled" for notes in self._attached.values() for n in notes):
            self.queue = []  # (empty until the first seed: the line shows from the start)

    def notes(self, e) -> tuple:
        """The ``scheduled`` and ``ready`` notes to apply before event ``e``'s frame."""
        return tuple(self._attached.get(id(e), ()))

    def schedule(self, note) -> None:
        """A ready-queue pass starts: every node's pending count, an empty queue."""
        self.pending, self.queue, self.ran = dict(note.counts), [], set()

    def arrive(self, e) -> None:
        """Contribution ``e`` arrived: its parent waits for one fewer."""
        if (e.kind == "contribute" and self.pending.get(e.parent.id)
                and not self._crosses(e)):
            self.pending[e.parent.id] -= 1

    def ready(self, note) -> None:
        """``note.node`` got its last contribution: it joins the queue (``note.queue``)."""
        self.pending[note.node.id] = 0
        self.queue = list(note.queue)

    def run(self, node) -> None:
        """``node`` is taken from the queue: it runs now."""
        self.queue = [i for i in self.queue if i != node.id]
        self.ran.add(node.id)

    def badge(self, node, value):
        """``value`` with the node's pending count (a ready-queue pass, before it runs)."""
        pending = self.pending
        if pending is None or node.id not in pending or node.id in self.ran:
            return value
        n = pending[node.id]
        return Badged(unbadged(value), f"pending {n}" if n else "ready")

    def line(self, describe) -> str:
        """``ready queue: tanh (#4), mul (#5)``, next to run first (``""``: not a
        ready-queue pass); ``describe(node id)`` names a node."""
        if self.queue is None:
            return ""
        names = [describe(nid) for nid in self.queue]
        return "\nready queue: " + (", ".join(names) if names else "empty")


def hook_text(e, name: str, say) -> str:
    """What a ``hooked`` note says: which hook on ``name`` changed its gradient, and what
    that means for a leaf or for the rest of the pass (``say`` writes a value)."""
    n = e.node
    before, after = say.value(e.before), say.value(e.after)
    text = f"hook `{e.hook}` on {name} changed its gradient: {before} → {after}"
    if n.op is None:
        text += (f"\nA leaf's hooks run once its gradient for this pass is complete: "
                 f"{name}.grad gets {after}, not {before}.")
    else:
        text += (f"\nIts gradient was complete ({before}); from now on {name} holds "
                 f"{after}, and its op's rules pass {after} on to its inputs.")
    return text

"""Frames: a recorded computation turned into steps a student can walk through.

``Frames(tape, mode)`` replays the events of a ``minigrad.record()`` tape into
a list of steps.  Each step is *what the graph looks like now*: a set of CSS
classes per drawn element (nodes ``n_<id>``, edges ``e_<child>_<parent>_<slot>``,
the renderer's ids), the gradient each node holds at that moment, and a panel
text in words.  Nothing here draws anything: the widget and the HTML player
only read these frames, which is also what the tests drive.

Forward mode reveals the nodes in creation order.  Backward mode replays the
chain rule edge by edge: the engine visits a node with its complete upstream
gradient ``g = dL/dnode``, then for each input adds ``g · ∂node/∂input`` into
that input's ``.grad``.  A node used twice receives two contributions that add
up; such nodes get the ``accumulated`` class from the second one on.

Classes (an element can have several):

============== ======================================================
``hidden``     forward: not created yet
``current``    the node being created / visited, the edge in use now
``done``       forward: created earlier; backward: node already visited
``receiving``  backward: the input getting a contribution in this step
``has-grad``   backward: the node holds some gradient
``accumulated`` backward: received contributions along several edges
``passed``     backward: this edge has already carried its contribution
``new``        backward with ``create_graph``: the node its rule just built (and
               the edges into it); hidden before, shown from then on
``ready``      a ready-queue backward: the node's last contribution arrived; it
               waits in the ready queue (a leaf: its gradient is final)
``hooked``     backward: a gradient hook just replaced this node's gradient
``has-tangent`` forward mode (``viz.stepper.tangent_frames``): the node holds a tangent
``recomputed`` backward: made by a checkpointed block's recompute (``viz.stepper.checkpoint_steps``)
============== ======================================================

How the engine runs (``viz.stepper.engine_notes``): a tape recorded with
``backward(scheduler="ready-queue")`` also shows each node's pending count and the
ready queue; a hook that replaced a gradient gets a step of its own.

A ``create_graph`` backward pass builds the graph of the gradient as it goes:
its nodes (``viz.stepper.replay``) are laid out with the rest but hidden until the
step at which the rule that made them runs (a ``built`` step, which names the
edge: ``node.origin.made_by``).  A later pass through that graph (the second
derivative) is replayed like any other, its titles numbered ``Backward 2 ·``.

Saved values: ``released_at`` says from which step on each node's saved
values are gone (the engine releases them right after visiting the node,
unless ``retain_graph=True``).  The renderers use it to strike through the
drawn saved values from that step, and to show a "saved: released" box only
from then on; it is not a class of the node itself.

Nodes, edges and their element ids come from the same ``GraphView``
(``viz.render.view.build_view``) every renderer reads; what each step says in
words is written by ``viz.stepper.narration``.  Numbers follow
``minigrad.formatting.format_number`` (``digits`` decimals, 4 by default),
as in the picture, so notebook outputs are stable.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

import minigrad
from minigrad import topological_order

from ..render.multi_output import output_nr
from ..render.options import DisplayOptions
from ..render.view import build_view, edge_key, is_node, model_param_names, node_key
from .checkpoint_steps import block_note, block_seed_text, recompute_text
from .engine_notes import ReadyQueue, hook_text, unbadged
from .narration import (  # noqa: F401  (fmt_num, fmt_value, node_name: imported from here too)
    Narrator,
    count_of,
    distinct_names,
    fmt_num,
    fmt_value,
    node_name,
    not_a_tape,
    view_kind,
    view_name,
)
from .replay import split_events

__all__ = [
    "STATES",
    "Frame",
    "Frames",
    "fmt_num",
    "fmt_value",
    "node_name",
]

STATES = ("hidden", "current", "done", "receiving", "has-grad", "accumulated", "passed", "new",
          "ready", "hooked", "has-tangent", "recomputed")
_ORDER = {s: i for i, s in enumerate(STATES)}
MODES = ("forward", "backward", "both")
MAX_CELLS = 50_000_000  # steps × drawn elements: ~150 MB of per-step state at most


# --- frames ------------------------------------------------------------------------
def _parameter_paths(tape, roots, names) -> dict[int, str]:
    """Parameters by their full paths (``layers.0.weight``), as ``viz.draw`` names them.

    A tape that recorded which modules ran knows them (``step_through``'s does:
    ``recording.record_call``).  A tape the user recorded does not, and nor does a graph:
    then, unless names were given (``Stepper(tape, params=model)``), the models in the
    caller's variables name the parameters they hold, the rule ``viz.draw(loss)`` follows
    (``viz.render.view.model_param_names``), so the stepper says ``0.weight`` where the
    drawing of the same graph does, not a label every layer shares (``weight #7``).
    """
    scopes = getattr(tape, "scopes", None)
    if scopes is not None:
        return dict(getattr(scopes, "param_names", None) or {})
    if names:
        return {}
    kinds = (minigrad.Value, minigrad.Tensor)  # (a PyTorch step-through's nodes: none)
    return model_param_names([n.id for n in topological_order(roots)
                              if n.op is None and n.requires_grad and isinstance(n, kinds)])


@dataclass(frozen=True)
class Frame:
    """One step: what it is about, and the panel text that explains it."""

    index: int
    phase: str  # "forward" | "backward"
    kind: str  # "start" | "created" | "end" | "seeded" | "visit" | "contribute" | "built"
    title: str  # (… | "hooked" | "recomputed")
    text: str
    node: int | None = None  # id of the node this step is about
    edge: str | None = None  # element id of the edge carrying a gradient now
    #: the tape event a backward step shows (``None``: a start or end step, or forward)
    event: object = field(default=None, compare=False, repr=False)


class Frames:
    """All steps of a replay, computed once from a tape (immutable afterwards).

    ``elements`` lists the drawn element ids; per step, ``classes(i)`` gives the
    state classes of each element (only non-empty ones) and ``grads(i)`` the
    gradient each node holds.  Internally a step is a row of small integers
    (one per element), so a 300-node graph with a thousand steps stays small.

    Two kinds of recorded detail keep their bookkeeping and their words in a module of
    their own, which the frames call: a ready-queue pass (``engine_notes.ReadyQueue``,
    kept as ``self.ready_queue``: pending counts, the queue) and a checkpointed block's
    recompute (``checkpoint_steps``: what its steps say).
    """

    def __init__(self, tape, mode: str = "both", names: dict | None = None, *,
                 options: DisplayOptions | None = None):
        self.options = options or DisplayOptions()
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(map(repr, MODES))}, got {mode!r}")
        if not hasattr(tape, "events"):
            raise TypeError(not_a_tape(tape))
        events = list(tape.events)
        if not events:
            raise ValueError(
                "this tape recorded nothing: build the graph inside `with minigrad.record() "
                "as tape:` (and call loss.backward() there, or tape.backward(loss) after)"
            )
        has_backward = any(e.kind != "created" for e in events)
        if mode != "forward" and not has_backward:
            raise ValueError(
                f"mode={mode!r} needs a backward pass, but this tape has none: call "
                "loss.backward() inside the `with minigrad.record()` block, or "
                "tape.backward(loss) afterwards (or use mode='forward')"
            )
        self.mode = mode
        # Which nodes the forward replay creates, which a create_graph backward builds
        # (shown as they are made), which a backward pass made and threw away (left out).
        replay = split_events(events, mode)
        self.replay = replay
        self.roots = replay.roots
        #: ``{node id: name}`` for the panel and the picture (on top of labels), each
        #: name one node's (``narration.distinct_names``)
        self.names = {**_parameter_paths(tape, self.roots, names), **(names or {})}
        # the nodes, edges, ids and names every renderer uses (no values needed here)
        self.view = build_view(self.roots, options=self.options, params=self.names, show_grad=False,
                               show_saved=False, scopes=None, orders="all")
        self.names.update(distinct_names(self.view, parameters=list(self.names)))
        self.nodes = [vn.node for vn in self.view.nodes]  # every drawn node, by id
        self.node_ids = [vn.key for vn in self.view.nodes]
        by_id = {n.id: n for n in self.nodes}
        # (element id, child, parent, slot)
        self.edges = [(e.key, by_id[e.child], by_id[e.parent], e.slot) for e in self.view.edges]
        self.edge_ids = [e[0] for e in self.edges]
        self.say = Narrator(self.name, self.options.digits, self.view.examples)
        self.elements = tuple(self.node_ids + self.edge_ids)
        self._created = replay.forward
        self._events = replay.events
        steps = len(replay.forward) + len(replay.events) + 4
        if steps * len(self.elements) > MAX_CELLS:
            raise ValueError(
                f"this recording is too big to step through: {len(self.nodes):,} nodes and "
                f"about {steps:,} steps. Record a smaller computation (one neuron, one "
                f"example, a tiny batch) inside `with minigrad.record()`; viz.text(root) "
                f"prints a big graph as text"
            )
        #: the ready-queue pass's bookkeeping, replayed from the tape's notes
        self.ready_queue = ReadyQueue(tape, self._events, replay.crosses)
        #: what a recorded backward did to the user's graph, said on the first seed step
        #: (a torch step-through: ``torch_recording.ran_backward_note``)
        self._seed_note = getattr(tape, "seed_note", None)
        #: what the forward start says about the recording (a torch loss's graph: why its
        #: ops show no values, ``torch_recording.NO_FORWARD_VALUES``)
        self._forward_note = getattr(tape, "forward_note", None)
        self._build(getattr(tape, "released", None))

    @property
    def results(self) -> list:
        """The roots that are results: not an unused output of a multi-output op (a piece
        of a ``split`` nothing used is a root too), unless every root is one."""
        block = self.replay.block_of
        return ([r for r in self.roots if output_nr(r) is None and r.id not in block]
                or list(self.roots))

    def name(self, node) -> str:
        """The node's name in panel texts, as the view gives it (see ``node_name``)."""
        vn = self.view.by_id.get(node.id)
        return node_name(node, self.names, self.options.digits) if vn is None else view_name(vn)

    # --- building ------------------------------------------------------------------
    def _build(self, released) -> None:
        self._index = {el: i for i, el in enumerate(self.elements)}
        self._node_pos = {n.id: i for i, n in enumerate(self.nodes)}
        self._combos: list[str] = [""]
        self._combo_code = {frozenset(): 0}
        self._sets = [frozenset()] * len(self.elements)
        self._members = {state: set() for state in STATES}
        self._codes = np.zeros(len(self.elements), dtype=np.uint16)
        self._gvals: list = []
        self._gcur = np.full(len(self.nodes), -1, dtype=np.int32)
        self._rows: list[np.ndarray] = []
        self._grows: list[np.ndarray] = []
        self.frames: list[Frame] = []
        self._done_at: dict[int, int] = {}  # node id -> frame its last visit ended before
        self._edges_into = {}
        for el, child, _p, _s in self.edges:
            self._edges_into.setdefault(child.id, []).append(el)
        if self.mode in ("forward", "both"):
            self._forward()
        if self.mode in ("backward", "both"):
            self._backward()
        self.codes = np.stack(self._rows)
        self.grad_codes = np.stack(self._grows)
        del self._rows, self._grows
        # A node's saved values are freed when its (last) visit ends.  Which visited
        # nodes were released by the recorded backward: what the tape saw when the
        # recording stopped (a backward run after it, unrecorded, does not count), or
        # for a tape that cannot say, the ones whose saved values are gone now.
        if released is None:  # (the rule of Tape.stopped, applied now)
            nodes = (self.nodes[self._node_pos[nid]] for nid in self._done_at)
            released = {n.id for n in nodes if n.op is not None and n.saved is None}
        #: ``{node id: first step at which its saved values are released}``
        self.released_at = {nid: k for nid, k in self._done_at.items() if nid in released}

    def _set(self, el: str, *, add=(), remove=()) -> None:
        i = self._index.get(el)
        if i is None:
            return
        old = self._sets[i]
        s = (old - frozenset(remove)) | frozenset(add)
        if s == old:
            return
        self._sets[i] = s
        for state in old - s:
            self._members[state].discard(i)
        for state in s - old:
            self._members[state].add(i)
        code = self._combo_code.get(s)
        if code is None:
            code = len(self._combos)
            self._combo_code[s] = code
            self._combos.append(" ".join(sorted(s, key=_ORDER.__getitem__)))
        self._codes[i] = code

    def _strip(self, state: str, replace: str | None = None) -> None:
        """Remove one state class from every element that has it (adding ``replace``)."""
        add = (replace,) if replace else ()
        for i in sorted(self._members[state]):
            self._set(self.elements[i], add=add, remove=(state,))

    def _clear(self) -> None:
        for state in STATES:
            self._strip(state)

    def _grad(self, node, value) -> None:
        pos = self._node_pos.get(node.id)
        if pos is None:
            return
        value = self.ready_queue.badge(node, value)
        if value is None:
            self._gcur[pos] = -1
        else:
            self._gcur[pos] = len(self._gvals)
            self._gvals.append(value)

    def _emit(self, phase, kind, title, text, node=None, edge=None) -> None:
        if phase == "backward":
            text += self.ready_queue.line(self._queued_name)
        self.frames.append(Frame(len(self.frames), phase, kind, title, text, node, edge,
                                 self._event if phase == "backward" else None))
        self._rows.append(self._codes.copy())
        self._grows.append(self._gcur.copy())

    def _forward(self) -> None:
        created = [n for n in self._created if n.id in self._node_pos]
        new = {n.id for n in created}
        self._hide(created)
        self._hide(self._built())  # (a create_graph backward builds them, later)
        built = {n.id for n in self.replay.built}
        given = [n for n in self.nodes if n.id not in new and n.id not in built]
        total = len(created)
        start = self.say.forward_start(created, given)
        if self._forward_note:
            start += "\n" + self._forward_note
        self._emit("forward", "start", f"Forward · start ({count_of(total, 'node')} to create)",
                   start)
        for n in created:
            self._strip("current", replace="done")
            self._set(node_key(n), add=("current",), remove=("hidden",))
            for el in self._edges_into.get(n.id, ()):
                self._set(el, add=("current",), remove=("hidden",))
            title = f"Forward · create {self.name(n)}"
            if n.op is not None:
                title += f" ({n.op.name})"
            text = self.say.created(n, view_kind(self.view.node(n.id)))
            self._emit("forward", "created", title, text, node=n.id)
        self._strip("current", replace="done")
        outs = [r for r in self.results if r.id in new] or self.results
        self._emit("forward", "end", "Forward · complete",
                   self.say.forward_end(outs, self.mode == "both"))

    def _hide(self, nodes) -> None:
        for n in nodes:
            self._set(node_key(n), add=("hidden",))
            for el in self._edges_into.get(n.id, ()):
                self._set(el, add=("hidden",))

    def _built(self) -> list:
        """The nodes a backward pass makes: built ones, and a checkpoint's recomputed ones."""
        return [n for n in self.replay.built + self.replay.recomputed if n.id in self._node_pos]

    def _show(self, n, state: str) -> None:
        """A built node appears (``state``: ``new``), with the edges into it."""
        self._set(node_key(n), add=(state,), remove=("hidden",))
        for el in self._edges_into.get(n.id, ()):
            self._set(el, add=(state,), remove=("hidden",))

    def _leaf_grads(self, before: dict) -> list[int]:
        """Leaves' gradients as a pass starts: what its first contribution found (an
        earlier pass's, when leaves accumulate; none, after ``autograd.grad``).
        Returns the ids of the leaves that start from nothing."""
        empty = []
        for n in self.nodes:
            if n.op is None and n.id in before:
                self._grad(n, before[n.id])
                if before[n.id] is None:
                    self._set(node_key(n), remove=("has-grad", "accumulated"))
                    empty.append(n.id)
                else:
                    self._set(node_key(n), add=("has-grad",))
        return empty

    def _backward(self) -> None:
        self._clear()
        self._hide(self._built())
        # gradients at the start: non-leaves start empty (the engine resets them);
        # a leaf may hold gradient from an earlier backward (leaves accumulate)
        first_before: list[dict] = []  # per pass: {parent id: .grad before its first edge}
        outer, crosses = self.replay.outer, self.replay.crosses
        for e in self._events:
            if outer(e) or not first_before:
                first_before.append({})
            if crosses(e):  # (the block's gradient: the checkpoint node hands it on)
                continue
            if e.kind == "contribute" and e.parent.id not in first_before[-1]:
                first_before[-1][e.parent.id] = e.before
        for n in self.nodes:
            self._grad(n, None)
        self._leaf_grads(first_before[0])
        counts: dict[int, int] = {}
        upstream: dict[int, object] = {}
        totals: list[dict] = [{}]  # per pass: {node id: contributions it receives}
        for e in self._events:
            if outer(e) and len(totals) < len(first_before):
                totals.append({})
            if e.kind == "contribute" and not crosses(e):
                totals[-1][e.parent.id] = totals[-1].get(e.parent.id, 0) + 1
        total = totals[0]
        seeds = [e for e in self._events if outer(e)]
        root = seeds[0].node
        self._emit("backward", "start", "Backward · start", self.say.backward_start(root))
        npass = 0
        current_root = root
        phase = "Backward"
        lit = None  # the edge a build step lit: it has not carried its gradient yet
        for e in self.ready_queue.stream:
            self._event = e
            self._before(e)
            self._strip("receiving")
            self._strip("new")
            if lit is not None:
                self._set(lit, remove=("current",))
                lit = None
            self._strip_edge_current()
            if e.kind == "hooked":
                self._hook_step(e, phase)
                continue
            if self._block_step(e, phase):  # a checkpoint's recompute (checkpoint_steps)
                continue
            if e.kind == "created":  # a create_graph pass built a node
                n = e.node
                self._show(n, "new")
                edge, child, slot = self._maker(n)
                if edge is not None and "current" not in self._sets[self._index[edge]]:
                    self._set(edge, add=("current",))
                    lit = edge
                title = f"{phase} · build {self.name(n)}"
                if n.op is not None:
                    title += f" ({n.op.name})"
                text = self.say.built(n, view_kind(self.view.node(n.id)), child, slot)
                self._emit("backward", "built", title, text, node=n.id, edge=edge)
                continue
            if e.kind == "seeded":
                npass += 1
                phase = "Backward" if npass == 1 else f"Backward {npass}"
                self._mark_visited()
                current_root = e.node
                # a new pass: the engine empties every non-leaf gradient first
                if npass > 1:
                    for n in topological_order(e.node):
                        if n.op is not None:
                            self._grad(n, None)
                            self._set(node_key(n), remove=("has-grad", "accumulated", "done"))
                    counts = {k: v for k, v in counts.items()
                              if self.nodes[self._node_pos[k]].op is None}
                    for el in self.edge_ids:
                        self._set(el, remove=("passed",))
                    for nid in self._leaf_grads(first_before[npass - 1]):
                        counts.pop(nid, None)  # (a leaf starting from nothing again)
                    total = totals[npass - 1] if npass - 1 < len(totals) else {}
                if is_node(e.grad) and e.grad.id in self.replay.seeds:
                    self._show(e.grad, "new")
                self._grad(e.node, e.grad)
                self._set(node_key(e.node), add=("current", "has-grad"))
                title = f"{phase} · seed {self.name(e.node)}"
                label = "Seed" if len(seeds) == 1 else f"Backward pass {npass}, seed"
                text = self.say.seed(e, label, self._builds(npass))
                if npass == 1 and self._seed_note:
                    text += "\n" + self._seed_note
                self._emit("backward", "seeded", title, text, node=e.node.id)
            elif e.kind == "visit":
                n = e.node
                self._mark_visited()
                self._set(node_key(n), add=("current",))
                title = f"{phase} · visit {self.name(n)} ({n.op.name})"
                text = self.say.visit(e, current_root, total.get(n.id, 0))
                text += block_note(self.replay, e, self.name)
                self._emit("backward", "visit", title, text, node=n.id)
                self._visiting = n.id
                upstream[n.id] = e.upstream
            else:  # contribute
                n, p = e.node, e.parent
                el = edge_key(n, p, e.slot)
                self._set(node_key(n), add=("current",))
                self._set(el, add=("current",))
                counts[p.id] = counts.get(p.id, 0) + (not crosses(e))
                add = ["receiving", "has-grad"] + (["accumulated"] if counts[p.id] > 1 else [])
                self._set(node_key(p), add=add)
                self._grad(p, e.after)
                title = f"{phase} · {n.op.name} → {self.name(p)}"
                text = self.say.contribute(e, upstream.get(n.id), counts[p.id])
                text += block_note(self.replay, e, self.name)
                self._emit("backward", "contribute", title, text, node=n.id, edge=el)
        self._event = None
        self._strip("receiving")
        self._strip("new")
        self._strip("hooked")
        self._strip_edge_current()
        self._mark_visited()
        self._strip("current", replace="done")
        # what the replay ends with, not the live .grad: it may have changed since
        # (step_through restores the caller's gradients, a student calls zero_grad)
        held = [(n, unbadged(self._gvals[g])) for n, g in zip(self.nodes, self._gcur.tolist())
                if g >= 0 and n.op is None and n.requires_grad]
        self._emit("backward", "end", "Backward · complete", self.say.leaves(held))

    _visiting = None
    _event = None  # the tape event the step being emitted shows (``Frame.event``)

    # --- how the engine runs (viz.stepper.engine_notes) ----------------------------
    def _before(self, e) -> None:
        """What the engine's notes change before event ``e``'s frame: a pass scheduled
        (every count shown), a contribution counted down, a node ready (class
        ``ready``), a node taken from the queue to run."""
        self._strip("hooked")
        queue = self.ready_queue
        notes = queue.notes(e)
        for note in notes:
            if note.kind == "scheduled":
                queue.schedule(note)
                for n in self.nodes:
                    self._rebadge(n)
        if queue.pending is None:
            return
        queue.arrive(e)  # (the frame then stores its new gradient)
        for note in notes:
            if note.kind == "ready":
                queue.ready(note)
                self._set(node_key(note.node), add=("ready",))
                self._rebadge(note.node)
        if e.kind == "visit":
            queue.run(e.node)
            self._set(node_key(e.node), remove=("ready",))
            self._grad(e.node, e.upstream)

    def _rebadge(self, node) -> None:
        """Store ``node``'s gradient again, with its badge as the pass stands now."""
        pos = self._node_pos.get(node.id)
        if pos is not None:
            code = self._gcur[pos]
            self._grad(node, unbadged(self._gvals[code]) if code >= 0 else None)

    def _queued_name(self, nid: int) -> str:
        """A node in the ready queue line: ``tanh (#4)``."""
        pos = self._node_pos.get(nid)
        if pos is None:
            return f"#{nid}"
        n = self.nodes[pos]
        name = self.name(n)
        return f"{n.op.name} ({name})" if n.op is not None else name

    def _hook_step(self, e, phase: str) -> None:
        """A hook replaced a gradient: a step of its own, the node marked ``hooked``."""
        self._mark_visited()
        n = e.node
        self._set(node_key(n), add=("hooked", "has-grad"))
        self._grad(n, e.after)
        name = self.name(n)
        self._emit("backward", "hooked", f"{phase} · hook {e.hook} on {name}",
                   hook_text(e, name, self.say), node=n.id)

    # --- a checkpointed block's recompute (viz.stepper.checkpoint_steps) -----------
    def _block_step(self, e, phase: str) -> bool:
        """Emit the step of a recompute event (a recomputed node, the block's seed);
        ``False`` for any other event, which the caller handles."""
        replay = self.replay
        if e.kind == "created" and e.node.id in replay.block_of:
            self._mark_visited()
            n = e.node
            self._show(n, "new")
            self._set(node_key(n), add=("recomputed",))
            for el in self._edges_into.get(n.id, ()):
                self._set(el, add=("recomputed",))
            title = f"{phase} · recompute {self.name(n)}"
            if n.op is not None:
                title += f" ({n.op.name})"
            created = self.say.created(n, view_kind(self.view.node(n.id)))
            self._emit("backward", "recomputed", title, recompute_text(replay, n, created),
                       node=n.id)
            return True
        if e.kind == "seeded" and id(e) in replay.nested:
            self._mark_visited()
            self._grad(e.node, e.grad)
            self._strip("current")  # (a block with several outputs seeds each in turn)
            self._set(node_key(e.node), add=("current", "has-grad"))
            fn, text = block_seed_text(replay, e, self.name, self.say)
            self._emit("backward", "seeded", f"{phase} · block {fn}: seed {self.name(e.node)}",
                       text, node=e.node.id)
            return True
        return False

    def _maker(self, n) -> tuple:
        """``(edge element id, node, slot)`` of the edge whose rule built ``n``: the edge
        is ``None`` for an op's one ``vjp`` (slot ``None``), all three when no rule did."""
        made_by = n.origin.made_by if n.origin is not None else None
        if made_by is None or made_by[0] not in self._node_pos:
            return None, None, None
        child = self.nodes[self._node_pos[made_by[0]]]
        slot = made_by[1]
        return (None if slot is None else edge_key(child, child.parents[slot], slot)), child, slot

    def _builds(self, npass: int) -> int:
        """The order of the nodes pass ``npass`` builds (0: it builds none)."""
        seeded = k = 0
        for e in self._events:
            seeded += self.replay.outer(e)
            if seeded == npass and e.kind == "created":
                k = max(k, e.node.order)
            if seeded > npass:
                break
        return k

    def _mark_visited(self) -> None:
        if self._visiting is not None:
            self._set(node_key(self._visiting), add=("done",), remove=("current",))
            self._done_at[self._visiting] = len(self.frames)  # the frame about to be emitted
            self._visiting = None

    def _strip_edge_current(self) -> None:
        first_edge = len(self.node_ids)
        for i in sorted(self._members["current"]):
            if i >= first_edge:
                self._set(self.elements[i], add=("passed",), remove=("current",))

    # --- reading -------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.frames)

    def __getitem__(self, i: int) -> Frame:
        return self.frames[i]

    def classes(self, i: int) -> dict[str, str]:
        """``{element id: "space separated classes"}`` for step ``i`` (non-empty only)."""
        row = self.codes[i]
        combos = self._combos
        return {el: combos[c] for el, c in zip(self.elements, row.tolist()) if c}

    def class_strings(self, i: int) -> list[str]:
        """The classes of every element (in ``elements`` order) at step ``i``."""
        combos = self._combos
        return [combos[c] for c in self.codes[i].tolist()]

    def having(self, i: int, state: str) -> list[str]:
        """Element ids that have class ``state`` at step ``i``, in element order."""
        return [el for el, c in self.classes(i).items() if state in c.split()]

    def grads(self, i: int) -> dict[int, object]:
        """``{node id: gradient held at step i}`` (``None``: no gradient yet)."""
        vals = self._gvals
        return {n.id: (unbadged(vals[g]) if g >= 0 else None)
                for n, g in zip(self.nodes, self.grad_codes[i].tolist())}

    def shown_grads(self, i: int) -> dict[int, object]:
        """``grads(i)`` as the cards show them: with a ready-queue pass's pending counts
        (``viz.stepper.engine_notes.Badged``)."""
        vals = self._gvals
        return {n.id: (vals[g] if g >= 0 else None)
                for n, g in zip(self.nodes, self.grad_codes[i].tolist())}

    def released(self, i: int) -> set[str]:
        """Element ids of the nodes whose saved values are released at step ``i``."""
        return {node_key(nid) for nid, k in self.released_at.items() if i >= k}

    @property
    def states(self) -> set[str]:
        """The state classes some step of this replay uses."""
        return {state for combo in self._combos for state in combo.split()}

    @property
    def combos(self) -> list[str]:
        return list(self._combos)

    @property
    def grad_values(self) -> list:
        return list(self._gvals)


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
============== ======================================================

Saved values: ``released_at`` says from which step on each node's saved
values are gone (the engine releases them right after visiting the node,
unless ``retain_graph=True``).  The renderers use it to strike through the
drawn saved values from that step, and to show a "saved: released" box only
from then on; it is not a class of the node itself.

Numbers are printed with four significant digits, always the same way, so
that notebook outputs are stable.
"""

from __future__ import annotations

import math
import operator
import re
from dataclasses import dataclass

import numpy as np

from minigrad import topological_order

from .formatting import visible
from .view import is_node

__all__ = [
    "STATES",
    "Frame",
    "Frames",
    "StepperState",
    "fmt_num",
    "fmt_value",
    "node_name",
]

STATES = ("hidden", "current", "done", "receiving", "has-grad", "accumulated", "passed")
_ORDER = {s: i for i, s in enumerate(STATES)}
MODES = ("forward", "backward", "both")
MAX_CELLS = 50_000_000  # steps × drawn elements: ~150 MB of per-step state at most


# --- deterministic formatting ------------------------------------------------------
def fmt_num(x) -> str:
    """A number in at most four significant digits: ``6.0``, ``0.7616``, ``1.235e4``."""
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x == 0:
        return "0.0"
    r = f"{x:.4g}"
    if "e" in r:
        mantissa, exp = r.split("e")
        return f"{mantissa}e{int(exp)}"
    return r if "." in r else r + ".0"


def _nested(a: np.ndarray) -> str:
    if a.ndim == 0:
        return fmt_num(a)
    if a.ndim == 1:
        return "[" + ", ".join(fmt_num(v) for v in a) + "]"
    return "[" + ", ".join(_nested(row) for row in a) + "]"


def fmt_shape(shape) -> str:
    return "(" + ", ".join(str(int(n)) for n in shape) + ("," if len(shape) == 1 else "") + ")"


def fmt_value(x, max_items: int = 6) -> str:
    """A float as ``fmt_num``; an array as its values when tiny, else shape and a preview."""
    if x is None:
        return "None"
    if isinstance(x, np.ndarray) or hasattr(x, "shape") and hasattr(x, "dtype"):
        a = np.asarray(x)
        if a.ndim == 0:
            return fmt_num(a)
        if a.size <= max_items:
            return _nested(a)
        head = ", ".join(fmt_num(v) for v in a.reshape(-1)[:3])
        return f"shape {fmt_shape(a.shape)} [{head}, …]"
    if isinstance(x, (bool, np.bool_)):
        return str(bool(x))
    if isinstance(x, (int, float, np.integer, np.floating)):
        return fmt_num(x)
    return repr(x)


def _fmt_grad(g, like) -> str:
    """A gradient; ``None`` (nothing flowed in yet) reads as zero of the right kind."""
    if g is None:
        return "0" if _is_array(like) else "0.0"
    return fmt_value(g)


def _is_array(x) -> bool:
    return isinstance(x, np.ndarray) and x.ndim > 0


def _plain(v) -> bool:
    """Settings a student set (axis=1, keepdims=True), not internals such as a ctx."""
    if isinstance(v, tuple):
        return all(_plain(i) for i in v)
    return v is None or isinstance(v, (int, float, str, bool, np.integer, np.floating))


def _fmt_attr(v) -> str:
    if isinstance(v, (np.integer, int)) and not isinstance(v, bool):
        return str(int(v))
    if isinstance(v, (np.floating, float)):
        return fmt_num(v)
    if isinstance(v, tuple):
        return "(" + ", ".join(_fmt_attr(i) for i in v) + ("," if len(v) == 1 else "") + ")"
    if isinstance(v, (str, bool)) or v is None:
        return repr(v)
    if isinstance(v, np.ndarray):
        return f"<array {fmt_shape(v.shape)}>"
    return type(v).__name__


def node_name(node, names: dict | None = None) -> str:
    """How the panel names a node: its label (or a name from ``names``), else ``#<id>``.

    ``viz.Stepper`` draws the same ``#<id>`` in unnamed nodes, so the panel
    and the picture agree.  An unnamed scalar constant is just its value
    (``2.0``), which is how a student wrote it.  Control characters are
    written as escapes (``x\\ny``), as ``viz.draw`` and ``viz.text`` show them.
    """
    if names and node.id in names:
        return visible(str(names[node.id]))
    if node.label:
        return visible(str(node.label))
    if node.op is None and not node.requires_grad and not _is_array(node.data):
        return fmt_num(node.data)
    return f"#{node.id}"


def _kind(node) -> str:
    if node.op is not None:
        return "op"
    return "leaf" if node.requires_grad else "constant"


# --- op formulas -------------------------------------------------------------------
_INFIX = {"add", "sub", "mul", "div", "pow", "matmul"}
_PART = re.compile(r"^∂[^/\s]*/∂(\w+)\s*=")


def _slots(op, arity: int) -> tuple[list[str], list[str] | None]:
    """Input names and one formula per input, read off ``op.formula``.

    Scalar formulas read ``"∂/∂a = b,  ∂/∂b = a"``: split at ``",  "`` we get one
    part per input and each part names its input.  When the formula does not
    split that way, inputs are called x (unary), a, b (binary) or x1, x2, ...
    and the whole formula is shown.
    """
    formula = (getattr(op, "formula", "") or "").strip()
    parts = [p.strip() for p in re.split(r",\s{2,}", formula)] if formula else []
    if len(parts) == arity and all(_PART.match(p) for p in parts):
        return [_PART.match(p).group(1) for p in parts], parts
    if arity == 1:
        names = ["x"]
    elif arity == 2:
        names = ["a", "b"]
    else:
        names = [f"x{i + 1}" for i in range(arity)]
    return names, None


def _formula_var(op, slot: int, arity: int) -> str:
    """``, called a in the formula``: which variable of the op's formula this slot is."""
    names, _ = _slots(op, arity)
    return f", called {names[slot]} in the formula" if slot < len(names) else ""


def _deriv_text(op, slot: int, derivative, arity: int) -> str:
    """``∂out/∂a = b = 3.0`` (the local derivative, with its value when known)."""
    names, parts = _slots(op, arity)
    name = names[slot] if slot < len(names) else f"x{slot + 1}"
    value = "" if derivative is None or _is_array(derivative) else f" = {fmt_num(derivative)}"
    if parts is not None:
        part = parts[slot]
        if part.startswith("∂/∂"):
            part = "∂out/∂" + part[len("∂/∂"):]
        if value and _is_number(part.rsplit("=", 1)[-1]):
            value = ""  # "∂out/∂a = 1" needs no "= 1.0" after it
        return part + value
    formula = (getattr(op, "formula", "") or "").strip()
    if formula:
        return f"∂out/∂{name}{value} (rule: {formula})"
    return f"∂out/∂{name}{value} (from {op.name}'s backward)"


def _is_number(text: str) -> bool:
    try:
        float(text.strip().replace("−", "-"))
    except ValueError:
        return False
    return True


def _expr(node, op, parents, name=node_name) -> tuple[str, str]:
    """The forward expression in names and in values: ``a × b`` and ``2.0 × 3.0``."""
    attrs = node.attrs or {}
    kw = ", ".join(f"{k}={_fmt_attr(v)}" for k, v in sorted(attrs.items()) if _plain(v))
    if op.name in _INFIX and len(parents) == 2 and not kw:
        s = f" {op.symbol} "
        return (s.join(name(p) for p in parents),
                s.join(_operand(p) for p in parents))
    args = [name(p) for p in parents]
    vals = [_operand(p) for p in parents]
    if kw:
        args.append(kw)
        vals.append(kw)
    return f"{op.name}({', '.join(args)})", f"{op.name}({', '.join(vals)})"


def _operand(node) -> str:
    d = node.data
    if _is_array(d):
        return fmt_value(d) if d.size <= 3 else fmt_shape(d.shape)
    return fmt_value(d)


def _data_text(node) -> str:
    """A node's value; arrays with their shape and dtype (and values when tiny)."""
    d = node.data
    if _is_array(d):
        text = f"{fmt_shape(d.shape)} {d.dtype}"
        if d.size <= 6:
            return f"{text} {_nested(d)}"
        head = ", ".join(fmt_num(v) for v in d.reshape(-1)[:3])
        return f"{text} [{head}, …]"
    return fmt_value(d)


# --- frames ------------------------------------------------------------------------
@dataclass(frozen=True)
class Frame:
    """One step: what it is about, and the panel text that explains it."""

    index: int
    phase: str  # "forward" | "backward"
    kind: str  # "start" | "created" | "end" | "seeded" | "visit" | "contribute"
    title: str
    text: str
    node: int | None = None  # id of the node this step is about
    edge: str | None = None  # element id of the edge carrying a gradient now


class Frames:
    """All steps of a replay, computed once from a tape (immutable afterwards).

    ``elements`` lists the drawn element ids; per step, ``classes(i)`` gives the
    state classes of each element (only non-empty ones) and ``grads(i)`` the
    gradient each node holds.  Internally a step is a row of small integers
    (one per element), so a 300-node graph with a thousand steps stays small.
    """

    def __init__(self, tape, mode: str = "both", names: dict | None = None):
        self.names = dict(names or {})
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(map(repr, MODES))}, got {mode!r}")
        if not hasattr(tape, "events"):
            raise TypeError(_not_a_tape(tape))
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
        # Nodes created while a backward pass runs (a custom Function's backward
        # computes with Tensors too) are not part of the forward graph: leave them out.
        # A pass runs from its "seeded" event to its last edge event; nodes created
        # between two passes (the next step's forward) are kept.
        marks = [i for i, e in enumerate(events) if e.kind != "created"]
        span = set()
        starts = [i for i in marks if events[i].kind == "seeded"] or marks[:1]
        for k, start in enumerate(starts):
            stop = starts[k + 1] if k + 1 < len(starts) else len(events)
            span.update(range(start, max(i for i in marks if start <= i < stop) + 1))
        created = [e.node for i, e in enumerate(events) if e.kind == "created" and i not in span]
        used = {p.id for n in created for p in n.parents}
        roots = [n for n in created if n.id not in used]
        seen = {n.id for n in roots}
        for e in events:
            if e.kind == "seeded" and e.node.id not in seen:
                roots.append(e.node)
                seen.add(e.node.id)
        self.roots = roots
        self.nodes = topological_order(tuple(roots))  # every drawn node, by id
        self.node_ids = [f"n_{n.id}" for n in self.nodes]
        self.edges = []  # (element id, child, parent, slot)
        for n in self.nodes:
            for slot, p in enumerate(n.parents):
                self.edges.append((f"e_{n.id}_{p.id}_{slot}", n, p, slot))
        self.edge_ids = [e[0] for e in self.edges]
        self.elements = tuple(self.node_ids + self.edge_ids)
        self._created = created
        self._events = [e for i, e in enumerate(events) if e.kind != "created" or i not in span]
        steps = len(created) + len(marks) + 4
        if steps * len(self.elements) > MAX_CELLS:
            raise ValueError(
                f"this recording is too big to step through: {len(self.nodes):,} nodes and "
                f"about {steps:,} steps. Record a smaller computation (one neuron, one "
                f"example, a tiny batch) inside `with minigrad.record()`; viz.text(root) "
                f"prints a big graph as text"
            )
        self._build(getattr(tape, "released", None))

    def name(self, node) -> str:
        """The node's name in panel texts (see ``node_name``)."""
        return node_name(node, self.names)

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
        if value is None:
            self._gcur[pos] = -1
        else:
            self._gcur[pos] = len(self._gvals)
            self._gvals.append(value)

    def _emit(self, phase, kind, title, text, node=None, edge=None) -> None:
        self.frames.append(Frame(len(self.frames), phase, kind, title, text, node, edge))
        self._rows.append(self._codes.copy())
        self._grows.append(self._gcur.copy())

    def _forward(self) -> None:
        created = [n for n in self._created if n.id in self._node_pos]
        new = {n.id for n in created}
        for n in created:
            self._set(f"n_{n.id}", add=("hidden",))
            for el in self._edges_into.get(n.id, ()):
                self._set(el, add=("hidden",))
        given = [n for n in self.nodes if n.id not in new]
        if len(created) == 1:
            text = "Forward pass: 1 node is created, from values that already exist."
        else:
            text = (f"Forward pass: {len(created)} nodes are created one at a time, each "
                    "from values that already exist.")
        if given:
            names = ", ".join(self.name(n) for n in given[:8]) + (", …" if len(given) > 8 else "")
            text += f"\nAlready there before recording (shown from the start): {names}."
        total = len(created)
        self._emit("forward", "start", f"Forward · start ({_count(total, 'node')} to create)",
                   text)
        for k, n in enumerate(created, 1):
            self._strip("current", replace="done")
            self._set(f"n_{n.id}", add=("current",), remove=("hidden",))
            for el in self._edges_into.get(n.id, ()):
                self._set(el, add=("current",), remove=("hidden",))
            title = f"Forward {k}/{total} · create {self.name(n)}"
            if n.op is not None:
                title += f" ({n.op.name})"
            self._emit("forward", "created", title, self._created_text(n), node=n.id)
        self._strip("current", replace="done")
        outs = [r for r in self.roots if r.id in new] or list(self.roots)
        results = "; ".join(f"{self.name(r)} = {_data_text(r)}" for r in outs[:4])
        if len(outs) > 4:
            results += "; …"
        text = f"Forward pass complete: {results}."
        if self.mode == "both":
            text += "\nNext: the backward pass sends gradients from the output back to the inputs."
        self._emit("forward", "end", "Forward · complete", text)

    def _created_text(self, n) -> str:
        name = self.name(n)
        kind = _kind(n)
        if kind == "leaf":
            return (f"{name} = {_data_text(n)}: a leaf parameter (requires_grad=True, "
                    "so a gradient will flow into it).")
        if kind == "constant":
            what = name if name == _data_text(n) else f"{name} = {_data_text(n)}"
            return (f"constant {what} (requires_grad=False, so no gradient flows into it).")
        op = n.op
        names, values = _expr(n, op, n.parents, self.name)
        if any(isinstance(x.data, np.ndarray) for x in (n, *n.parents)):
            shapes = ", ".join(fmt_shape(np.shape(p.data)) for p in n.parents)
            return (f"{op.name}: {name} = {names}\nshapes {shapes} → "
                    f"{fmt_shape(n.data.shape)}; {name} = {_data_text(n)}")
        return f"{op.name}: {name} = {names} = {values} = {fmt_value(n.data)}"

    def _backward(self) -> None:
        self._clear()
        # gradients at the start: non-leaves start empty (the engine resets them);
        # a leaf may hold gradient from an earlier backward (leaves accumulate)
        first_before = {}
        for e in self._events:
            if e.kind == "contribute" and e.parent.id not in first_before:
                first_before[e.parent.id] = e.before
        for n in self.nodes:
            self._grad(n, first_before.get(n.id) if n.op is None else None)
            if n.op is None and first_before.get(n.id) is not None:
                self._set(f"n_{n.id}", add=("has-grad",))
        counts: dict[int, int] = {}
        upstream: dict[int, object] = {}
        total = {}
        for e in self._events:
            if e.kind == "contribute":
                total[e.parent.id] = total.get(e.parent.id, 0) + 1
        seeds = [e for e in self._events if e.kind == "seeded"]
        root = seeds[0].node
        rname = self.name(root)
        self._emit(
            "backward", "start", "Backward · start",
            f"Backward pass: gradients flow from the output {rname} back to the inputs, one "
            f"edge at a time. Each node's grad becomes d{_d(rname)}/d(that node).\n"
            "A node is visited once all the nodes that use it have passed their share to it.",
        )
        npass = 0
        step = 0
        nsteps = sum(1 for e in self._events if e.kind != "created")
        current_root = root
        for e in self._events:
            if e.kind == "created":
                continue
            step += 1
            self._strip("receiving")
            self._strip_edge_current()
            if e.kind == "seeded":
                npass += 1
                self._mark_visited()
                current_root = e.node
                # a new pass: the engine empties every non-leaf gradient first
                if npass > 1:
                    for n in topological_order(e.node):
                        if n.op is not None:
                            self._grad(n, None)
                            self._set(f"n_{n.id}", remove=("has-grad", "accumulated", "done"))
                    counts = {k: v for k, v in counts.items()
                              if self.nodes[self._node_pos[k]].op is None}
                    for el in self.edge_ids:
                        self._set(el, remove=("passed",))
                self._grad(e.node, e.grad)
                self._set(f"n_{e.node.id}", add=("current", "has-grad"))
                rname = self.name(e.node)
                title = f"Backward {step}/{nsteps} · seed {rname}"
                label = "Seed" if len(seeds) == 1 else f"Backward pass {npass}, seed"
                if _is_array(e.grad):
                    what = ("ones" if np.all(e.grad == 1) else "the given gradient")
                    text = (f"{label}: d{_d(rname)}/d{_d(rname)} = {what} of shape "
                            f"{fmt_shape(e.grad.shape)}: {fmt_value(e.grad)}.")
                else:
                    text = (f"{label}: d{_d(rname)}/d{_d(rname)} = {fmt_value(e.grad)}: the "
                            "output's gradient with respect to itself.")
                self._emit("backward", "seeded", title, text, node=e.node.id)
            elif e.kind == "visit":
                n = e.node
                self._mark_visited()
                self._set(f"n_{n.id}", add=("current",))
                name = self.name(n)
                title = f"Backward {step}/{nsteps} · visit {name} ({n.op.name})"
                expr = _expr(n, n.op, n.parents, self.name)[0]
                text = (f"{n.op.name}: {name} = {expr} holds its full gradient "
                        f"d{_d(self.name(current_root))}/d{_d(name)} = "
                        f"{fmt_value(e.upstream)}.")
                k = total.get(n.id, 0)
                if k > 1:
                    text += f"\n{name} is used {k} times, so this is the sum of {k} contributions."
                formula = (getattr(n.op, "formula", "") or "").strip()
                if formula:
                    text += f"\nLocal derivatives of {n.op.name}: {formula}."
                text += "\nNext: each input gets upstream gradient × local derivative."
                self._emit("backward", "visit", title, text, node=n.id)
                self._visiting = n.id
                upstream[n.id] = e.upstream
            else:  # contribute
                n, p = e.node, e.parent
                el = f"e_{n.id}_{p.id}_{e.slot}"
                self._set(f"n_{n.id}", add=("current",))
                self._set(el, add=("current",))
                counts[p.id] = counts.get(p.id, 0) + 1
                add = ["receiving", "has-grad"] + (["accumulated"] if counts[p.id] > 1 else [])
                self._set(f"n_{p.id}", add=add)
                self._grad(p, e.after)
                pname = self.name(p)
                title = f"Backward {step}/{nsteps} · {n.op.name} → {pname}"
                text = _contribution_text(e, upstream.get(n.id), self.name) + (
                    f"\nEdge {pname} → {self.name(n)}: slot {e.slot} of {n.op.name}"
                    f"{_formula_var(n.op, e.slot, len(n.parents))}."
                )
                if counts[p.id] > 1:
                    text += (f" {pname} is used more than once: contribution {counts[p.id]} "
                             "adds to what is already there.")
                self._emit("backward", "contribute", title, text, node=n.id, edge=el)
        self._strip("receiving")
        self._strip_edge_current()
        self._mark_visited()
        self._strip("current", replace="done")
        # what the replay ends with, not the live .grad: it may have changed since
        # (step_through restores the caller's gradients, a student calls zero_grad)
        held = [(n, self._gvals[g]) for n, g in zip(self.nodes, self._gcur.tolist())
                if g >= 0 and n.op is None and n.requires_grad]
        grads = ", ".join(f"{self.name(n)}.grad = {fmt_value(g)}" for n, g in held[:8])
        if len(held) > 8:
            grads += ", …"
        text = "Backward pass complete."
        if grads:
            text += f" Gradients of the leaves: {grads}."
        self._emit("backward", "end", "Backward · complete", text)

    _visiting = None

    def _mark_visited(self) -> None:
        if self._visiting is not None:
            self._set(f"n_{self._visiting}", add=("done",), remove=("current",))
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
        return {n.id: (vals[g] if g >= 0 else None)
                for n, g in zip(self.nodes, self.grad_codes[i].tolist())}

    def released(self, i: int) -> set[str]:
        """Element ids of the nodes whose saved values are released at step ``i``."""
        return {f"n_{nid}" for nid, k in self.released_at.items() if i >= k}

    @property
    def combos(self) -> list[str]:
        return list(self._combos)

    @property
    def grad_values(self) -> list:
        return list(self._gvals)


def _count(n: int, word: str) -> str:
    """``1 node``, ``3 nodes``."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _not_a_tape(obj) -> str:
    """Stepping needs the order things happened in, which only a tape keeps."""
    what = type(obj).__name__
    if is_node(obj):
        what = f"a {what} (a graph node, not a tape)"
    else:
        what = f"a {what}"
    return (f"expected a tape from `with minigrad.record() as tape:`, got {what}. Use "
            "viz.step_through(fn, *inputs), which records fn and its backward for you, or "
            "build the graph inside `with minigrad.record() as tape:` (calling loss.backward() "
            "there) and pass the tape")


def _d(name: str) -> str:
    """``dL/da`` reads well; ``d(#7)``, ``d(loss)`` and ``d(d)`` need parentheses."""
    return name if len(name) == 1 and name != "d" else f"({name})"


def _contribution_text(e, upstream, name=node_name) -> str:
    """``mul: ∂out/∂a = b = 3.0; 2.0 × 3.0 = 6.0 added to a.grad: 0.0 → 6.0``."""
    n, p = e.node, e.parent
    op = n.op
    derivative = e.derivative
    scalar = not _is_array(e.local_grad) and not _is_array(upstream)
    if derivative is None and scalar and upstream:
        # A custom Function's backward is user code, so the tape does not call it
        # again for the bare derivative; for a scalar it is contribution / upstream.
        derivative = e.local_grad / upstream
    deriv = _deriv_text(op, e.slot, derivative, len(n.parents))
    pname = name(p)
    before = _fmt_grad(e.before, p.data)
    after = fmt_value(e.after)
    local = e.local_grad
    if _is_array(local) or _is_array(p.data):
        shape = np.shape(local)
        line = f"{op.name}: {deriv}; upstream × local derivative = {fmt_value(local)}"
        if tuple(shape) != tuple(np.shape(p.data)):
            line += (f", summed over the broadcast axes from {fmt_shape(shape)} to "
                     f"{fmt_shape(np.shape(p.data))}")
        return line + f", added to {pname}.grad: {before} → {after}"
    if derivative is not None and upstream is not None:
        prod = f"{fmt_value(upstream)} × {fmt_num(derivative)} = {fmt_value(local)}"
    else:
        prod = f"upstream × local derivative = {fmt_value(local)}"
    return f"{op.name}: {deriv}; {prod} added to {pname}.grad: {before} → {after}"


class StepperState:
    """A cursor over ``Frames``: the plain object behind the widget and the tests.

    ``step`` is the current frame index (clamped to the valid range; a negative
    one counts from the end); ``next``, ``prev``, ``first``, ``last`` and
    ``goto`` move it; ``frame``, ``panel`` and ``classes`` describe where we are.
    Listeners added with ``observe(fn)`` are called with the new step after
    every move.
    """

    def __init__(self, frames: Frames):
        self.frames = frames
        self._step = 0
        self._listeners = []

    def __len__(self) -> int:
        return len(self.frames)

    @property
    def step(self) -> int:
        return self._step

    @step.setter
    def step(self, i: int) -> None:
        self.goto(i)

    def goto(self, i: int) -> int:
        """Go to step ``i``: negative counts from the end like a list index (``-1``:
        the last step); out of range is clamped to the first or last step."""
        try:
            i = operator.index(i)
        except TypeError:
            raise TypeError(f"goto: the step must be an integer, got {i!r}") from None
        n = len(self.frames)
        return self._move(i + n if i < 0 else i)

    def _move(self, i: int) -> int:
        """Go to step ``i`` clamped to the valid range (``prev`` at 0 stays at 0)."""
        i = max(0, min(i, len(self.frames) - 1))
        if i != self._step:
            self._step = i
            for fn in list(self._listeners):
                fn(i)
        return i

    def next(self) -> int:
        return self._move(self._step + 1)

    def prev(self) -> int:
        return self._move(self._step - 1)

    def first(self) -> int:
        return self._move(0)

    def last(self) -> int:
        return self._move(len(self.frames) - 1)

    def observe(self, fn) -> None:
        self._listeners.append(fn)

    @property
    def at_end(self) -> bool:
        return self._step == len(self.frames) - 1

    @property
    def frame(self) -> Frame:
        return self.frames[self._step]

    @property
    def panel(self) -> str:
        f = self.frame
        return f"{f.title}\n{f.text}"

    @property
    def classes(self) -> dict[str, str]:
        return self.frames.classes(self._step)

    @property
    def grads(self) -> dict[int, object]:
        return self.frames.grads(self._step)

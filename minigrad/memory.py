"""How much memory a graph holds, and why: data, gradients, saved values.

A graph keeps three kinds of arrays alive:

* ``data``: every node's value (inputs, parameters, intermediates);
* ``grad``: gradients, once backward has run;
* ``saved``: what ops kept for their backward rules (``tanh`` keeps its
  output, ``max`` a mask of where the maximum was ...).  Backward releases
  them (``saved`` becomes ``None``) unless ``retain_graph=True``.

``graph_memory(loss)`` walks the graph and reports all three per node and in
total.  Totals count each memory buffer once: a view (``x.T``, a broadcast)
counts its base, and an array saved by two ops counts once.  Many saved arrays
are another node's ``data`` (``mul`` saves its inputs by reference), so the
report also says how much is held *only* by saved values: the memory that
releasing the graph gives back, beyond the data itself.

A gradient's graph (``backward(create_graph=True)``, ``autograd.grad``) is a
graph like any other; its nodes carry their derivative order (``node.order``),
and the report counts nodes per order (``GraphMemory.orders``): the graph of a
first derivative is typically several times the forward graph, and each
further order multiplies again.  ``derivative_orders`` is the one rule for the
order of every node, which the renderers (``viz``) use too.

It counts what the graph holds.  A recording (``record()``, ``step_through``)
holds more: its tape keeps what each op saved, so that a replay can show it,
for as long as the tape lives.  Under ``saved_tensors_hooks`` a node holds what
``pack`` returned: a float16 copy counts its own bytes, and anything that is not
an array or a number (a key into an offload store) counts nothing.

Inside ``vmap`` a value is a batch (``minigrad.batching``) whose ``shape`` is one
example's; it is weighed by the array behind it, every example of every nested
level (``StandIn.every_example``), so the graph of ``vmap(f)`` holds as many bytes
as ``f``'s graph on the stacked batch.  Its row's ``shape`` is that array's too.

``ledger(loss)`` runs one backward pass and records, step by step, the saved
bytes still alive, what each step freed and the peak (``MemoryLedger``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .autograd.saved import Packed
from .autograd.tape import record
from .core.order import topological_order
from .core.standin import StandIn

__all__ = ["GraphMemory", "NodeMemory", "graph_memory", "format_bytes", "derivative_orders",
           "order_counts", "orders_text", "MemoryLedger", "LedgerStep", "NodeLedger", "ledger"]

_FLOAT_BYTES = 8  # a Python float (a Value's data) as an IEEE double


def format_bytes(n: int) -> str:
    """``512 B``, ``1.5 KiB``, ``3.8 MiB``: fixed formatting, so reports are stable."""
    if n < 1024:
        return f"{n} B"
    for unit in ("KiB", "MiB", "GiB"):
        n /= 1024
        if n < 1024 or unit == "GiB":
            return f"{n:.1f} {unit}"
    return f"{n:.1f} GiB"  # pragma: no cover


def derivative_orders(nodes) -> dict[int, int]:
    """``{node id: derivative order}`` for ``nodes`` (a graph in topological order).

    A node's order is ``node.order`` (0: the forward computation; *k*: built by the
    *k*-th nested ``create_graph`` backward pass), with one exception: a constant
    (a leaf that needs no gradient) that only nodes of order >= 1 use gets the
    lowest order among its users.  It was made for that gradient's graph (the
    engine makes the seed ``dL/dL = 1`` of a ``create_graph`` pass just before
    the pass starts, so its own tag says 0), and drawn as part of the forward
    graph it would be misread as an input of the function.
    """
    nodes = list(nodes)
    orders = {n.id: n.order for n in nodes}
    users: dict[int, int] = {}  # constant id -> lowest order among its users
    for n in nodes:
        for p in n.parents:
            if p.op is None and not p.requires_grad and p.origin is None:
                k = orders[n.id]
                users[p.id] = min(users.get(p.id, k), k)
    orders.update(users)
    return orders


def order_counts(orders: dict[int, int]) -> dict[int, int]:
    """``{order: how many nodes}``, lowest order first, from ``derivative_orders``."""
    counts: dict[int, int] = {}
    for k in orders.values():
        counts[k] = counts.get(k, 0) + 1
    return dict(sorted(counts.items()))


def orders_text(counts: dict[int, int]) -> str:
    """``nodes: 12 (order 0: 5, order 1: 7)``: the one way reports say it."""
    parts = ", ".join(f"order {k}: {n}" for k, n in sorted(counts.items()))
    return f"nodes: {sum(counts.values())} ({parts})"


def _buffer(x):
    """(key, bytes) of the memory behind ``x``: a view is charged to its base array (a
    gradient that is a node, after ``create_graph``, is charged by its data; a batch, by
    the array holding all its examples)."""
    if hasattr(x, "parents") and hasattr(x, "data"):
        x = x.data
    if isinstance(x, StandIn):
        x = x.every_example()
    if isinstance(x, np.ndarray):
        base = x
        while isinstance(base.base, np.ndarray):
            base = base.base
        return id(base), int(base.nbytes)
    if isinstance(x, (float, int, np.generic)) and not isinstance(x, bool):
        return None, _FLOAT_BYTES
    return None, 0


_NUMBERS = (np.ndarray, StandIn, float, int, np.generic)


def _saved_arrays(saved):
    """The array-like items of a node's saved tuple (a custom Function's ctx is skipped).

    Of a packed tuple (``saved_tensors_hooks``), a packed item counts only if it is
    an array or a float: an int there is a key into someone else's store."""
    if isinstance(saved, Packed):
        return [s for s, spec in zip(saved, saved.specs)
                if isinstance(s, _NUMBERS if spec is None else (np.ndarray, StandIn, float,
                                                                  np.generic))
                and not isinstance(s, bool)]
    return [s for s in saved if isinstance(s, _NUMBERS) and not isinstance(s, bool)]


def _saved_buffers(node) -> dict:
    """``{buffer key: bytes}`` of what ``node``'s op saved, each buffer once (an item
    that is no array gets a key of its own, as in ``graph_memory``)."""
    buffers = {}
    for count, item in enumerate(_saved_arrays(node.saved or ()), 1):
        key, size = _buffer(item)
        buffers[key if key is not None else ("scalar", node.id, count)] = size
    return buffers


@dataclass
class NodeMemory:
    """One node's share: bytes of its data, its grad and its saved values."""

    id: int
    op: str  # op name, or "leaf"
    name: str | None
    shape: tuple | None
    data_bytes: int
    grad_bytes: int
    saved_bytes: int
    saved_count: int
    released: bool  # saved values already freed by backward
    order: int = 0  # derivative order (``derivative_orders``)


@dataclass
class GraphMemory:
    """Memory held by a graph (see the module doc); ``print()`` it for a table."""

    nodes: list = field(default_factory=list)
    data_bytes: int = 0
    grad_bytes: int = 0
    saved_bytes: int = 0
    saved_only_bytes: int = 0
    #: ``{derivative order: node count}``: ``{0: n}`` for a forward graph
    orders: dict = field(default_factory=dict)

    @property
    def total_bytes(self) -> int:
        """Everything the graph keeps alive: data + grads + buffers held only by saved values."""
        return self.data_bytes + self.grad_bytes + self.saved_only_bytes

    def table(self) -> str:
        rows = [("id", "op", "name", "shape", "data", "grad", "saved")]
        for n in self.nodes:
            if n.op == "leaf":
                saved = "-"
            elif n.released:
                saved = "released"
            else:
                saved = f"{format_bytes(n.saved_bytes)} ({n.saved_count})"
            rows.append((
                f"#{n.id}", n.op, n.name or "", "" if n.shape is None else str(n.shape),
                format_bytes(n.data_bytes), format_bytes(n.grad_bytes) if n.grad_bytes else "-",
                saved,
            ))
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        right = {0, 4, 5, 6}
        lines = ["  ".join(c.rjust(w) if i in right else c.ljust(w)
                           for i, (c, w) in enumerate(zip(r, widths))).rstrip() for r in rows]
        lines.insert(1, "-" * len(lines[0]))
        lines.append(
            f"total: data {format_bytes(self.data_bytes)}, grad {format_bytes(self.grad_bytes)}, "
            f"saved {format_bytes(self.saved_bytes)} "
            f"({format_bytes(self.saved_only_bytes)} held only by saved values)")
        if self.has_gradient_graph:  # (a forward graph's table stays as it always was)
            lines.append(orders_text(self.orders))
        return "\n".join(lines)

    @property
    def has_gradient_graph(self) -> bool:
        """Whether some node was built by a ``create_graph`` backward pass (order >= 1)."""
        return any(k > 0 for k in self.orders)

    def __str__(self) -> str:
        return self.table()

    def __repr__(self) -> str:
        per = ""
        if self.has_gradient_graph:
            per = " (" + orders_text(self.orders).split(" (", 1)[1]
        return (f"<GraphMemory {len(self.nodes)} nodes{per}: data {format_bytes(self.data_bytes)}, "
                f"grad {format_bytes(self.grad_bytes)}, saved {format_bytes(self.saved_bytes)}>")


def _shape(data) -> tuple | None:
    """The shape of the array a node's data is (a batch's: every example's), else None."""
    if isinstance(data, StandIn):
        data = data.every_example()
    return tuple(data.shape) if isinstance(data, np.ndarray) else None


def graph_memory(root) -> GraphMemory:
    """Report the memory held by every node ``root`` depends on (``root`` may be a list)."""
    report = GraphMemory()
    data_buffers: dict = {}  # buffer key -> bytes (each buffer counted once)
    grad_buffers: dict = {}
    saved_buffers: dict = {}
    order = topological_order(root)
    orders = derivative_orders(order)
    report.orders = order_counts(orders)
    for node in order:
        data_key, data_bytes = _buffer(node.data)
        grad_key, grad_bytes = _buffer(node.grad) if node.grad is not None else (None, 0)
        if data_key is None:
            report.data_bytes += data_bytes
        else:
            data_buffers[data_key] = data_bytes
        if grad_key is None:
            report.grad_bytes += grad_bytes
        else:
            grad_buffers[grad_key] = grad_bytes
        saved = node.saved
        saved_bytes = count = 0
        if node.op is not None and saved:
            for item in _saved_arrays(saved):
                key, size = _buffer(item)
                saved_bytes += size
                count += 1
                saved_buffers[key if key is not None else ("scalar", node.id, count)] = size
        report.nodes.append(NodeMemory(
            node.id, "leaf" if node.op is None else node.op.name, node.label,
            _shape(node.data),
            data_bytes, grad_bytes, saved_bytes, count,
            node.op is not None and saved is None, orders[node.id],
        ))
    report.data_bytes += sum(data_buffers.values())
    report.grad_bytes += sum(size for key, size in grad_buffers.items() if key not in data_buffers)
    report.saved_bytes = sum(saved_buffers.values())
    report.saved_only_bytes = sum(size for key, size in saved_buffers.items()
                                  if key not in data_buffers and key not in grad_buffers)
    return report


# --------------------------------------------------------------------- the ledger


@dataclass
class LedgerStep:
    """The saved bytes around one backward step (one node visited); ``MemoryLedger.steps``."""

    index: int
    node: int | None  # the id of the node visited; None for step 0, before the first visit
    op: str | None
    alive: int  # saved bytes alive at the end of the step
    freed: int = 0  # bytes this step gave back (its node's saved values, once released)
    allocated: int = 0  # saved bytes that appeared during it (a checkpoint's recomputed block)
    peak: int = 0  # the most that was alive at any moment up to the end of this step


@dataclass
class NodeLedger:
    """One node's saved values: how many bytes, and when backward gave them back."""

    id: int
    op: str
    name: str | None
    saved_bytes: int  # its saved buffers, each once
    freed_bytes: int = 0  # what releasing it gave back: buffers no other live node still held
    freed_at: int | None = None  # the step that released it


class MemoryLedger:
    """The saved memory of one backward pass, step by step: a recorder (``record()``).

    ``steps[0]`` is the state before the first node is visited, ``steps[k]`` the state
    after the *k*-th visit, so a step-through can index it by the visits it replays.
    Each step says how many saved bytes are alive, how many it freed or allocated
    (a checkpointed block, recomputed, saves again) and the running peak; ``nodes``
    has each node's share.  Bytes are counted as ``graph_memory`` counts its saved
    column (each buffer once; a buffer saved by two nodes is freed with the last).
    ``freed`` means no saved value refers to it any more: a buffer that is also a
    node's ``data`` or a parameter stays in memory.  ``ignore``: tensors whose buffers
    are not counted (a model's parameters, alive all run long: what is left are the
    activations).  Use ``ledger(loss)``, or pass an instance to ``record()`` around a
    backward call you make yourself.
    """

    def __init__(self, ignore=()):
        self._ignore = {_buffer(t)[0] for t in ignore} - {None}
        self.steps: list[LedgerStep] = [LedgerStep(0, None, None, 0)]
        self.nodes: dict[int, NodeLedger] = {}
        self._refs: dict = {}  # buffer key -> how many unreleased nodes hold it
        self._sizes: dict = {}  # buffer key -> bytes
        self._held: dict = {}  # node id -> its buffer keys
        self._alive = 0
        self._peak = 0

    # --- recorder protocol ----------------------------------------------------------
    def created(self, node) -> None:
        if node.op is not None and node.saved is not None:
            self._hold(node)

    def seeded(self, root, seed) -> None:
        """Backward starts: take in every node of the graph that still holds saved values."""
        for node in topological_order(root):
            if node.op is not None and node.saved is not None and node.id not in self._held:
                self._hold(node)

    def visit(self, node, upstream) -> None:
        self.steps.append(LedgerStep(len(self.steps), node.id, node.op.name, self._alive,
                                     peak=self._peak))

    def contribute(self, node, parent, slot, local_grad, before, after) -> None:
        pass

    def freed(self, node, saved) -> None:
        keys = self._held.pop(node.id, None)
        if keys is None:
            return
        step = self.steps[-1]
        gone = 0
        for key in keys:
            left = self._refs[key] - 1
            if left:
                self._refs[key] = left
            else:
                del self._refs[key]
                gone += self._sizes.pop(key)
        self._alive -= gone
        step.freed += gone
        step.alive = self._alive
        entry = self.nodes[node.id]
        entry.freed_bytes, entry.freed_at = gone, step.index

    def _hold(self, node) -> None:
        buffers = _saved_buffers(node)
        for key in self._ignore.intersection(buffers):
            del buffers[key]
        self._held[node.id] = list(buffers)
        self.nodes[node.id] = NodeLedger(node.id, node.op.name, node.label,
                                         sum(buffers.values()))
        new = 0
        for key, size in buffers.items():
            if key in self._refs:
                self._refs[key] += 1
            else:
                self._refs[key] = 1
                self._sizes[key] = size
                new += size
        self._alive += new
        self._peak = max(self._peak, self._alive)
        step = self.steps[-1]
        step.allocated += new
        step.alive, step.peak = self._alive, self._peak

    # --- reading it ---------------------------------------------------------------
    @property
    def start(self) -> int:
        """Saved bytes alive when backward began."""
        return self.steps[0].alive

    @property
    def peak(self) -> int:
        return self._peak

    @property
    def alive(self) -> int:
        """Saved bytes still alive (after a full pass without ``retain_graph``: 0)."""
        return self._alive

    @property
    def total_freed(self) -> int:
        return sum(s.freed for s in self.steps)

    def series(self) -> dict:
        """One list per column, index = step: plain numbers, ready for JSON or a plot."""
        return {"node": [s.node for s in self.steps], "op": [s.op for s in self.steps],
                "alive": [s.alive for s in self.steps], "freed": [s.freed for s in self.steps],
                "allocated": [s.allocated for s in self.steps],
                "peak": [s.peak for s in self.steps]}

    def __len__(self) -> int:
        return len(self.steps)

    def __getitem__(self, k) -> LedgerStep:
        return self.steps[k]

    def table(self) -> str:
        rows = [("step", "node", "op", "alive", "freed", "new", "peak")]
        for s in self.steps:
            rows.append((str(s.index), "-" if s.node is None else f"#{s.node}",
                         s.op or "(start)", format_bytes(s.alive),
                         format_bytes(s.freed) if s.freed else "-",
                         format_bytes(s.allocated) if s.allocated else "-",
                         format_bytes(s.peak)))
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        lines = ["  ".join(c.ljust(w) if i == 2 else c.rjust(w)
                           for i, (c, w) in enumerate(zip(r, widths))).rstrip() for r in rows]
        lines.insert(1, "-" * len(lines[0]))
        lines.append(f"start {format_bytes(self.start)}, peak {format_bytes(self.peak)}, "
                     f"freed {format_bytes(self.total_freed)}, left {format_bytes(self.alive)}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()

    def __repr__(self) -> str:
        return (f"<MemoryLedger {len(self.steps) - 1} steps: start {format_bytes(self.start)}, "
                f"peak {format_bytes(self.peak)}, left {format_bytes(self.alive)}>")


def ledger(root, gradient=None, retain_graph: bool | None = None, create_graph: bool = False,
           *, scheduler: str = "sorted", ignore=()) -> MemoryLedger:
    """Run ``root.backward(...)`` (same arguments) and return its ``MemoryLedger``.

    The pass is recorded, so it runs the reference engine: the same gradients, bit
    for bit.  With ``retain_graph=True`` nothing is freed, and the ledger says so.
    ``ignore``: tensors not to count, e.g. ``model.parameters()`` (``MemoryLedger``)."""
    book = MemoryLedger(ignore)
    with record(book):
        root.backward(gradient, retain_graph=retain_graph, create_graph=create_graph,
                      scheduler=scheduler)
    return book

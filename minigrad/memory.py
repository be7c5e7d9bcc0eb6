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
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .autograd.graph import topological_order
from .autograd.saved import Packed

__all__ = ["GraphMemory", "NodeMemory", "graph_memory", "format_bytes", "derivative_orders",
           "order_counts", "orders_text"]

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
    gradient that is a node, after ``create_graph``, is charged by its data)."""
    if hasattr(x, "parents") and hasattr(x, "data"):
        x = x.data
    if isinstance(x, np.ndarray):
        base = x
        while isinstance(base.base, np.ndarray):
            base = base.base
        return id(base), int(base.nbytes)
    if isinstance(x, (float, int, np.generic)) and not isinstance(x, bool):
        return None, _FLOAT_BYTES
    return None, 0


_NUMBERS = (np.ndarray, float, int, np.generic)


def _saved_arrays(saved):
    """The array-like items of a node's saved tuple (a custom Function's ctx is skipped).

    Of a packed tuple (``saved_tensors_hooks``), a packed item counts only if it is
    an array or a float: an int there is a key into someone else's store."""
    if isinstance(saved, Packed):
        return [s for s, spec in zip(saved, saved.specs)
                if isinstance(s, _NUMBERS if spec is None else (np.ndarray, float, np.generic))
                and not isinstance(s, bool)]
    return [s for s in saved if isinstance(s, _NUMBERS) and not isinstance(s, bool)]


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
            tuple(node.data.shape) if isinstance(node.data, np.ndarray) else None,
            data_bytes, grad_bytes, saved_bytes, count,
            node.op is not None and saved is None, orders[node.id],
        ))
    report.data_bytes += sum(data_buffers.values())
    report.grad_bytes += sum(size for key, size in grad_buffers.items() if key not in data_buffers)
    report.saved_bytes = sum(saved_buffers.values())
    report.saved_only_bytes = sum(size for key, size in saved_buffers.items()
                                  if key not in data_buffers and key not in grad_buffers)
    return report


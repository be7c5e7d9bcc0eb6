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

It counts what the graph holds.  A recording (``record()``, ``step_through``)
holds more: its tape keeps what each op saved, so that a replay can show it,
for as long as the tape lives.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .autograd.graph import topological_order

__all__ = ["GraphMemory", "NodeMemory", "graph_memory", "format_bytes"]

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


def _buffer(x):
    """(key, bytes) of the memory behind ``x``: a view is charged to its base array."""
    if isinstance(x, np.ndarray):
        base = x
        while isinstance(base.base, np.ndarray):
            base = base.base
        return id(base), int(base.nbytes)
    if isinstance(x, (float, int, np.generic)) and not isinstance(x, bool):
        return None, _FLOAT_BYTES
    return None, 0


def _saved_arrays(saved):
    """The array-like items of a node's saved tuple (a custom Function's ctx is skipped)."""
    return [s for s in saved if isinstance(s, (np.ndarray, float, int, np.generic))
            and not isinstance(s, bool)]


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


@dataclass
class GraphMemory:
    """Memory held by a graph (see the module doc); ``print()`` it for a table."""

    nodes: list = field(default_factory=list)
    data_bytes: int = 0
    grad_bytes: int = 0
    saved_bytes: int = 0
    saved_only_bytes: int = 0

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
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()

    def __repr__(self) -> str:
        return (f"<GraphMemory {len(self.nodes)} nodes: data {format_bytes(self.data_bytes)}, "
                f"grad {format_bytes(self.grad_bytes)}, saved {format_bytes(self.saved_bytes)}>")


def graph_memory(root) -> GraphMemory:
    """Report the memory held by every node ``root`` depends on (``root`` may be a list)."""
    report = GraphMemory()
    data_buffers: dict = {}  # buffer key -> bytes (each buffer counted once)
    grad_buffers: dict = {}
    saved_buffers: dict = {}
    for node in topological_order(root):
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
            node.op is not None and saved is None,
        ))
    report.data_bytes += sum(data_buffers.values())
    report.grad_bytes += sum(size for key, size in grad_buffers.items() if key not in data_buffers)
    report.saved_bytes = sum(saved_buffers.values())
    report.saved_only_bytes = sum(size for key, size in saved_buffers.items()
                                  if key not in data_buffers and key not in grad_buffers)
    return report

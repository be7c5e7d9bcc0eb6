"""Counting what a transform costs: passes and ops.

Reverse mode gets a Jacobian one *row* per backward pass, forward mode one
*column* per forward pass.  ``count_passes`` makes that concrete::

    with count_passes() as n:
        jacrev(f)(x)
    n.forward, n.backward, n.ops        # 1 forward pass, m backward passes, ...

``forward`` counts runs of the function (each ``jvp`` direction is one forward
pass carrying a tangent; a transform nested in another runs inside the outer
one's pass: ``hvp`` is one forward pass carrying a tangent, then one
backward), ``backward`` the backward passes, ``ops`` the op executions: each
op the function runs, plus each node a backward pass visits (calling that
op's rules).

``jacrev`` and ``jacfwd`` push their basis directions through one function
(``reverse.vjp_rows``, ``forward.jvp_columns``), ``chunk_size`` directions at a
time.  Those loop today, so a Jacobian still counts one pass per direction
whatever the chunk size; a batched pass there will count one pass per chunk.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass

from ..autograd.tape import record

__all__ = ["Passes", "count_passes"]


@dataclass
class Passes:
    """What ran inside a ``count_passes`` block."""

    forward: int = 0
    backward: int = 0
    forward_ops: int = 0
    backward_ops: int = 0

    @property
    def ops(self) -> int:
        """Op executions, forward and backward together."""
        return self.forward_ops + self.backward_ops

    def __str__(self) -> str:
        return (f"{self.forward} forward pass{'es' * (self.forward != 1)}, "
                f"{self.backward} backward pass{'es' * (self.backward != 1)}, "
                f"{self.ops} ops ({self.forward_ops} forward, {self.backward_ops} backward)")


_ACTIVE: list[Passes] = []


def forward_pass(nested: bool = False) -> None:
    """A transform is about to run its function once (called by the transforms).  A
    transform nested in another (``grad`` inside ``jvp``: ``hvp``) runs inside the
    outer one's pass, so only the outermost counts it."""
    if nested:
        return
    for p in _ACTIVE:
        p.forward += 1


def backward_pass() -> None:
    """A transform ran one backward pass (called by the transforms)."""
    for p in _ACTIVE:
        p.backward += 1


class _OpCounter:
    """A recorder that counts op executions: forward, each op result of the forward
    computation (recorded, or carrying a tangent with no graph); backward, each node
    a backward pass visits.  The nodes a ``create_graph`` backward builds (order ≥ 1)
    are that pass's own work, counted by its visits."""

    def __init__(self, passes: Passes):
        self.passes = passes
        self.counted: set[int] = set()

    def created(self, node) -> None:
        if node.op is not None and node.order == 0:
            self.counted.add(node.id)
            self.passes.forward_ops += 1

    def tangent(self, node, op, parent, slot, incoming, contribution, total,
                derivative=None) -> None:
        if node.id not in self.counted and node.order == 0:
            self.counted.add(node.id)
            self.passes.forward_ops += 1

    def seeded(self, node, grad) -> None:
        pass

    def visit(self, node, upstream) -> None:
        self.passes.backward_ops += 1

    def contribute(self, node, parent, slot, local_grad, before, after) -> None:
        pass


@contextmanager
def count_passes():
    """``with count_passes() as n:`` counts the passes and ops the transforms run inside."""
    passes = Passes()
    _ACTIVE.append(passes)
    try:
        with record(_OpCounter(passes)):
            yield passes
    finally:
        _ACTIVE.remove(passes)

"""Counting what a transform costs: passes and ops.

Reverse mode gets a Jacobian one *row* per backward pass, forward mode one
*column* per forward pass.  ``count_passes`` makes that concrete::

    with count_passes() as n:
        jacrev(f)(x)
    n.forward, n.backward, n.ops        # 1 forward pass, m backward passes, ...

``forward`` counts runs of the function (a ``jvp`` is one forward pass carrying
a tangent; a transform nested in another runs inside the outer one's pass:
``hvp`` is one forward pass carrying a tangent, then one backward), ``backward``
the backward passes, ``ops`` the op executions: each op the function runs, plus
each node a backward pass visits (calling that op's rules).

``jacrev`` and ``jacfwd`` push their basis directions through one function
(``reverse.vjp_rows``, ``forward.jvp_columns``), ``chunk_size`` directions at a
time, as **one batched pass per chunk** (``vmap`` over the stack of directions).
So ``forward``/``backward`` count *engine passes*, and ``forward_directions`` /
``backward_directions`` how many directions those passes carried in all: jacrev
of a map with 256 outputs is 1 backward pass carrying 256 directions
(``chunk_size=1``: 256 passes carrying one each, the loop).
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass

from ..autograd.tape import record

__all__ = ["Passes", "count_passes", "carrying"]


@dataclass
class Passes:
    """What ran inside a ``count_passes`` block."""

    forward: int = 0
    backward: int = 0
    forward_ops: int = 0
    backward_ops: int = 0
    #: directions (tangents, cotangents) the passes carried: one per plain pass, ``k`` for
    #: a pass batched over ``k`` Jacobian directions
    forward_directions: int = 0
    backward_directions: int = 0

    @property
    def ops(self) -> int:
        """Op executions, forward and backward together."""
        return self.forward_ops + self.backward_ops

    def __str__(self) -> str:
        return (f"{_passes(self.forward, self.forward_directions, 'forward')}, "
                f"{_passes(self.backward, self.backward_directions, 'backward')}, "
                f"{self.ops} ops ({self.forward_ops} forward, {self.backward_ops} backward)")


def _passes(n: int, directions: int, kind: str) -> str:
    text = f"{n} {kind} pass{'es' * (n != 1)}"
    if directions != n:  # (some pass was batched: say how much it carried)
        text += f" carrying {directions} direction{'s' * (directions != 1)}"
    return text


_ACTIVE: list[Passes] = []
#: how many directions a pass counted now carries (``carrying``; 1 outside a batched seam)
_WIDTH = [1]


@contextmanager
def carrying(directions: int):
    """The passes counted inside carry ``directions`` directions at once (a Jacobian seam
    batching its chunk).  Nested seams multiply: hessian's inner backward pass runs
    inside the outer forward pass's batch of tangents, so it carries them too."""
    _WIDTH.append(_WIDTH[-1] * directions)
    try:
        yield
    finally:
        _WIDTH.pop()


def forward_pass(nested: bool = False) -> None:
    """A transform is about to run its function once (called by the transforms).  A
    transform nested in another (``grad`` inside ``jvp``: ``hvp``) runs inside the
    outer one's pass, so only the outermost counts it."""
    if nested:
        return
    for p in _ACTIVE:
        p.forward += 1
        p.forward_directions += _WIDTH[-1]


def backward_pass() -> None:
    """A transform ran one backward pass (called by the transforms)."""
    for p in _ACTIVE:
        p.backward += 1
        p.backward_directions += _WIDTH[-1]


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

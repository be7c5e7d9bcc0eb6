"""minigrad.memory inside ``vmap``: a batch weighs all its examples (every nested level),
so ``vmap(f)``'s graph holds, step for step, what ``f``'s graph holds on the stacked batch."""

from __future__ import annotations

import numpy as np
import pytest

from minigrad import Tensor, func, graph_memory
from minigrad.memory import ledger


def f(w, x):
    return (x * w).tanh().exp()  # mul saves x and w, tanh and exp their outputs


def _loss(fn, w, x):
    return fn(Tensor(w, requires_grad=True), Tensor(x, requires_grad=True)).sum()


def _vmapped(levels: int):
    fn = f
    for _ in range(levels):
        fn = func.vmap(fn, in_dims=(None, 0))
    return fn


def _own_ops(book) -> list[int]:
    """The bytes alive after each visit of one of f's own ops (vmap's move_batch skipped)."""
    return [s.alive for s in book.steps[1:] if s.op != "move_batch"]


@pytest.mark.parametrize("batch", [(5,), (4, 5)], ids=["vmap", "vmap(vmap)"])
def test_the_ledger_of_vmap_f_is_the_ledger_of_f_on_the_stacked_batch(batch):
    rng = np.random.default_rng(0)
    w, xs = rng.normal(size=3), rng.normal(size=batch + (3,))
    batched = ledger(_loss(_vmapped(len(batch)), w, xs))
    stacked = ledger(_loss(f, w, xs))
    assert batched.start == batched.peak == stacked.start == stacked.peak
    assert batched.total_freed == stacked.total_freed and batched.alive == 0
    assert _own_ops(batched) == _own_ops(stacked)
    # by hand: mul keeps x (every example) and w (shared: once, not once per example);
    # tanh and exp each keep an output of every example
    assert batched.peak == 3 * xs.nbytes + w.nbytes
    by_op = {n.op: n.saved_bytes for n in batched.nodes.values()}
    assert by_op["mul"] == xs.nbytes + w.nbytes and by_op["tanh"] == by_op["exp"] == xs.nbytes


@pytest.mark.parametrize("batch", [(5,), (4, 5)], ids=["vmap", "vmap(vmap)"])
def test_graph_memory_of_vmap_f_weighs_every_example(batch):
    rng = np.random.default_rng(1)
    w, xs = rng.normal(size=3), rng.normal(size=batch + (3,))
    batched = graph_memory(_loss(_vmapped(len(batch)), w, xs))
    stacked = graph_memory(_loss(f, w, xs))
    assert (batched.data_bytes, batched.saved_bytes, batched.saved_only_bytes) == (
        stacked.data_bytes, stacked.saved_bytes, stacked.saved_only_bytes)
    rows = {n.op: n for n in batched.nodes}
    assert rows["tanh"].data_bytes == rows["tanh"].saved_bytes == xs.nbytes
    assert rows["tanh"].shape == xs.shape  # the rows' shape is the array weighed
    # vmap's way in is a view of x: x's buffer counts once, not per node
    assert all(n.data_bytes == xs.nbytes for n in batched.nodes if n.op == "move_batch")


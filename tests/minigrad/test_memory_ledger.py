"""memory.ledger: the saved bytes of one backward pass, step by step, per node, in total."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad
from minigrad import Tensor, Value, graph_memory, nn
from minigrad.autograd import record
from minigrad.memory import MemoryLedger, ledger


def _mlp_loss(seed=0):
    minigrad.manual_seed(seed)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 16), nn.Tanh(),
                          nn.Linear(16, 1))
    return model, model(minigrad.randn(4, 8, seed=seed + 1)).sum()


def test_the_ledger_starts_at_graph_memory_and_frees_everything():
    _, loss = _mlp_loss()
    start = graph_memory(loss).saved_bytes
    ops = [n for n in minigrad.topological_order(loss) if n.op is not None]
    book = ledger(loss)
    assert book.start == start > 0
    assert len(book) == len(ops) + 1  # step 0, then one step per node visited
    assert book.alive == 0 and book.total_freed == start and book.peak == start
    assert sum(n.freed_bytes for n in book.nodes.values()) == start


def test_each_step_is_the_previous_one_minus_what_it_freed():
    _, loss = _mlp_loss()
    book = ledger(loss)
    for prev, step in zip(book.steps, book.steps[1:]):
        assert step.alive == prev.alive - step.freed + step.allocated
        assert step.peak >= max(step.alive, prev.peak)
    visited = [s.node for s in book.steps[1:]]
    assert visited == sorted(visited, reverse=True)  # the sorted order: newest node first
    for node in book.nodes.values():
        assert book[node.freed_at].node == node.id  # released at its own visit


def test_a_buffer_saved_by_two_nodes_counts_once_and_is_freed_with_the_last():
    x = Tensor(np.ones(100, np.float32), requires_grad=True)
    a = x.exp()  # saves its output, 400 bytes
    loss = (a * 2.0).sum() + (a * 3.0).sum()  # both products save a again
    before = graph_memory(loss).saved_bytes
    book = ledger(loss)
    per_node = {n.op: n for n in book.nodes.values() if n.op != "mul"}
    muls = [n for n in book.nodes.values() if n.op == "mul"]
    assert book.start == before == 400 + 2 * 4  # a once, and the two constants
    assert [n.freed_bytes for n in muls] == [4, 4]  # its constant: exp still holds a
    assert per_node["exp"].freed_bytes == 400  # the last holder gives it back


def test_ignored_parameters_leave_the_activations():
    model, loss = _mlp_loss()
    params = model.parameters()
    everything = graph_memory(loss).saved_bytes
    book = ledger(loss, ignore=params)
    weights = [m.weight for m in model if isinstance(m, nn.Linear)]  # (biases are not saved)
    assert book.start == everything - sum(w.data.nbytes for w in weights) > 0
    assert book.alive == 0


def test_retain_graph_frees_nothing():
    _, loss = _mlp_loss()
    book = ledger(loss, retain_graph=True)
    assert book.total_freed == 0 and book.alive == book.start == book.peak > 0


def test_both_schedulers_give_the_same_ledger():
    _, a = _mlp_loss()
    _, b = _mlp_loss()
    dfs, queue = ledger(a).series(), ledger(b, scheduler="ready-queue").series()
    assert {k: v for k, v in dfs.items() if k != "node"} == \
        {k: v for k, v in queue.items() if k != "node"}


def test_the_ledger_listens_beside_a_tape_and_indexes_by_visit():
    _, loss = _mlp_loss()
    book = MemoryLedger()
    with record() as tape, record(book):
        loss.backward()
    visits = [e.node.id for e in tape.events if e.kind == "visit"]
    assert [s.node for s in book.steps[1:]] == visits


def test_value_graphs_count_each_saved_float():
    a, b = Value(0.5, requires_grad=True), Value(2.0, requires_grad=True)
    out = (a * b).tanh()
    before = graph_memory(out).saved_bytes
    book = ledger(out)
    assert book.start == before == 3 * 8 and book.alive == 0  # a, b, tanh's output


def test_the_table_and_series_have_one_row_per_step():
    _, loss = _mlp_loss()
    book = ledger(loss)
    assert len(book.table().splitlines()) == len(book) + 3  # header, rule, total
    assert all(len(v) == len(book) for v in book.series().values())
    assert "peak" in repr(book)


def test_plot_memory_ledger_draws_the_alive_line_and_the_frees():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import viz

    _, loss = _mlp_loss()
    book = ledger(loss)
    fig = viz.plot_memory_ledger(book)
    (ax,) = fig.axes
    alive = ax.get_lines()[0]
    assert len(alive.get_xdata()) == len(book)
    assert len(ax.patches) == len(book)  # one freed bar per step
    assert ax.get_ylabel().startswith("saved memory")
    with pytest.raises(TypeError, match="MemoryLedger"):
        viz.plot_memory_ledger([1, 2, 3])

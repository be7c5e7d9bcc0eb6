"""The ready-queue scheduler (``engines/ready_queue.py``): PyTorch's order, the reference's bits.

The registry-wide bit-for-bit comparison of first-order passes lives in
``test_engine_equivalence.py`` (its ``ready-queue`` paths); here: the counts,
the moment a node turns ready, the order, the events, and ``create_graph``.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad  # noqa: F401  (registers every op)
from minigrad import Tensor, Value, apply_op, record
from minigrad.autograd import NotTwiceDifferentiableError, Op, grad, registered_ops
from minigrad.core.op import no_gradient
from minigrad.core.order import topological_order
from minigrad.engines import choose
from minigrad.engines.ready_queue import dependencies
from tests._helpers import one_output


def _random_graph(seed, n_leaves=3, n_ops=25):
    """A random DAG of scalar ops over a few leaves: nodes used by many, unused, chains."""
    rng = np.random.default_rng(seed)
    leaves = [Value(float(v), requires_grad=True) for v in rng.uniform(0.5, 1.5, n_leaves)]
    nodes = list(leaves)
    for _ in range(n_ops):
        a, b = (nodes[i] for i in rng.integers(0, len(nodes), 2))
        kind = rng.integers(0, 4)
        nodes.append(a * b if kind == 0 else a + b if kind == 1 else
                     (a - b).tanh() if kind == 2 else a * 0.5 + b.exp() * 0.1)
    root = nodes[-1]
    for extra in nodes[n_leaves:-1:3]:  # join some branches into the root
        root = root + extra
    return leaves, root


def _edges_into(order):
    count = {}
    for node in order:
        for p in node.parents:
            if p.requires_grad:
                count[p.id] = count.get(p.id, 0) + 1
    return count


def test_pending_counts_count_every_edge_into_a_node():
    x = Value(2.0, requires_grad=True)
    c = Value(3.0, requires_grad=False)  # a constant: nothing to wait for
    y = x * x  # two edges into x
    z = y * c + y  # two edges into y
    counts = dependencies(topological_order(z, leaves=False))
    assert counts[x.id] == 2
    assert counts[y.id] == 2
    assert c.id not in counts and z.id not in counts


@pytest.mark.parametrize("seed", range(6))
def test_a_node_turns_ready_with_its_last_contribution_and_runs_after(seed):
    leaves, root = _random_graph(seed)
    with record() as tape:
        root.backward(scheduler="ready-queue")
    timeline = tape.timeline
    (scheduled,) = [e for e in timeline if e.kind == "scheduled"]
    assert scheduled.counts == _edges_into(topological_order(root, leaves=False))
    received: dict = {}
    ready_at = {}
    for i, e in enumerate(timeline):
        if e.kind == "contribute":
            received[e.parent.id] = received.get(e.parent.id, 0) + 1
            assert e.parent.id not in ready_at, "a contribution came after the node was ready"
        elif e.kind == "ready":
            assert received.get(e.node.id, 0) == scheduled.counts.get(e.node.id, 0)
            ready_at[e.node.id] = i
        elif e.kind == "visit":
            assert ready_at[e.node.id] < i
    # every node that needs a gradient turned ready exactly once
    assert set(ready_at) == set(scheduled.counts) | {root.id}
    assert len([e for e in timeline if e.kind == "ready"]) == len(ready_at)


@pytest.mark.parametrize("seed", range(6))
def test_ready_queue_runs_the_newest_ready_node_first_which_is_the_reference_order(seed):
    visits, grads = {}, {}
    for scheduler in ("sorted", "ready-queue"):
        leaves, root = _random_graph(seed)
        with record() as tape:
            root.backward(scheduler=scheduler)
        visits[scheduler] = [e.node.id - root.id for e in tape.events if e.kind == "visit"]
        grads[scheduler] = [np.float64(x.grad).tobytes() for x in leaves]
        for e in tape.timeline:
            if e.kind == "ready":
                assert list(e.queue) == sorted(e.queue, reverse=True)
    assert visits["ready-queue"] == visits["sorted"]
    assert grads["ready-queue"] == grads["sorted"]


#: an op (not registered) whose rule sends nothing back: ``stop(a) = 3a``, "∂/∂a = 0"
STOP = Op(name="stop", engine="tensor", symbol="⊘", forward=lambda a: (a * 3.0, ()),
          grads=(no_gradient,), formulas=("∂/∂a: none",))


def test_a_node_that_receives_nothing_still_releases_its_parents():
    """A rule may send no gradient (``None``); the parent still stops waiting for it."""

    def run(scheduler):
        x = Tensor(np.array([1.0, 2.0]), requires_grad=True)
        a = x * 2.0
        b = apply_op(STOP, a).tanh()  # b's rules run, a gets nothing along this edge
        root = (apply_op(STOP, a) + b + x).sum()
        with record() as tape:
            root.backward(scheduler=scheduler)
        return x.grad, tape

    expected, _ = run("sorted")
    got, tape = run("ready-queue")
    assert got.tobytes() == expected.tobytes()
    (scheduled,) = [e for _, e in tape.notes if e.kind == "scheduled"]
    ready = [e.node.id for _, e in tape.notes if e.kind == "ready"]
    assert len(ready) == len(scheduled.counts) + 1  # every counted node, and the root


def test_the_tape_keeps_new_kinds_apart_and_the_timeline_in_order():
    x = Value(1.5, requires_grad=True)
    with record() as tape:
        y = (x * x).tanh()
        y.backward(scheduler="ready-queue")
    assert {e.kind for e in tape.events} <= {"created", "seeded", "visit", "contribute"}
    assert {e.kind for _, e in tape.notes} == {"scheduled", "ready", "freed"}
    timeline = tape.timeline
    assert len(timeline) == len(tape.events) + len(tape.notes)
    kinds = [e.kind for e in timeline if e.kind != "created"]
    assert kinds[:4] == ["scheduled", "seeded", "ready", "visit"]


def test_a_recorder_without_the_new_methods_still_works():
    class Old:
        def __init__(self):
            self.visits = 0

        def created(self, node): pass
        def seeded(self, node, grad): pass
        def contribute(self, *args): pass

        def visit(self, node, upstream):
            self.visits += 1

    x = Value(0.5, requires_grad=True)
    y = x.exp() * x
    y.register_hook(lambda g: g * 2)
    old = Old()
    with record(old):
        y.backward(scheduler="ready-queue")
    assert old.visits == 2
    assert x.grad == pytest.approx(2 * (np.exp(0.5) * 0.5 + np.exp(0.5)))


def test_backward_refuses_an_unknown_scheduler_and_the_fast_engine_with_ready_queue():
    x = Value(2.0, requires_grad=True)
    with pytest.raises(ValueError, match="scheduler must be one of"):
        (x * x).backward(scheduler="bfs")
    with pytest.raises(ValueError, match="fast engine runs the sorted order only"):
        choose.backward(x * x, engine="fast", scheduler="ready-queue")


def test_ready_queue_releases_saved_values_like_the_reference():
    x = Tensor(np.array([0.5, -1.0]), requires_grad=True)
    y = (x.tanh() * x).sum()
    y.backward(scheduler="ready-queue")
    assert all(n.saved is None for n in topological_order(y, leaves=False))


# --- create_graph: the ready queue builds the same graph of the gradient ---------------

OPS = [op for op in registered_ops() if op.engine in ("scalar", "tensor")
       and op.twice_differentiable]


def _leaves(op, inputs):
    if op.engine == "scalar":
        return [Value(float(x), requires_grad=True) for x in inputs]
    return [Tensor(x.copy(), requires_grad=True)
            if isinstance(x, np.ndarray) and x.dtype == np.float64 else x for x in inputs]


def _bits(x):
    if x is None:
        return None
    data = x.data if hasattr(x, "engine_class") else x
    return np.asarray(data, dtype=np.float64 if np.ndim(data) == 0 else None).tobytes()


def _second_order(op, inputs, attrs, scheduler, seed):
    leaves = _leaves(op, inputs)
    nodes = [x for x in leaves if getattr(x, "requires_grad", False)]
    y = one_output(apply_op(op, *leaves, **attrs))
    root = (y * y).sum() if op.engine == "tensor" else y * y
    choose.backward(root, create_graph=True, scheduler=scheduler)
    firsts = [x.grad for x in nodes]
    rng = np.random.default_rng(seed)
    total = None
    for g in firsts:
        if g is None:
            continue
        w = rng.standard_normal(np.shape(g.data))
        term = (g * w).sum() if op.engine == "tensor" else g * float(w)
        total = term if total is None else total + term
    if total is None or not total.requires_grad:
        return [_bits(g) for g in firsts], None
    seconds = grad(total, nodes, allow_unused=True)
    return [_bits(g) for g in firsts], [_bits(g) for g in seconds]


@pytest.mark.parametrize("op", OPS, ids=[f"{op.engine}.{op.name}" for op in OPS])
def test_create_graph_through_the_ready_queue_gives_the_same_bits(op):
    cases = op.cases(np.random.default_rng(1234))[:4]
    for k, (inputs, attrs) in enumerate(cases):
        results = {}
        for scheduler in ("sorted", "ready-queue"):
            try:
                results[scheduler] = _second_order(op, inputs, dict(attrs), scheduler, seed=k)
            except NotTwiceDifferentiableError as err:
                results[scheduler] = ("not twice differentiable", str(err).split(":")[0])
        assert results["ready-queue"] == results["sorted"], f"{op.engine}.{op.name} case {k}"

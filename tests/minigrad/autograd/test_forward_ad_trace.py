"""Trace events of forward mode: ``dual`` where a tangent starts, ``tangent`` per edge,
in ``tape.notes`` (``tape.events`` readers see only the kinds they know)."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad
from minigrad import Tensor, Value
from minigrad.autograd import record
from minigrad.autograd.forward_ad import dual_level, make_dual, unpack_dual


def _scalar_pass():
    with record() as tape, dual_level():
        a = make_dual(Value(2.0, "a"), 1.0)
        b = make_dual(Value(3.0, "b"), 0.5)
        c = a * b
        d = c.tanh()
    return tape, a, b, c, d


def test_make_dual_announces_where_a_tangent_starts():
    tape, a, b, _, _ = _scalar_pass()
    duals = [e for _, e in tape.notes if e.kind == "dual"]
    assert [(e.node, e.tangent) for e in duals] == [(a, 1.0), (b, 0.5)]


def test_each_edge_announces_its_share_derivative_times_incoming():
    tape, a, b, c, d = _scalar_pass()
    edges = [e for _, e in tape.notes if e.kind == "tangent"]
    assert [(e.node, e.parent, e.slot) for e in edges] == [(c, a, 0), (c, b, 1), (d, c, 0)]
    for e in edges:
        assert e.op is e.node.op and e.incoming == unpack_tangent(e.parent, tape)
        assert e.contribution == pytest.approx(e.derivative * e.incoming, rel=1e-15)
    assert edges[0].derivative == b.data and edges[1].derivative == a.data  # ∂(ab)/∂a = b
    assert edges[0].total == edges[1].total == pytest.approx(
        edges[0].contribution + edges[1].contribution, rel=1e-15)
    assert edges[2].derivative == pytest.approx(1 - d.data ** 2, rel=1e-15)


def unpack_tangent(node, tape):
    """The tangent a node got, from the tape (its level has exited since)."""
    for _, e in tape.notes:
        if e.node is node:
            return e.tangent if e.kind == "dual" else e.total
    raise AssertionError(f"no tangent recorded for {node}")


def test_tangent_notes_come_right_after_their_nodes_created_event():
    tape, *_ = _scalar_pass()
    timeline = tape.timeline
    for i, e in enumerate(timeline):
        if e.kind in ("tangent", "dual"):
            before = [x for x in timeline[:i] if x.kind == "created"]
            assert before[-1].node is e.node
    assert {e.kind for e in tape.events} == {"created"}  # readers of events are unaffected


def test_an_unrecorded_node_is_described_by_its_events():
    """No input requires grad: no graph, but the events name the op and the edges."""
    with record() as tape, dual_level():
        x = make_dual(Tensor(np.array([1.0, 2.0])), np.array([1.0, 1.0]))
        y = x * Tensor(np.array([3.0, 4.0]))
    (edge,) = [e for _, e in tape.notes if e.kind == "tangent"]
    assert y.op is None and edge.node is y and edge.parent is x and edge.slot == 0
    assert edge.op.name == "mul" and edge.derivative is None  # tensors: no bare derivative
    np.testing.assert_array_equal(edge.contribution, edge.total)


def test_an_op_whose_rule_takes_all_tangents_at_once_has_no_slot_or_share():
    class Twice(minigrad.Function):
        @staticmethod
        def forward(ctx, x, y):
            return x.data * 2 + y.data

        @staticmethod
        def backward(ctx, g):
            return g * 2, g

        @staticmethod
        def jvp(ctx, tx, ty):
            return tx * 2 + ty

    with record() as tape, dual_level():
        x = make_dual(Tensor(np.ones(2)), np.ones(2))
        y = make_dual(Tensor(np.ones(2)), np.full(2, 3.0))
        out = Twice.apply(x, y)
        total = unpack_dual(out).tangent.data
    edges = [e for _, e in tape.notes if e.kind == "tangent" and e.node is out]
    assert [(e.parent, e.slot, e.contribution) for e in edges] == [(x, None, None),
                                                                    (y, None, None)]
    for e in edges:
        np.testing.assert_array_equal(e.total, total)


def test_a_recorder_without_the_forward_mode_methods_still_works():
    class Minimal:
        def __init__(self):
            self.created_ids = []

        def created(self, node):
            self.created_ids.append(node.id)

        def seeded(self, node, grad):
            pass

        def visit(self, node, upstream):
            pass

        def contribute(self, *args):
            pass

    rec = Minimal()
    with record(rec), dual_level():
        y = make_dual(Value(1.0), 1.0).exp()
        assert unpack_dual(y).tangent.data == pytest.approx(np.e)
    assert y.id in rec.created_ids


def test_tangent_arrays_are_snapshots():
    with record() as tape, dual_level():
        x = make_dual(Tensor(np.ones(2)), np.ones(2))
        y = x * 2.0
        unpack_dual(y).tangent.data[...] = 0.0  # whatever happens to the live array later
    (edge,) = [e for _, e in tape.notes if e.kind == "tangent"]
    np.testing.assert_array_equal(edge.total, [2.0, 2.0])

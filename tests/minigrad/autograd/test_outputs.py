"""Multi-output ops (``autograd/outputs.py``): one record per call, one node per output.

Gradients flow to each output's consumers when only some outputs are used (the
others contribute zeros) or one is used twice, under both schedulers and both
engines (same bits), with ``create_graph``, and through custom Functions
returning a tuple.
"""

from __future__ import annotations

import numpy as np
import pytest

from minigrad import Function, Tensor, Value, record
from minigrad.autograd import grad, gradcheck, gradgradcheck
from minigrad.autograd.outputs import OUTPUT, is_record
from minigrad.engines import choose
from minigrad.engines.output_grads import Outputs
from tests._helpers import leaf


def _x(seed=0, shape=(5, 3)):
    return leaf(np.random.default_rng(seed).standard_normal(shape))


def test_outputs_share_one_record_and_know_their_output_nr():
    x = _x()
    pieces = x.split(2)
    records = {p.parents[0].id for p in pieces}
    assert len(records) == 1
    rec = pieces[0].parents[0]
    assert is_record(rec) and rec.op.name == "split" and rec.parents == (x,)
    assert [p.op for p in pieces] == [OUTPUT] * 3
    assert [p.attrs["output_nr"] for p in pieces] == [0, 1, 2]
    assert isinstance(rec.data, Outputs) and len(rec.data) == 3


def test_an_unused_output_contributes_zeros():
    x = _x()
    a, b, c = x.split([1, 3, 1])
    u = np.random.default_rng(1).standard_normal(b.shape)
    (b * u).sum().backward()
    expected = np.zeros(x.shape)
    expected[1:4] = u
    np.testing.assert_array_equal(x.grad, expected)


def test_an_output_used_twice_sums_its_contributions():
    x = _x()
    a, b = x.unbind(1)[:2]
    (a * 2 + a * 3 + b).sum().backward()
    expected = np.zeros(x.shape)
    expected[:, 0], expected[:, 1] = 5.0, 1.0
    np.testing.assert_allclose(x.grad, expected)


@pytest.mark.parametrize("path", ["reference", "fast", "ready-queue", "recorded"])
def test_every_engine_and_scheduler_gives_the_same_bits_with_unused_outputs(path):
    def run(path):
        x = _x(3, (4, 6))
        p0, p1, p2 = x.chunk(3, dim=1)
        values, _ = x.topk(2, dim=0)
        root = (p0 * p2).sum() + (values * values).sum() + p0.sum()
        if path == "recorded":
            with record():
                root.backward()
        elif path == "ready-queue":
            choose.backward(root, scheduler="ready-queue")
        else:
            choose.backward(root, engine=path)
        return x.grad.tobytes()

    assert run(path) == run("reference")


def test_the_record_runs_once_after_all_its_outputs():
    x = _x()
    a, b, c = x.split(2)
    root = (a.sum() + c.sum()) * b.sum()
    with record() as tape:
        root.backward()
    visits = [e.node.id for e in tape.events if e.kind == "visit"]
    rec = a.parents[0]
    assert visits.count(rec.id) == 1
    assert visits.index(rec.id) > max(visits.index(n.id) for n in (a, b, c))


def test_create_graph_through_split_and_max_gives_second_derivatives():
    x = _x(4, (3, 4))
    def f(x):
        a, b = x.split(2)
        values, _ = (a * a * a).max(dim=1)
        return values.sum() + (b * b).sum()
    gradgradcheck(f, x)
    (g,) = grad(f(x), [x], create_graph=True)
    assert g.requires_grad and g.order == 1


def test_gradcheck_each_op_with_only_its_last_output_used():
    x = _x(5, (4, 3))
    gradcheck(lambda x: x.split(3)[-1], x)
    gradcheck(lambda x: x.unbind(0)[-1], x)
    gradcheck(lambda x: x.min(dim=0).values, x)
    gradcheck(lambda x: x.topk(2, dim=1, largest=False).values, x)


def test_anomaly_mode_checks_what_an_output_sends_its_record():
    from minigrad import detect_anomaly
    x = _x()
    a, b = x.split([2, 3])
    with detect_anomaly(), pytest.raises(RuntimeError, match="'output' .* returned inf"):
        a.backward(np.full(a.shape, np.inf))  # the output's edge to its record sends inf


def test_no_record_when_nothing_requires_grad():
    x = Tensor(np.ones((4, 2)))
    pieces = x.split(2)
    assert all(p.op is None and not p.requires_grad for p in pieces)


# --- custom Functions returning a tuple ---------------------------------------------------
class SquareCube(Function):
    """∂(x², x³)/∂x = (2x, 3x²)"""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.data ** 2, x.data ** 3

    @staticmethod
    def backward(ctx, g2, g3):
        (x,) = ctx.saved_tensors
        return g2 * 2 * x + g3 * 3 * x * x


def test_a_function_returning_a_tuple_gets_one_gradient_per_output():
    x = leaf([0.5, -1.5, 2.0])
    sq, cube = SquareCube.apply(x)
    assert sq.parents[0] is cube.parents[0] and sq.parents[0].op.function is SquareCube
    (cube * 2).sum().backward()  # sq unused: backward gets zeros for it
    np.testing.assert_allclose(x.grad, 6 * x.data ** 2)
    gradcheck(lambda x: SquareCube.apply(x)[0] + SquareCube.apply(x)[1], x)
    gradgradcheck(lambda x: SquareCube.apply(x)[1], x)


def test_a_function_returning_a_tuple_of_values():
    v = Value(0.5)
    sq, cube = SquareCube.apply(v)
    (sq + cube).backward()
    assert v.grad == pytest.approx(2 * 0.5 + 3 * 0.25)

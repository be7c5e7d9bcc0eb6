"""Every registered op is twice differentiable, checked in float64 (gradgradcheck).

The test walks the registry, so a new op is covered with no extra code, and
an op whose second derivative is wrong, or whose rules cut the gradient's
graph, fails here.  The ops that cannot build a gradient's graph yet are
marked ``twice_differentiable=False``; ``PENDING`` lists them, and a
``create_graph`` pass through them must stop with ``NotTwiceDifferentiableError``
(never a silently wrong answer).  The list must shrink, never grow.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad  # noqa: F401  (registers every op)
from minigrad import Tensor, Value, apply_op
from minigrad.autograd import NotTwiceDifferentiableError, gradgradcheck, registered_ops
from minigrad.core.node import next_id
from tests._helpers import INTERNAL_EXAMPLES, example_leaves, example_node, one_output

#: (engine, op) pairs whose rules cannot run on graph nodes yet (see the module doc)
PENDING: set[tuple[str, str]] = set()

OPS = [op for op in registered_ops() if op.engine in ("scalar", "tensor")]


def _leaves(op, inputs):
    if op.engine == "scalar":
        return [Value(float(x)) for x in inputs]
    return [Tensor(x.copy(), requires_grad=True)
            if isinstance(x, np.ndarray) and x.dtype == np.float64 else x for x in inputs]


def _cases(op):
    cases = op.cases(np.random.default_rng(1234))
    return cases[:6] if op.engine == "scalar" else cases


def test_pending_is_exactly_the_ops_marked_not_twice_differentiable():
    marked = {(op.engine, op.name) for op in OPS if not op.twice_differentiable}
    assert marked == PENDING


@pytest.mark.parametrize("op", OPS, ids=[f"{op.engine}.{op.name}" for op in OPS])
def test_gradgradcheck_every_case(op):
    for k, (inputs, attrs) in enumerate(_cases(op)):
        leaves = _leaves(op, inputs)

        def fn(*xs, _attrs=attrs):
            return one_output(apply_op(op, *xs, **dict(_attrs)))

        if (op.engine, op.name) in PENDING:
            with pytest.raises(NotTwiceDifferentiableError, match=op.name):
                gradgradcheck(fn, *leaves, seed=k)
            return
        try:
            gradgradcheck(fn, *leaves, atol=1e-5, rtol=1e-3, seed=k)
        except AssertionError as e:
            shapes = [np.shape(x) for x in inputs]
            raise AssertionError(f"{op.engine}.{op.name} case {k} {shapes} {attrs}: {e}") from None


@pytest.mark.parametrize("op", OPS, ids=[f"{op.engine}.{op.name}" for op in OPS])
def test_first_order_backward_builds_no_node(op):
    """create_graph=False keeps today's behaviour: raw gradients, not one node made."""
    inputs, attrs = _cases(op)[0]
    leaves = _leaves(op, inputs)
    out = one_output(apply_op(op, *leaves, **attrs))
    seed = np.ones(np.shape(out.data)) if op.engine == "tensor" else 1.0
    before = next_id()
    out.backward(seed)
    assert next_id() == before + 1  # (the one id this check itself took)
    for x in leaves:
        if getattr(x, "requires_grad", False) and x.grad is not None:
            assert isinstance(x.grad, (np.ndarray, float)), type(x.grad)


@pytest.mark.parametrize("example", INTERNAL_EXAMPLES, ids=lambda e: e.name)
def test_gradgradcheck_every_internal_op_example(example):
    """The library's own ops, through their examples.  A compiled trace or a fused chain
    runs its backward on raw arrays (``twice_differentiable=False``): a ``create_graph``
    pass through it must stop with a clear error."""
    for k, (inputs, attrs) in enumerate(example.cases(np.random.default_rng(1234))[:6]):
        leaves = example_leaves(example, inputs)

        def fn(*xs, _attrs=attrs):
            return example_node(example, *xs, **dict(_attrs))

        if not example.op.twice_differentiable:
            with pytest.raises(NotTwiceDifferentiableError, match=example.op.name):
                gradgradcheck(fn, *leaves, seed=k)
            continue
        try:
            gradgradcheck(fn, *leaves, atol=1e-5, rtol=1e-3, seed=k)
        except AssertionError as e:
            raise AssertionError(f"{example.name} case {k}: {e}") from None


def test_a_small_cnn_is_twice_differentiable_end_to_end():
    """The ops that were pending last, composed as in a CNN: conv2d (padded), GELU,
    max-pooling (overlapping windows), a linear layer."""
    import minigrad.nn.functional as F

    rng = np.random.default_rng(5)
    x, w, b = (Tensor(rng.uniform(-1, 1, s), requires_grad=True)
               for s in ((2, 2, 6, 6), (3, 2, 3, 3), (3,)))
    v = Tensor(rng.uniform(-1, 1, (27, 4)), requires_grad=True)

    def net(x, w, b, v):
        h = F.max_pool2d(F.gelu(F.conv2d(x, w, b, padding=1)), 3, stride=2, padding=1)
        return h.reshape(2, -1) @ v

    gradgradcheck(net, x, w, b, v, atol=1e-5, rtol=1e-3, seed=3)

"""Every registered op's forward-mode rule, on its own test cases, in float64.

Each case is checked against central differences and by the dot-product test
against the op's backward rules (``forward_checks.py``).  The test walks the
registry, so a new op is covered with no extra code.  ``PENDING`` lists the
ops that have no forward-mode rule yet; for them forward mode must stop with
``NoForwardRuleError`` naming the op, never give a wrong tangent.  The list
must shrink, never grow.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad  # noqa: F401  (registers every op)
from minigrad import Tensor, Value
from minigrad.autograd import Op, registered_ops
from minigrad.autograd.tangents import NoForwardRuleError, has_forward_rule, output_tangent
from minigrad.func import jvp
from tests._helpers import INTERNAL_EXAMPLES, example_leaves, example_node

from .forward_checks import check_forward_rule, random_tangents

#: names of the (tensor) ops with no forward-mode rule yet (see the module doc)
PENDING: set[str] = set()

OPS = [op for op in registered_ops() if op.engine in ("scalar", "tensor")]


def test_pending_is_exactly_the_ops_without_a_forward_rule():
    lacking = {op.name for op in OPS if not has_forward_rule(op)}
    assert lacking == PENDING


@pytest.mark.parametrize("op", [op for op in OPS if op.name not in PENDING],
                         ids=lambda op: f"{op.engine}-{op.name}")
def test_forward_rule_matches_differences_and_is_the_backward_rules_transpose(op):
    rng = np.random.default_rng(2026)
    cases = op.cases(np.random.default_rng(1234))
    for inputs, attrs in cases[:6] if op.engine == "scalar" else cases:
        check_forward_rule(op, inputs, attrs, rng)


def _constants(example, xs):
    return [Value(float(x)) if example.op.engine == "scalar" else Tensor(x) for x in xs]


@pytest.mark.parametrize("example", INTERNAL_EXAMPLES, ids=lambda e: e.name)
def test_forward_mode_through_every_internal_op_example(example):
    """The library's own ops, through their examples and ``func.jvp``: the tangent matches
    central differences and is the transpose of backward (the dot-product test).  An op
    with no forward rule of its own (a compiled trace, a fused chain) must stop with
    ``NoForwardRuleError``, never give a wrong tangent; a checkpointed block has none
    either but runs its block, whose ops carry the tangents."""
    if "forward_mode" in example.skip:
        pytest.skip(f"{example.name}: {example.skip['forward_mode']}")
    rng, h = np.random.default_rng(2026), 1e-6
    for inputs, attrs in example.cases(np.random.default_rng(1234)):
        tangents = random_tangents(inputs, rng)

        def f(*xs, _attrs=attrs):
            return example_node(example, *xs, **_attrs)

        primals = _constants(example, inputs)
        try:
            out, tangent = jvp(f, primals, _constants(example, tangents))
        except NoForwardRuleError as err:
            assert not has_forward_rule(example.op) and example.op.name in str(err), err
            continue
        shifted = [f(*_constants(example, [x + s * h * t for x, t in zip(inputs, tangents)]))
                   for s in (1, -1)]
        numeric = (np.asarray(shifted[0].data) - np.asarray(shifted[1].data)) / (2 * h)
        np.testing.assert_allclose(np.asarray(tangent.data), numeric, rtol=1e-5, atol=1e-6,
                                   err_msg=f"{example.name}: J·t against differences")
        leaves = example_leaves(example, inputs)
        y = f(*leaves)
        c = rng.standard_normal(np.shape(y.data))
        y.backward(c if isinstance(y.data, np.ndarray) else float(c))
        left = float(np.sum(np.asarray(tangent.data) * c))
        right = sum(float(np.sum(np.asarray(x.grad) * t)) for x, t in zip(leaves, tangents))
        assert np.isclose(left, right, rtol=1e-9, atol=1e-9), (example.name, left, right)


def test_an_op_without_a_forward_rule_is_a_clear_error():
    # not registered: a student's new op that has backward rules but no forward rule
    op = Op(name="rowsum_sq", engine="tensor", symbol="Σ²",
            forward=lambda x: ((x * x).sum(axis=1), (x,)),
            grads=(lambda g, x: 2 * x * g[:, None],), formulas=("∂/∂x = 2x",))
    inputs = (np.ones((2, 3)),)
    out, saved = op.forward(*inputs)
    tangents = random_tangents(inputs, np.random.default_rng(0))
    with pytest.raises(NoForwardRuleError, match="rowsum_sq"):
        output_tangent(op, inputs, out, saved, None, tangents)


def test_no_tangent_in_gives_no_tangent_out():
    op = next(op for op in OPS if op.engine == "tensor" and op.name == "mul")
    a, b = np.ones(3), np.arange(3.0)
    out, saved = op.forward(a, b)
    assert output_tangent(op, (a, b), out, saved, None, (None, None)) is None


def test_a_broadcast_input_gets_a_tangent_in_the_outputs_shape():
    op = next(op for op in OPS if op.engine == "tensor" and op.name == "add")
    a, b = np.ones((2, 3)), np.ones(3)
    out, saved = op.forward(a, b)
    tangent = output_tangent(op, (a, b), out, saved, None, (None, np.arange(3.0)))
    assert tangent.shape == (2, 3)
    np.testing.assert_array_equal(tangent, np.broadcast_to(np.arange(3.0), (2, 3)))

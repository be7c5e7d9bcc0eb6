"""Every scalar op in the registry is gradient-checked: a new op without a
passing check fails here, with no test to write by hand."""

import math

import numpy as np
import pytest

import minigrad
from minigrad.core.op import registered_ops
from minigrad.value import Value

SCALAR_OPS = list(registered_ops("scalar"))


def test_registry_has_the_scalar_ops():
    names = {op.name for op in SCALAR_OPS}
    expected = {"add", "sub", "mul", "div", "pow", "neg", "exp", "log", "tanh", "sigmoid", "relu"}
    assert expected <= names


@pytest.mark.parametrize("op", SCALAR_OPS, ids=lambda op: op.name)
def test_every_scalar_op_has_metadata(op):
    assert op.symbol and op.formula and "∂" in op.formula
    assert op.domain is not None and len(op.domain) == op.arity, "each input needs a safe domain"


def _apply(op, *values):
    """Build op's node from Values through the public generic path."""
    return values[0]._unary(op) if op.arity == 1 else values[0]._binary(op, values[1])


@pytest.mark.parametrize("op", SCALAR_OPS, ids=lambda op: op.name)
def test_every_scalar_op_passes_gradcheck(op):
    rng = np.random.default_rng(0)
    for _ in range(20):
        xs = [Value(float(rng.uniform(lo, hi))) for lo, hi in op.domain]
        assert _apply(op, *xs).op is op
        assert minigrad.gradcheck(lambda *v: _apply(op, *v), *xs, atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize("op", SCALAR_OPS, ids=lambda op: op.name)
def test_rules_scale_with_upstream(op):
    """A rule that ignores g would pass with g=1 only: check g=2.5 gives 2.5x."""
    rng = np.random.default_rng(1)
    xs = [float(rng.uniform(lo, hi)) for lo, hi in op.domain]
    out, saved = op.forward(*xs)
    for rule in op.grads:
        one, scaled = rule(1.0, *saved), rule(2.5, *saved)
        assert scaled == pytest.approx(2.5 * one, rel=1e-12, abs=1e-12)


def test_forward_ieee_edge_cases():
    ops = minigrad.ops.scalar
    assert ops.fdiv(1.0, 0.0) == math.inf and ops.fdiv(-1.0, 0.0) == -math.inf
    assert math.isnan(ops.fdiv(0.0, 0.0))
    assert math.isnan(ops.fpow(-8.0, 1 / 3))
    assert ops.fpow(0.0, -1.0) == math.inf
    assert ops.fpow(10.0, 400.0) == math.inf and ops.fpow(-10.0, 401.0) == -math.inf
    assert ops.fexp(1000.0) == math.inf
    assert ops.flog(0.0) == -math.inf and math.isnan(ops.flog(-1.0))

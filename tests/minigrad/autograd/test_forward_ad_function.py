"""A custom ``Function``'s forward-mode rule: its ``jvp(ctx, *tangents)`` staticmethod."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad
from minigrad import Tensor, Value
from minigrad.autograd.forward_ad import dual_level, make_dual, unpack_dual
from minigrad.autograd.tangents import NoForwardRuleError


class ScaledCube(minigrad.Function):
    """∂(k·x³)/∂x = 3k·x², ∂/∂y = 1"""

    seen = []

    @staticmethod
    def forward(ctx, x, y, k):
        ctx.save_for_backward(x)
        ctx.k = k
        return k * x.data ** 3 + y.data

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 3 * ctx.k * x * x, g, None

    @staticmethod
    def jvp(ctx, tx, ty, tk):
        ScaledCube.seen.append((tx, ty, tk))
        (x,) = ctx.saved_tensors  # the same ctx forward saw
        return tx * 3 * ctx.k * x * x + ty


class NoJvp(minigrad.Function):
    @staticmethod
    def forward(ctx, x):
        return x.data * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2


class Inner(minigrad.Function):
    """Its forward uses an op with no forward rule: forward mode is paused inside."""

    @staticmethod
    def forward(ctx, x):
        return (x @ Tensor(np.eye(x.shape[-1]))).data

    @staticmethod
    def backward(ctx, g):
        return g

    @staticmethod
    def jvp(ctx, tx):
        return tx


def test_a_functions_jvp_gives_its_tangent_on_tensors():
    rng = np.random.default_rng(0)
    x0, y0, vx = rng.standard_normal(3), rng.standard_normal(3), rng.standard_normal(3)
    ScaledCube.seen.clear()
    with dual_level():
        out = ScaledCube.apply(make_dual(Tensor(x0), vx), Tensor(y0), 2.0)
        tangent = unpack_dual(out).tangent.data
    np.testing.assert_allclose(tangent, 6.0 * x0 ** 2 * vx, rtol=1e-12)
    ((tx, ty, tk),) = ScaledCube.seen
    # one tangent per forward argument: zeros for an input without one, None for a setting
    assert isinstance(tx, Tensor) and isinstance(ty, Tensor) and tk is None
    np.testing.assert_array_equal(ty.data, np.zeros(3))


def test_a_functions_jvp_on_values_gets_floats_and_both_tangents():
    with dual_level():
        out = ScaledCube.apply(make_dual(Value(2.0), 0.5), make_dual(Value(1.0), 3.0), 1.5)
        assert unpack_dual(out).tangent.data == pytest.approx(3 * 1.5 * 4.0 * 0.5 + 3.0)


def test_a_functions_jvp_is_its_backward_transposed():
    rng = np.random.default_rng(1)
    x0 = Tensor(rng.standard_normal(4), requires_grad=True)
    v, c = rng.standard_normal(4), rng.standard_normal(4)
    with dual_level():
        out = ScaledCube.apply(make_dual(x0, v), Tensor(np.zeros(4)), 0.5)
        jv = unpack_dual(out).tangent.data
        out.backward(c)
    assert np.dot(jv, c) == pytest.approx(np.dot(v, x0.grad), rel=1e-12)


def test_a_function_without_jvp_in_a_dual_pass_names_the_function():
    with dual_level():
        x = make_dual(Tensor(np.ones((2, 2))), np.ones((2, 2)))
        with pytest.raises(NoForwardRuleError, match=r"NoJvp.*\(2, 2\).*jvp\(ctx"):
            NoJvp.apply(x)
        assert unpack_dual(NoJvp.apply(Tensor(np.ones(2)))).tangent is None  # no tangent in


def test_a_functions_forward_runs_with_forward_mode_paused():
    with dual_level():
        x = make_dual(Tensor(np.ones((2, 3))), np.full((2, 3), 2.0))
        out = Inner.apply(x)  # matmul inside forward has no rule: it must not be asked
        np.testing.assert_array_equal(unpack_dual(out).tangent.data, np.full((2, 3), 2.0))
        assert unpack_dual(x * 1.0).tangent is not None  # on again after the Function


def test_a_jvp_returning_the_wrong_shape_is_a_clear_error():
    class Bad(minigrad.Function):
        @staticmethod
        def forward(ctx, x):
            return x.data * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

        @staticmethod
        def jvp(ctx, tx):
            return np.ones(5)

    with dual_level():
        x = make_dual(Tensor(np.ones(3)), np.ones(3))
        with pytest.raises(ValueError, match=r"Bad.jvp returned a tangent of shape \(5,\)"):
            Bad.apply(x)

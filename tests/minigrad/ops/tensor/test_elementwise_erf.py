"""``erf``, the op GELU is built on: values, slope, and GELU's gradient recorded through it."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigrad.nn.functional as F
from minigrad import Tensor, Value, apply_op
from minigrad.autograd import grad
from minigrad.core.op import get_op
from minigrad.ops.tensor import ERF

POINTS = [-3.5, -1.2, -0.3, 0.0, 1e-8, 0.7, 2.0, 6.0, math.inf, -math.inf]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_tensor_erf_matches_math_erf_in_its_dtype(dtype):
    x = Tensor(np.array(POINTS, dtype=dtype))
    out = apply_op(ERF, x)
    assert out.dtype == dtype
    want = np.array([math.erf(float(v)) for v in x.data], dtype=dtype)
    np.testing.assert_array_equal(out.data, want)


def test_value_erf_matches_math_erf_and_keeps_nan():
    for v in POINTS:
        assert Value(v).erf().data == math.erf(v)
    assert math.isnan(Value(math.nan).erf().data)
    assert np.isnan(apply_op(ERF, Tensor(np.array([math.nan]))).data[0])


def test_a_zero_d_tensor_gives_a_zero_d_erf():
    out = apply_op(ERF, Tensor(np.array(0.5), requires_grad=True))
    assert out.shape == () and out.data == pytest.approx(math.erf(0.5))


@pytest.mark.parametrize("x", [-1.7, -0.2, 0.0, 0.9, 2.4])
def test_the_slope_of_erf_is_two_over_root_pi_times_e_to_minus_x_squared(x):
    slope = 2 / math.sqrt(math.pi) * math.exp(-x * x)
    v = Value(x)
    v.erf().backward()
    assert v.grad == pytest.approx(slope, rel=1e-12)
    t = Tensor(np.array([x]), requires_grad=True)
    apply_op(ERF, t).sum().backward()
    assert t.grad[0] == pytest.approx(slope, rel=1e-12)


def test_erf_is_one_op_in_both_engines_with_one_formula():
    scalar, tensor = get_op("erf", "scalar"), get_op("erf", "tensor")
    assert scalar.formulas == tensor.formulas == ("∂/∂x = 2/√π · e^(−x²)",)


def _ops_in(node) -> set[str]:
    seen, stack, names = set(), [node], set()
    while stack:
        n = stack.pop()
        if n.id in seen:
            continue
        seen.add(n.id)
        if n.op is not None:
            names.add(n.op.name)
        stack.extend(n.parents)
    return names


def test_gelus_gradient_graph_is_built_from_erf_in_both_engines():
    v = Value(0.4)
    (gv,) = grad(v.gelu(), [v], create_graph=True)
    assert "erf" in _ops_in(gv)
    t = Tensor(np.linspace(-2, 2, 5), requires_grad=True)
    (gt,) = grad(F.gelu(t).sum(), [t], create_graph=True)
    assert "erf" in _ops_in(gt)


@pytest.mark.parametrize("x", [-1.3, 0.2, 1.1])
def test_gelus_second_derivative_is_phi_times_two_minus_x_squared(x):
    """GELU'' = φ(x)·(2 − x²), φ the normal density: the erf inside the first derivative
    was recorded, so it can be differentiated."""
    phi = math.exp(-x * x / 2) / math.sqrt(2 * math.pi)
    v = Value(x)
    (g,) = grad(v.gelu(), [v], create_graph=True)
    (h,) = grad(g, [v])
    assert h == pytest.approx(phi * (2 - x * x), rel=1e-10)
    t = Tensor(np.array([x]), requires_grad=True)
    (gt,) = grad(F.gelu(t).sum(), [t], create_graph=True)
    (ht,) = grad(gt.sum(), [t])
    assert ht[0] == pytest.approx(phi * (2 - x * x), rel=1e-10)

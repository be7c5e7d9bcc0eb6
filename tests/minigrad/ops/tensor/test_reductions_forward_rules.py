"""Forward-mode rules of the reductions (max/min, softmax family, sums, var, logsumexp) on the
cases the registry-wide test (``tests/minigrad/ops/test_forward_rules.py``) does not reach.

Each tangent is checked against central differences and the dot-product test
(``forward_checks.py``), or against an independent computation of what it must
be (the tied elements' mean, a loop of additions ...).
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad  # noqa: F401  (registers every op)
from minigrad import Tensor
from minigrad.autograd import get_op
from minigrad.autograd.tangents import forward_rules, output_tangent
from tests.minigrad.ops.forward_checks import backward_products, check_forward_rule


def tangent_of(name, inputs, tangents, **attrs):
    op = get_op(name, "tensor")
    out, saved = op.forward(*inputs, **attrs)
    return output_tangent(op, inputs, out, saved, attrs, tangents), out


def central_difference(name, inputs, tangents, h=1e-6, **attrs):
    op = get_op(name, "tensor")

    def shifted(sign):
        xs = [x if t is None else x + sign * h * t for x, t in zip(inputs, tangents)]
        return op.forward(*xs, **attrs)[0]

    return (shifted(1) - shifted(-1)) / (2 * h)


def assert_transpose_of_backward(name, inputs, tangents, tangent, rng, **attrs):
    """⟨J·t, c⟩ = ⟨t, Jᵀ·c⟩ with Jᵀ·c from the op's backward rules."""
    op = get_op(name, "tensor")
    _, saved = op.forward(*inputs, **attrs)
    c = rng.standard_normal(np.shape(tangent))
    back = backward_products(op, inputs, saved, attrs, c)
    right = sum(float(np.sum(t * b)) for t, b in zip(tangents, back) if t is not None)
    assert np.isclose(float(np.sum(tangent * c)), right, rtol=1e-9, atol=1e-9)


# --- max / min: the selected element's tangent, ties share ---------------------------
@pytest.mark.parametrize("name, pick", [("max", np.argmax), ("min", np.argmin)])
def test_extreme_tangent_is_the_tangent_at_the_selected_element(name, pick):
    rng = np.random.default_rng(3)
    x = rng.permutation(12).reshape(3, 4).astype(float)
    t = rng.standard_normal(x.shape)
    tangent, _ = tangent_of(name, (x,), [t], axis=1)
    expected = np.take_along_axis(t, pick(x, axis=1)[:, None], axis=1)[:, 0]
    np.testing.assert_array_equal(tangent, expected)


@pytest.mark.parametrize("name", ["max", "min"])
@pytest.mark.parametrize("axis, keepdims", [(1, False), (1, True), (None, False), (-2, True)])
def test_tied_extremes_share_the_tangent_as_backward_shares_the_gradient(name, axis, keepdims):
    rng = np.random.default_rng(4)
    x = rng.integers(0, 2, size=(4, 3)).astype(float)  # many ties (0/1), all-equal rows
    t = rng.standard_normal(x.shape)
    tangent, out = tangent_of(name, (x,), [t], axis=axis, keepdims=keepdims)
    reduce = np.max if name == "max" else np.min
    hit = x == reduce(x, axis=axis, keepdims=True)
    mean_at_ties = (t * hit).sum(axis=axis, keepdims=keepdims) / hit.sum(axis=axis,
                                                                          keepdims=keepdims)
    assert tangent.shape == out.shape
    np.testing.assert_allclose(tangent, mean_at_ties, rtol=1e-12)
    assert_transpose_of_backward(name, (x,), [t], tangent, rng, axis=axis, keepdims=keepdims)


def test_max_tangent_ignores_an_infinite_tangent_at_an_element_not_selected():
    x = np.array([[1.0, 5.0, 2.0]])
    t = np.array([[np.inf, 0.5, np.nan]])
    with np.errstate(invalid="ignore"):  # (inf·0, patched to 0)
        tangent, _ = tangent_of("max", (x,), [t], axis=1)
    np.testing.assert_array_equal(tangent, t[:, 1])


# --- softmax / log_softmax on every axis ---------------------------------------------
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("shape, axis", [((3, 4), 0), ((3, 4), -2), ((2, 3, 4), -3),
                                         ((2, 3, 4), -2), ((2, 3, 4), 2)])
def test_softmax_family_tangent_on_any_axis(name, shape, axis):
    rng = np.random.default_rng(7)
    check_forward_rule(get_op(name, "tensor"), (rng.standard_normal(shape),),
                       {"axis": axis}, rng)


@pytest.mark.parametrize("axis", [0, -1, -2])
def test_softmax_tangent_keeps_the_sum_along_the_axis_at_one(axis):
    rng = np.random.default_rng(8)
    x, t = rng.standard_normal((3, 4, 2)), rng.standard_normal((3, 4, 2))
    tangent, _ = tangent_of("softmax", (x,), [t], axis=axis)
    np.testing.assert_allclose(tangent.sum(axis=axis), 0.0, atol=1e-12)
    assert np.abs(tangent).max() > 1e-3  # (and it is not zero everywhere)


@pytest.mark.parametrize("axis", [0, -1])
def test_log_softmax_tangent_is_not_its_backward_rule(axis):
    rng = np.random.default_rng(9)
    x, t = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    op = get_op("log_softmax", "tensor")
    tangent, out = tangent_of("log_softmax", (x,), [t], axis=axis)
    np.testing.assert_allclose(tangent, central_difference("log_softmax", (x,), [t], axis=axis),
                               rtol=1e-6, atol=1e-8)
    backward_on_t = op.grads[0](t, out, axis=axis)
    assert not np.allclose(tangent, backward_on_t)


# --- reductions: keepdims, shifts -----------------------------------------------------
@pytest.mark.parametrize("name", ["sum", "mean", "max", "min", "var", "logsumexp"])
@pytest.mark.parametrize("axis", [None, 1, (0, -1), -2])
def test_reduction_tangent_with_keepdims_is_the_tangent_with_size_one_axes(name, axis):
    rng = np.random.default_rng(10)
    x, t = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 3, 4))
    kept, out_kept = tangent_of(name, (x,), [t], axis=axis, keepdims=True)
    flat, _ = tangent_of(name, (x,), [t], axis=axis, keepdims=False)
    assert kept.shape == out_kept.shape
    np.testing.assert_allclose(kept.reshape(flat.shape), flat, rtol=1e-12)
    check_forward_rule(get_op(name, "tensor"), (x,), {"axis": axis, "keepdims": True}, rng)


@pytest.mark.parametrize("ddof", [0, 1])
def test_var_tangent_of_a_shift_along_the_axis_is_zero(ddof):
    rng = np.random.default_rng(11)
    x = rng.standard_normal((3, 5))
    shift = np.broadcast_to(rng.standard_normal((3, 1)), x.shape)
    tangent, _ = tangent_of("var", (x,), [shift], axis=1, ddof=ddof)
    np.testing.assert_allclose(tangent, 0.0, atol=1e-12)
    check_forward_rule(get_op("var", "tensor"), (x,), {"axis": 1, "ddof": ddof}, rng)


def test_logsumexp_tangent_of_a_shift_is_the_shift():
    rng = np.random.default_rng(12)
    x, c = rng.standard_normal((3, 5)), rng.standard_normal((3, 1))
    tangent, _ = tangent_of("logsumexp", (x,), [np.broadcast_to(c, x.shape)], axis=-1)
    np.testing.assert_allclose(tangent, c[:, 0], rtol=1e-12)


# --- the explicit rules are numpy over raw arrays, and so run on nodes too -------------
@pytest.mark.parametrize("name", ["pad", "matmul", "max", "min", "var", "logsumexp",
                                  "softmax", "log_softmax"])
def test_explicit_forward_rules_record_a_graph_when_the_tangent_is_a_node(name):
    op = get_op(name, "tensor")
    rng = np.random.default_rng(19)
    for inputs, attrs in op.cases(np.random.default_rng(0)):
        _, saved = op.forward(*inputs, **attrs)
        for rule, x in zip(forward_rules(op), inputs):
            t = Tensor(rng.standard_normal(np.shape(x)), requires_grad=True)
            part = rule(t, *saved, **attrs)
            assert isinstance(part, Tensor) and part.requires_grad
            np.testing.assert_allclose(part.data, rule(t.data, *saved, **attrs), rtol=1e-12)

"""Gradients at NaN, inf and kinks follow PyTorch, as the scalar engine's do.

A diverging model shows NaN somewhere; the gradients then decide whether the
NaN is traced to its cause (detect_anomaly) or silently turned into zeros, and
whether an inf upstream gradient times a zero local slope becomes NaN.  The
expected values are PyTorch's (checked against it below when it is installed).
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
from minigrad import Tensor

try:  # the oracle for the last test (optional)
    import torch
except ImportError:
    torch = None

nan, inf = np.nan, np.inf


def grads(fn, xs, upstream):
    ts = [Tensor(np.array(x, dtype=np.float64), requires_grad=True) for x in xs]
    fn(*ts).backward(np.array(upstream, dtype=np.float64))
    return [t.grad for t in ts]


def same(a, b):
    np.testing.assert_array_equal(a, b)  # (NaN equals NaN here)


def test_relu_passes_the_gradient_at_nan_and_blocks_inf_where_x_is_not_positive():
    (g,) = grads(lambda x: x.relu(), [[nan, -1.0, 0.0, 2.0]], [1.0, inf, inf, 3.0])
    same(g, [1.0, 0.0, 0.0, 3.0])  # not [0, nan, nan, 3]: inf·0 would be NaN


def test_abs_has_slope_zero_at_nan_and_keeps_inf_times_zero():
    (g,) = grads(lambda x: x.abs(), [[nan, -2.0, 3.0]], [1.0, 1.0, 1.0])
    same(g, [0.0, -1.0, 1.0])
    (g,) = grads(lambda x: x.abs(), [[0.0]], [inf])
    same(g, [nan])  # inf · sign(0) = inf · 0: the upstream inf is not hidden


@pytest.mark.parametrize("fn, name", [(mg.maximum, "maximum"), (mg.minimum, "minimum")])
def test_maximum_and_minimum_give_both_inputs_the_gradient_at_nan(fn, name):
    a = [nan, 1.0, 1.0, 2.0]
    b = [1.0, nan, 1.0, 3.0]
    ga, gb = grads(fn, [a, b], [1.0, 1.0, 1.0, 1.0])
    if name == "maximum":
        same(ga, [1.0, 1.0, 0.5, 0.0])
        same(gb, [1.0, 1.0, 0.5, 1.0])
    else:
        same(ga, [1.0, 1.0, 0.5, 1.0])
        same(gb, [1.0, 1.0, 0.5, 0.0])


def test_maximum_keeps_its_dtype_and_broadcasts():
    a = Tensor(np.array([[1.0], [5.0]], dtype=np.float32), requires_grad=True)
    b = Tensor(np.array([2.0, 5.0, nan], dtype=np.float32), requires_grad=True)
    mg.maximum(a, b).sum().backward()
    assert a.grad.dtype == b.grad.dtype == np.float32
    same(a.grad, [[1.0], [2.5]])  # row 0: loses, loses, NaN; row 1: wins, ties, NaN
    same(b.grad, [1.0, 1.5, 2.0])


@pytest.mark.parametrize("reduce", ["max", "min"])
def test_a_nan_is_the_extreme_of_its_slice_and_nans_share_the_gradient(reduce):
    (g,) = grads(lambda x: getattr(x, reduce)(), [[nan, 1.0, 2.0, nan]], 1.0)
    same(g, [0.5, 0.0, 0.0, 0.5])
    (g,) = grads(lambda x: getattr(x, reduce)(axis=1), [[[nan, 1.0], [2.0, 2.0]]], [1.0, 4.0])
    same(g, [[1.0, 0.0], [2.0, 2.0]])  # a NaN row, and an ordinary tie


def test_no_nan_and_no_warning_from_a_nan_slice():
    x = Tensor(np.array([[nan, 1.0], [2.0, 3.0]]), requires_grad=True)
    with np.errstate(all="raise"):  # 0/0 in the tie share would raise here
        out = x.max(axis=1)
    out.sum().backward()
    assert np.isfinite(x.grad).all()


@pytest.mark.parametrize("fn, expected", [
    (lambda a, b: mg.maximum(a, b), ([0.0, inf], [inf, 0.0])),
    (lambda a, b: mg.minimum(a, b), ([inf, 0.0], [0.0, inf])),
])
def test_the_losing_input_of_maximum_gets_zero_even_from_an_inf_gradient(fn, expected):
    ga, gb = grads(fn, [[1.0, 3.0], [2.0, 2.0]], [inf, inf])  # not inf·0 = NaN
    same(ga, expected[0])
    same(gb, expected[1])


def test_reductions_clip_and_max_pool_give_zero_off_the_chosen_elements_for_inf():
    (g,) = grads(lambda x: x.max(), [[1.0, 2.0]], inf)
    same(g, [0.0, inf])
    (g,) = grads(lambda x: x.clip(-1, 1), [[-3.0, 0.5, 3.0]], [inf, inf, inf])
    same(g, [0.0, inf, 0.0])
    import minigrad.nn.functional as F

    x = np.arange(16.0).reshape(1, 1, 4, 4)
    (g,) = grads(lambda t: F.max_pool2d(t, 2), [x], np.full((1, 1, 2, 2), inf))
    expected = np.zeros((1, 1, 4, 4))
    expected[0, 0, 1::2, 1::2] = inf  # each window's maximum is its bottom-right element
    same(g, expected)


def test_max_pool_passes_the_gradient_to_a_nan_in_its_window():
    import minigrad.nn.functional as F

    x = np.arange(16.0).reshape(1, 1, 4, 4)
    x[0, 0, 0, 0] = nan
    (g,) = grads(lambda t: F.max_pool2d(t, 2), [x], np.ones((1, 1, 2, 2)))
    assert g[0, 0, 0, 0] == 1 and g[0, 0, 1, 1] == 0 and g.sum() == 4


# --- the same cases against PyTorch ---------------------------------------------------
CASES = [
    ("relu", lambda t: t.relu(), lambda x: x.relu(), [[nan, -1.0, 0.0, 2.0]], [1.0, inf, inf, 3.0]),
    ("abs", lambda t: t.abs(), lambda x: x.abs(), [[nan, 0.0, -2.0, inf]], [1.0, 1.0, 1.0, 1.0]),
    ("abs at 0, inf g", lambda t: t.abs(), lambda x: x.abs(), [[0.0]], [inf]),
    ("maximum", lambda a, b: a.maximum(b), mg.maximum,
     [[nan, 1.0, 1.0, 2.0], [1.0, nan, 1.0, 3.0]], [1.0] * 4),
    ("minimum", lambda a, b: a.minimum(b), mg.minimum,
     [[nan, 1.0, 1.0, 2.0], [1.0, nan, 1.0, 3.0]], [1.0] * 4),
    ("max", lambda t: t.max(), lambda x: x.max(), [[nan, 1.0, 2.0, nan]], 1.0),
    ("min", lambda t: t.min(), lambda x: x.min(), [[1.0, nan, 2.0]], 1.0),
    ("clip", lambda t: t.clamp(-1, 1), lambda x: x.clip(-1, 1), [[nan, 1.0, -1.0, 5.0]], [1.0] * 4),
    ("clip, inf g", lambda t: t.clamp(-1, 1), lambda x: x.clip(-1, 1), [[-3.0, 0.5, 3.0]],
     [inf] * 3),
    ("maximum, inf g", lambda a, b: a.maximum(b), mg.maximum, [[1.0, 3.0], [2.0, 2.0]], [inf] * 2),
    ("minimum, inf g", lambda a, b: a.minimum(b), mg.minimum, [[1.0, 3.0], [2.0, 2.0]], [inf] * 2),
    ("max, inf g", lambda t: t.max(), lambda x: x.max(), [[1.0, 2.0]], inf),
    ("leaky_relu", lambda t: torch.nn.functional.leaky_relu(t, 0.1), lambda x: x.leaky_relu(0.1),
     [[nan, -2.0, -0.0, 0.0, 3.0, -inf, inf]], [1.0, inf, 1.0, 1.0, 1.0, 1.0, 1.0]),
    ("leaky_relu slope 0", lambda t: torch.nn.functional.leaky_relu(t, 0.0),
     lambda x: x.leaky_relu(0.0), [[-2.0, 3.0]], [inf, inf]),
    ("where, inf g", lambda a, b: torch.where(torch.tensor([True, False]), a, b),
     lambda a, b: mg.where(np.array([True, False]), a, b), [[1.0, 2.0], [3.0, 4.0]], [inf, inf]),
    ("sqrt", lambda t: t.sqrt(), lambda x: x.sqrt(), [[0.0, inf, -1.0]], [1.0] * 3),
    ("log", lambda t: t.log(), lambda x: x.log(), [[0.0, -1.0, inf]], [1.0] * 3),
    ("tanh", lambda t: t.tanh(), lambda x: x.tanh(), [[nan, inf, -inf]], [1.0] * 3),
    ("sigmoid", lambda t: t.sigmoid(), lambda x: x.sigmoid(), [[nan, inf, -inf]], [1.0] * 3),
    ("div", lambda a, b: a / b, lambda a, b: a / b, [[1.0, 0.0, inf], [0.0, 0.0, inf]], [1.0] * 3),
    ("mul", lambda a, b: a * b, lambda a, b: a * b, [[0.0, inf], [inf, 0.0]], [1.0] * 2),
]


@pytest.mark.parametrize("name, theirs, mine, xs, upstream", CASES, ids=[c[0] for c in CASES])
def test_edge_gradients_match_pytorch(name, theirs, mine, xs, upstream):
    if torch is None:
        pytest.skip("PyTorch is not installed")
    ts = [torch.tensor(x, dtype=torch.float64, requires_grad=True) for x in xs]
    with np.errstate(all="ignore"):
        theirs(*ts).backward(torch.tensor(upstream, dtype=torch.float64))
        got = grads(mine, xs, upstream)
    for t, g in zip(ts, got):
        same(g, t.grad.numpy())


def test_zero_d_relu_and_masked_rules_follow_the_same_semantics():
    (g,) = grads(lambda x: x.relu(), [nan], 2.0)
    same(g, 2.0)
    (g,) = grads(lambda x: x.relu(), [-1.0], inf)
    same(g, 0.0)
    (g,) = grads(lambda x: x.clip(-1, 1), [3.0], inf)
    same(g, 0.0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sigmoid_is_the_two_branch_stable_formula_exactly(dtype):
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.standard_normal(1000) * 30,
                        [nan, inf, -inf, 0.0, -0.0, 1e-30, -1e-30, 88.0, -104.0]]).astype(dtype)
    e = np.exp(-np.abs(x))
    r = 1 / (1 + e)
    expected = np.where(x >= 0, r, e * r)  # σ(x) without overflow, as written on paper
    same(Tensor(x).sigmoid().data, expected)
    assert Tensor(x).sigmoid().dtype == dtype
    x0 = np.array(-3.0, dtype)  # 0-d: numpy computes scalars there
    e0 = np.exp(-np.abs(x0))
    same(Tensor(x0).sigmoid().data, e0 * (1 / (1 + e0)))

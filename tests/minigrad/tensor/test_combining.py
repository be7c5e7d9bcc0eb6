"""Functions of several tensors (``minigrad/tensor/combining.py``): ``cat``, ``stack``,
``where``, ``maximum``, ``minimum``: values, gradients to every input, dtypes, errors."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad
from tests._helpers import leaf

T = minigrad.tensor


class TestJoining:
    def test_cat_stack_pad(self):
        a, b = leaf(np.ones((2, 3))), leaf(np.zeros((1, 3)))
        c = minigrad.cat([a, b], axis=0)
        assert c.shape == (3, 3)
        (c * leaf(np.arange(9.0).reshape(3, 3))).sum().backward()
        np.testing.assert_array_equal(a.grad, [[0, 1, 2], [3, 4, 5]])
        np.testing.assert_array_equal(b.grad, [[6, 7, 8]])
        s = minigrad.stack([a, a], axis=1)
        assert s.shape == (2, 2, 3)
        p = a.pad(((1, 1), (0, 2)), value=-1.0)
        assert p.shape == (4, 5) and p.data[0, 0] == -1
        assert a.pad(1).shape == (4, 5)
        with pytest.raises(ValueError, match=r"cat.*\[inputs: \(2, 3\) float64, \(1, 2\)"):
            minigrad.cat([a, T(np.zeros((1, 2)))])
        with pytest.raises(TypeError, match="list"):
            minigrad.stack(a)


class TestChoosing:
    def test_where(self):
        a, b = leaf([1.0, 2.0, 3.0]), leaf([10.0])
        y = minigrad.where(a > 1.5, a, b)
        np.testing.assert_array_equal(y.data, [10, 2, 3])
        y.sum().backward()
        np.testing.assert_array_equal(a.grad, [0, 1, 1])
        np.testing.assert_array_equal(b.grad, [1])
        assert minigrad.where(np.array([True, False]), a[:2], 0.0).dtype == np.float64
        with pytest.raises(TypeError, match="bool"):
            minigrad.where(a, a, b)


@pytest.mark.parametrize("name, number", [("maximum", 0.0), ("minimum", 3.0)])
def test_module_level_maximum_and_minimum(name, number):
    fn, ufunc = getattr(minigrad, name), getattr(np, name)
    a = minigrad.Tensor(np.array([1.0, 5.0, 2.0], dtype=np.float32), requires_grad=True)
    out = fn(number, a)  # the number first
    assert out.dtype == np.float32
    np.testing.assert_allclose(out.data, ufunc(number, a.data))
    out.sum().backward()
    assert a.grad.shape == (3,)
    with pytest.raises(TypeError, match="at least one Tensor"):
        fn(1.0, 2.0)


def test_where_with_a_0d_float64_operand_stays_float32():
    cond = minigrad.Tensor(np.array([True, False]))
    a = minigrad.Tensor(np.array([1.0, 2.0], dtype=np.float32), requires_grad=True)
    s = minigrad.Tensor(np.array(5.0), requires_grad=True)
    out = minigrad.where(cond, a, s)
    assert out.dtype == np.float32
    out.sum().backward()
    np.testing.assert_allclose(a.grad, [1.0, 0.0])
    assert s.grad.dtype == np.float64 and s.grad == 1.0

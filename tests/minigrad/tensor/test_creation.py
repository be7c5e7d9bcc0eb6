"""Making tensors (``minigrad/tensor/creation.py``): float32 by default, ``tensor``
copies what ``Tensor`` shares, seeded random constructors."""

from __future__ import annotations

import numpy as np

import minigrad
from minigrad import Tensor

T = minigrad.tensor


class TestConstructors:
    def test_Tensor_shares_numpy_memory_tensor_copies(self):
        a = np.zeros(3, np.float32)
        assert Tensor(a).data is a
        assert T(a).data is not a

    def test_constructors(self):
        assert minigrad.zeros(2, 3).shape == (2, 3)
        assert minigrad.zeros((2, 3)).dtype == np.float32
        assert minigrad.ones([4]).data.sum() == 4
        assert minigrad.full((2,), 0.5).dtype == np.float32
        assert minigrad.arange(5).dtype == np.int64
        assert minigrad.arange(0.0, 1.0, 0.25).dtype == np.float32
        assert minigrad.zeros_like(T([1.0, 2.0])).shape == (2,)
        assert minigrad.ones_like(Tensor(np.zeros((2, 2)))).dtype == np.float64
        w = minigrad.randn(3, 4, requires_grad=True, name="w")
        assert w.dtype == np.float32 and w.requires_grad and w.name == "w"
        assert minigrad.rand(5, seed=0).data.min() >= 0

    def test_randn_is_seeded(self):
        a = minigrad.randn(3, seed=1).data
        b = minigrad.randn(3, generator=np.random.default_rng(1)).data
        np.testing.assert_array_equal(a, b)
        minigrad.manual_seed(3)
        c = minigrad.randn(2).data
        minigrad.manual_seed(3)
        np.testing.assert_array_equal(c, minigrad.randn(2).data)
        assert minigrad.randn(2, dtype=np.float64).dtype == np.float64

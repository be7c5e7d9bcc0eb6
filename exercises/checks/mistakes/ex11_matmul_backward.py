"""Wrong answers that ``checks/ex11_matmul_backward.py`` must reject (lesson 5)."""

from __future__ import annotations

import numpy as np

from ._registry import mistake

mistake("ex11", "matmul_backward", "no transposes", "shape")(lambda g, a, b: (g @ b, a @ g))
mistake("ex11", "matmul_backward", "transposes swapped", "has shape")(
    lambda g, a, b: (a.T @ g, g @ b.T))
mistake("ex11", "matmul_backward", "ignores g (all-ones upstream)", "g @ bᵀ")(
    lambda g, a, b: (np.ones_like(g) @ b.T, a.T @ np.ones_like(g)))
mistake("ex11", "batched_matmul_backward", "no unbroadcast", "unbroadcast")(
    lambda g, a, b: (g @ np.swapaxes(b, -1, -2), np.swapaxes(a, -1, -2) @ g))
mistake("ex11", "batched_matmul_backward", ".T reverses every axis", "swapaxes")(
    lambda g, a, b: (g @ b.T, a.T @ g))

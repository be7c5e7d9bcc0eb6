"""jit.writers: the Python a fused kernel becomes, per backend (one numpy call per value, blocks
split between threads, numexpr constants)."""

from __future__ import annotations

import numpy as np
import pytest

from minigrad import Tensor, jit
from minigrad.jit import kernels, writers
from tests.minigrad.jit.test_kernels import _inputs, _kernel, chain


def test_the_threads_split_the_blocks_into_contiguous_shares(monkeypatch):
    monkeypatch.setattr(writers, "THREADS", [3])
    seen = []
    writers.in_parts(lambda lo, hi: seen.append((lo, hi)), 10 * writers.BLOCK + 5)
    assert sorted(seen) == [(0, 4 * writers.BLOCK), (4 * writers.BLOCK, 8 * writers.BLOCK),
                            (8 * writers.BLOCK, 10 * writers.BLOCK + 5)]


def test_small_arrays_take_one_numpy_call_per_value():
    arrays = _inputs((4, 4))
    _, kernel = _kernel(chain, arrays)
    assert kernel.backend == "numpy" and "np.tanh(" in kernel.source


def test_a_float32_constant_stays_float32_in_numexpr():
    if kernels.numexpr_module() is None:
        pytest.skip("numexpr is not installed")
    arrays = _inputs((300, 300))
    out = jit.jit(lambda x, y, s: x * 0.5 + y, backend="numexpr")(
        *[Tensor(a) for a in arrays])
    assert out.dtype == np.float32


def test_generated_code_reads_numpy_through_a_module_without_getattr():
    from minigrad.jit.kernels import fast_numpy

    fast = fast_numpy()
    assert "__getattr__" in vars(np) and "__getattr__" not in vars(fast)
    assert fast.multiply is np.multiply and fast.float32 is np.float32
    jf = jit.jit(lambda x: (x * x).tanh().sum())
    jf(Tensor(np.ones(3), requires_grad=True))
    (compiled,) = jf.cache.values()
    assert compiled.op.forward.__globals__["np"] is fast

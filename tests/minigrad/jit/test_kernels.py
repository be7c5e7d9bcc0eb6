"""Fused kernels: the blocked numpy backend on large arrays, threads, and numexpr on or off."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad
from minigrad import Tensor, jit
from minigrad.jit import kernels, writers


def chain(x, y, s):
    return ((((x * y + s).tanh() * 0.5 - x).exp() * y) + s).sum()


def _inputs(shape, yshape=None, dtype=np.float32, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape).astype(dtype) * 0.5
    y = rng.standard_normal(yshape or shape).astype(dtype) * 0.5
    s = np.asarray(rng.standard_normal(), dtype)
    return [x, y, s]


def _run(fn, arrays):
    xs = [Tensor(a, requires_grad=True) for a in arrays]
    out = fn(*xs)
    out.backward()
    return [out.data] + [x.grad for x in xs]


def _kernel(fn, arrays):
    t = jit.jit(fn).trace_for(*[Tensor(a, requires_grad=True) for a in arrays])
    (fused,) = [e for e in t.eqns if e.body]
    return kernels.Kernel.__name__, jit.passes.op_kernel[fused.op]


@pytest.mark.parametrize("threads", [1, 2])
def test_a_large_chain_runs_in_blocks_bitwise_equal_to_eager(monkeypatch, threads):
    monkeypatch.setattr(writers, "THREADS", [threads])
    arrays = _inputs((301, 407))  # 122,507 elements: 7 blocks and a shorter one
    _, kernel = _kernel(chain, arrays)
    assert kernel.backend == "numpy-blocked" and "for i in range(lo, hi" in kernel.source
    for got, want in zip(_run(jit.jit(chain), arrays), _run(chain, arrays)):
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def test_an_input_broadcast_along_some_axes_runs_unblocked_and_still_equal():
    arrays = _inputs((300, 400), (400,), np.float64)
    _, kernel = _kernel(chain, arrays)
    assert kernel.backend == "numpy" and "for i in range" not in kernel.source
    for got, want in zip(_run(jit.jit(chain), arrays), _run(chain, arrays)):
        np.testing.assert_array_equal(got, want)


def test_without_numexpr_the_default_backend_works_and_numexpr_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(kernels, "numexpr_module", lambda: None)
    arrays = _inputs((300, 300))
    for got, want in zip(_run(jit.jit(chain), arrays), _run(chain, arrays)):
        np.testing.assert_array_equal(got, want)
    with pytest.raises(ImportError, match=r"pip install minigrad-kit\[jit\]"):
        _run(jit.jit(chain, backend="numexpr"), arrays)


def test_with_numexpr_large_kernels_evaluate_inlined_expressions():
    if kernels.numexpr_module() is None:
        pytest.skip("numexpr is not installed (pip install minigrad-kit[jit])")
    arrays = _inputs((300, 300))
    fn = jit.jit(chain, backend="numexpr")
    t = fn.trace_for(*[Tensor(a, requires_grad=True) for a in arrays])
    (fused,) = [e for e in t.eqns if e.body]
    source = jit.passes.op_kernel[fused.op].source
    assert "evaluate('((a0 * a1) + a2)'" in source and "np.tanh(" in source
    for got, want in zip(_run(fn, arrays), _run(chain, arrays)):
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-5)


def _relu_chain(x, y, z):
    floor = y * 0.25
    return (minigrad.maximum((x * y).relu(), floor) * z).sum()


@pytest.mark.parametrize("shape, backend", [((4, 5), "numpy"), ((301, 407), "numpy-blocked"),
                                            ((301, 407), "numexpr")])
def test_a_fused_relu_keeps_its_nan_and_inf_rules(shape, backend):
    """relu and maximum fuse (their masked() rule is one kernel step) and still follow
    PyTorch at the edges: a NaN input passes its gradient on, and an inf gradient where
    relu blocks becomes 0, not inf·0 = NaN.  (By blocks, masked() patches only a block
    that holds a NaN, so a blocked-out zero may differ from eager in its sign alone.)"""
    if backend == "numexpr" and kernels.numexpr_module() is None:
        pytest.skip("numexpr is not installed")
    rng = np.random.default_rng(3)
    x, y, z = (rng.standard_normal(shape).astype(np.float32) for _ in range(3))
    x.flat[:3] = np.nan  # relu(NaN) = NaN: its gradient passes
    z.flat[3:40] = np.inf  # an inf gradient reaching relu, blocked where x·y ≤ 0
    arrays = [x, y, z]
    fn = jit.jit(_relu_chain, backend="numexpr" if backend == "numexpr" else None)
    with np.errstate(invalid="ignore"):  # (the loss is NaN: inf·0 in the forward)
        t = fn.trace_for(*[Tensor(a, requires_grad=True) for a in arrays])
        results = list(zip(_run(fn, arrays), _run(_relu_chain, arrays)))
    (fused,) = [e for e in t.eqns if e.body]
    assert "relu" in fused.op.symbol and "maximum" in fused.op.symbol
    assert jit.passes.op_kernel[fused.op].backend == backend
    for got, want in results:
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        if backend == "numpy" and shape == (4, 5):
            assert got.tobytes() == want.tobytes()  # one kernel call: the eager bits
        np.testing.assert_array_equal(got, want)  # (NaN equals NaN here; 0.0 == -0.0)

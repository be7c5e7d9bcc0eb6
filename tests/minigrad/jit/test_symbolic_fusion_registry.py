"""jit against eager minigrad on random chains of every elementwise tensor op in the registry.

Each chain applies 6 ops drawn at random from the registry's elementwise ops
(unary ones on the running value; binary ones with an input whose shape
broadcasts against it, on either side, a fresh one or one used before), in
float32 and float64, then sums.  It
is compiled by ``jit`` (fused where the ops allow) and compared with eager
minigrad: forward value and every input's gradient.

* numpy backend: **bitwise**.  The fused kernel runs the very numpy calls the
  eager ops and rules make (it was read from them, ``symbolic.py``), in the same
  order, and sums contributions in the order the engine does (an input broadcast
  or promoted in the chain gets each edge summed down and cast on its own, then
  added, as the engine's ``accumulate`` does).
* numexpr backend: to 1e-5 (float32) / 1e-12 (float64) relative.  numexpr inlines
  values into one expression and may evaluate an expression with its own
  rounding (e.g. contracting ``a*b + c``), so bits may differ.

Inputs stay in each op's smooth domain: ops that need a positive argument (log,
sqrt, a power's base) get ``h*h + 0.5``; divisors are kept away from zero.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad  # noqa: F401  (registers every op)
from minigrad import Tensor, apply_op, jit
from minigrad.autograd import registered_ops
from minigrad.jit import kernels

OPS = [op for op in registered_ops("tensor")
       if op.elementwise and op.grads and op.arity in (1, 2) and op.name != "where"]
POSITIVE = {"log", "sqrt"}
SHAPES = [((3, 4), (4,)), ((3, 4), (3, 1)), ((2, 3, 4), ()), ((5,), (5,)), ((), ())]


def test_every_elementwise_op_of_the_registry_is_drawn():
    names = {op.name for op in OPS}
    assert {"add", "mul", "div", "pow", "exp", "tanh", "sigmoid", "relu", "gelu"} <= names


def random_chain(rng, dtype, shape, other):
    """A random chain: ``(fn, inputs)`` with ``fn(*inputs)`` building it with apply_op."""
    steps, inputs = [], [rng.standard_normal(shape).astype(dtype)]
    for _ in range(6):
        op = OPS[rng.integers(len(OPS))]
        attrs = op.cases(np.random.default_rng(0))[0][1] if op.cases else {}
        if op.arity == 2:
            if len(inputs) > 1 and rng.integers(3) == 0:  # an input used again: its edges
                steps.append((op, attrs, int(rng.integers(1, len(inputs))),  # add up
                              bool(rng.integers(2))))
                continue
            value = rng.uniform(0.5, 1.5, other).astype(dtype)
            if op.name not in ("div", "pow"):
                value *= rng.choice([-1, 1], other).astype(dtype)
            inputs.append(value)
            steps.append((op, attrs, len(inputs) - 1, bool(rng.integers(2))))
        else:
            steps.append((op, attrs, None, False))

    def fn(*xs):
        h = xs[0]
        for op, attrs, k, left in steps:
            if op.arity == 1:
                h = apply_op(op, h * h + 0.5 if op.name in POSITIVE else h, **attrs)
            elif op.name == "pow":
                h = apply_op(op, h * h + 0.5, xs[k] - 1.0)
            elif op.name == "div":
                h = apply_op(op, h, xs[k]) if not left else apply_op(op, xs[k], h * h + 0.5)
            else:
                h = apply_op(op, xs[k], h, **attrs) if left else apply_op(op, h, xs[k], **attrs)
            h = h.tanh() if op.name in ("exp", "pow", "div") else h  # keep values moderate
        return h.sum()

    return fn, inputs


def _run(fn, arrays):
    xs = [Tensor(a, requires_grad=True) for a in arrays]
    out = fn(*xs)
    out.backward()
    return out.data, [x.grad for x in xs]


@pytest.mark.parametrize("backend", ["numpy", "numexpr"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("seed", range(16))
def test_jit_matches_eager_on_random_elementwise_chains(seed, dtype, backend):
    if backend == "numexpr" and kernels.numexpr_module() is None:
        pytest.skip("numexpr is not installed (pip install minigrad-kit[jit])")
    rng = np.random.default_rng(seed)
    shape, other = SHAPES[seed % len(SHAPES)]
    fn, arrays = random_chain(rng, dtype, shape, other)
    want, want_grads = _run(fn, arrays)
    jitted = jit.jit(fn, backend=backend)
    got, got_grads = _run(jitted, arrays)
    assert jitted.stats["traces"] == 1 and jitted.stats["fallbacks"] == 0
    if backend == "numpy":
        np.testing.assert_array_equal(got, want)
        for g, w in zip(got_grads, want_grads):
            assert g.dtype == w.dtype and g.shape == w.shape
            np.testing.assert_array_equal(g, w)
    else:
        tol = 1e-5 if dtype == np.float32 else 1e-12
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
        for g, w in zip(got_grads, want_grads):
            np.testing.assert_allclose(g, w, rtol=tol, atol=tol)


def test_the_random_chains_do_get_fused():
    fused = 0
    for seed in range(12):
        rng = np.random.default_rng(seed)
        shape, other = SHAPES[seed % len(SHAPES)]
        fn, arrays = random_chain(rng, np.float64, shape, other)
        t = jit.jit(fn).trace_for(*[Tensor(a, requires_grad=True) for a in arrays])
        fused += t.counts()["fused"]
    assert fused >= 12

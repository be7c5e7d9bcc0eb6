"""``jit(fn)``: one compiled graph node per call, a cache per input signature, eager fallback."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigrad.nn.functional as F
from minigrad import Tensor, jit, nn, no_grad, optim
from minigrad.autograd import grad
from minigrad.engines.higher_order import NotTwiceDifferentiableError


def _x(shape=(3, 4), seed=0, requires_grad=True):
    data = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    return Tensor(data, requires_grad=requires_grad)


def f(x, y):
    return ((x * y + 1.0).tanh() * y).sum()


def test_a_jitted_call_is_one_graph_node_that_eager_code_backpropagates_through():
    x, y = _x(), _x((4,), seed=1)
    out = jit.jit(f)(x, y) * 2.0
    assert out.parents[0].op.name == "jit_f" and out.parents[0].parents == (x, y)
    out.backward()
    gx, gy = x.grad, y.grad
    x.grad = y.grad = None
    (f(x, y) * 2.0).backward()
    np.testing.assert_array_equal(gx, x.grad)
    np.testing.assert_array_equal(gy, y.grad)


def test_the_cache_keeps_one_trace_per_signature_and_retraces_on_a_new_one():
    jf = jit.jit(f)
    jf(_x(), _x((4,)))
    jf(_x(seed=2), _x((4,), seed=3))
    assert jf.stats["traces"] == 1 and jf.stats["hits"] == 1
    jf(_x((5, 4)), _x((4,)))                       # a new shape
    jf(_x(), _x((4,), requires_grad=False))        # a new requires_grad
    assert jf.stats["traces"] == 3 and len(jf.cache) == 3


def test_only_the_inputs_that_require_grad_get_gradients_computed():
    jf = jit.jit(f)
    x, y = _x(), _x((4,), requires_grad=False)
    jf(x, y).backward()
    assert x.grad is not None and y.grad is None
    source = jf.source(x, y)
    assert "return (gx0, None, )" in source


def test_the_generated_source_is_inspectable():
    source = jit.jit(f).source(_x(), _x((4,)))
    assert "def forward(" in source and "def backward(g," in source
    assert "# fused0: fused mul add tanh mul" in source


def test_params_are_read_at_each_call_so_an_optimizer_step_is_seen():
    model = nn.Linear(4, 2)
    jf = jit.jit(lambda x: model(x).sum())
    x = _x((3, 4), requires_grad=False)
    before = jf(x).item()
    with no_grad():
        model.weight *= 0.0
        model.bias *= 0.0
    assert before != 0 and jf(x).item() == 0.0
    assert jf.stats["traces"] == 1


def test_value_dependent_control_flow_falls_back_to_eager_with_one_warning():
    def branchy(x):
        return x * 2 if x.sum() > 0 else x * 3

    jf = jit.jit(branchy)
    x = _x()
    with pytest.warns(UserWarning, match="running eagerly"):
        first = jf(x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        second = jf(-x)
    np.testing.assert_array_equal(first.data, branchy(x).data)
    np.testing.assert_array_equal(second.data, branchy(-x).data)
    assert jf.stats["fallbacks"] == 2


def test_a_second_derivative_through_a_jitted_call_is_a_clear_error():
    x = _x()
    out = jit.jit(lambda x: (x * x).sum())(x)
    with pytest.raises(NotTwiceDifferentiableError):
        grad(out, [x], create_graph=True)


def test_an_mlp_training_step_under_jit_matches_eager():
    def run(use_jit):
        rng = np.random.default_rng(0)
        model = nn.Sequential(nn.Linear(6, 8, activation="relu"), nn.Linear(8, 3))
        for p in model.parameters():
            p.data[...] = rng.standard_normal(p.data.shape).astype(np.float32) * 0.5
        opt = optim.SGD(model.parameters(), lr=0.1)
        loss_fn = lambda x, y: F.cross_entropy(model(x), y)  # noqa: E731
        step = jit.jit(loss_fn) if use_jit else loss_fn
        losses = []
        for _ in range(3):
            x = Tensor(rng.standard_normal((5, 6)).astype(np.float32))
            y = Tensor(rng.integers(0, 3, 5))
            loss = step(x, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        return losses, [p.data.copy() for p in model.parameters()], step

    eager, eager_params, _ = run(False)
    jitted, jit_params, step = run(True)
    assert eager == jitted and step.stats["traces"] == 1
    for a, b in zip(eager_params, jit_params):
        np.testing.assert_array_equal(a, b)


def test_a_function_with_two_outputs_compiles_with_a_clear_error():
    t = jit.trace(lambda x: (x * 2, x + 1), _x())
    with pytest.raises(NotImplementedError, match="returns 2 values"):
        jit.compile(t)
    a, b = t(_x())
    np.testing.assert_array_equal(b.data, _x().data + 1)


def test_an_unknown_backend_is_a_clear_error():
    with pytest.raises(ValueError, match="backend must be"):
        jit.jit(f, backend="cuda")(_x(), _x((4,)))


def test_a_captured_param_whose_shape_or_dtype_changed_is_traced_again():
    w = Tensor(np.ones(4, np.float32), requires_grad=True)
    jf = jit.jit(lambda x: (x * w).sum())
    x = _x((4,), requires_grad=False)
    jf(x)
    w.data = np.full(4, 2.0, np.float32)          # a new array, same type: a cache hit
    assert jf(x).item() == pytest.approx(2 * x.data.sum())
    assert jf.stats["traces"] == 1
    w.data = np.full(4, 2.0, np.float64)          # another dtype: a new program
    jf(x)
    w.data = np.full((1, 4), 2.0, np.float32)     # another shape
    assert jf(x).shape == ()
    assert jf.stats["traces"] == 3


def test_a_compiled_trace_whose_param_changed_shape_is_a_clear_error():
    w = Tensor(np.ones(4, np.float32), requires_grad=True)
    compiled = jit.compile(jit.trace(lambda x: (x * w).sum(), _x((4,))))
    assert compiled(_x((4,))).shape == ()
    w.data = np.ones(5, np.float32)
    with pytest.raises(ValueError, match=r"params changed .*f32\[4\] -> f32\[5\]"):
        compiled(_x((4,)))

"""Registry-driven gradient checks: every tensor op, every case, float64, random upstream.

The test walks ``registered_ops("tensor")`` (the engine's ops and the
functional library's); an op registered without ``cases`` fails here, so a new
op cannot land without a gradient test.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad.ops.tensor  # noqa: F401  (registers the ops)
from minigrad import gradcheck
from minigrad.autograd import registered_ops
from minigrad.tensor import Tensor, apply_op
from tests._helpers import INTERNAL_EXAMPLES, example_leaves, example_node, one_output

try:  # the functional library registers its ops (conv2d, losses ...) in the same table
    import minigrad.nn.functional  # noqa: F401
except ImportError:  # pragma: no cover - only while that package is being written
    pass

OPS = list(registered_ops("tensor"))


def _leaves(inputs):
    """float64 arrays become leaves requiring grad; other arrays stay raw constants."""
    return [Tensor(x.copy(), requires_grad=True)
            if isinstance(x, np.ndarray) and x.dtype == np.float64 else x for x in inputs]


def test_registry_has_the_tensor_ops():
    names = {op.name for op in OPS}
    expected = {
        "add", "sub", "mul", "div", "pow", "neg", "maximum", "minimum", "where", "clip",
        "exp", "log", "sqrt", "abs", "tanh", "sigmoid", "relu", "leaky_relu", "gelu",
        "sum", "mean", "max", "min", "var", "logsumexp", "softmax", "log_softmax", "matmul",
        "reshape", "transpose", "squeeze", "unsqueeze", "expand", "flatten", "cat", "stack",
        "pad", "getitem", "cast",
    }
    assert expected <= names, expected - names


@pytest.mark.parametrize("op", OPS, ids=[op.name for op in OPS])
def test_gradcheck_every_case(op):
    assert op.cases is not None, f"tensor op {op.name} has no cases(rng): add test inputs"
    assert op.formula, f"tensor op {op.name} has no formula"
    rng = np.random.default_rng(1234)
    cases = op.cases(rng)
    assert cases, f"{op.name}.cases returned nothing"
    for k, (inputs, attrs) in enumerate(cases):
        leaves = _leaves(inputs)

        def fn(*xs, _attrs=attrs):
            return one_output(apply_op(op, *xs, **dict(_attrs)))

        try:
            gradcheck(fn, *leaves, eps=1e-6, atol=1e-6, rtol=1e-4, seed=k)
        except AssertionError as e:
            shapes = [np.shape(x) for x in inputs]
            raise AssertionError(f"{op.name} case {k} {shapes} {attrs}: {e}") from None


@pytest.mark.parametrize("op", OPS, ids=[op.name for op in OPS])
def test_float32_in_float32_out(op):
    """float32 inputs give float32 data and float32 gradients for every op."""
    rng = np.random.default_rng(7)
    for inputs, attrs in op.cases(rng):
        attrs = dict(attrs)
        if op.name == "cast":
            attrs["dtype"] = np.dtype(np.float32)
        leaves = [Tensor(x.astype(np.float32), requires_grad=True)
                  if isinstance(x, np.ndarray) and x.dtype == np.float64 else x for x in inputs]
        out = one_output(apply_op(op, *leaves, **attrs))
        assert out.dtype == np.float32, (op.name, attrs)
        out.backward(np.ones(out.shape, dtype=np.float32))
        for x in leaves:
            if isinstance(x, Tensor):
                assert x.grad is not None and x.grad.dtype == np.float32, (op.name, attrs)
                assert isinstance(x.grad, np.ndarray)
                assert x.grad.shape == x.shape


@pytest.mark.parametrize("example", INTERNAL_EXAMPLES, ids=lambda e: e.name)
def test_gradcheck_every_internal_op_example(example):
    """The library's own ops (``core/op.py``'s internal ops), through their examples."""
    for k, (inputs, attrs) in enumerate(example.cases(np.random.default_rng(1234))):
        leaves = example_leaves(example, inputs)

        def fn(*xs, _attrs=attrs):
            return example_node(example, *xs, **dict(_attrs))

        try:
            gradcheck(fn, *leaves, eps=1e-6, atol=1e-6, rtol=1e-4, seed=k)
        except AssertionError as e:
            raise AssertionError(f"{example.name} case {k}: {e}") from None


ELEMENTWISE = [op for op in OPS if op.elementwise]


def test_the_elementwise_ops_are_marked():
    names = {op.name for op in ELEMENTWISE}
    assert {"add", "sub", "mul", "div", "pow", "neg", "maximum", "minimum", "where", "clip",
            "exp", "log", "sqrt", "abs", "tanh", "sigmoid", "relu", "leaky_relu",
            "gelu", "erf"} == names
    assert not {"sum", "matmul", "reshape", "getitem", "cast"} & names


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("op", ELEMENTWISE, ids=[op.name for op in ELEMENTWISE])
def test_elementwise_rules_return_gradients_that_fit(op, dtype):
    """What ``Node.grads_fit_inputs`` lets the engine take on trust, checked for every
    elementwise op: with no input broadcast, each rule returns an array of its input's
    shape and dtype that is either ``g`` itself or a fresh array (never a view of
    something else).  On 0-d arrays numpy gives a scalar, which the engines turn into a
    0-d array (``fit_gradient``, and one check in ``fast.run_tensor``)."""
    rng = np.random.default_rng(3)
    checked = 0
    for inputs, attrs in op.cases(rng):
        floats = [x for x in inputs if isinstance(x, np.ndarray) and x.dtype == np.float64]
        if len({x.shape for x in floats}) != 1 or any(
                np.shape(x) != floats[0].shape for x in inputs):
            continue  # a broadcast case: the engine checks those edge by edge
        datas = [x.astype(dtype) if x.dtype == np.float64 else x for x in inputs]
        out, saved = op.forward(*datas, **attrs)
        out = np.asarray(out)
        g = rng.standard_normal(out.shape).astype(dtype)
        for x, rule in zip(datas, op.grads):
            if x.dtype != dtype:
                continue  # a mask or condition: no gradient flows there
            local = rule(g, *saved, **attrs)
            if isinstance(local, np.generic):
                assert out.ndim == 0, (op.name, "a numpy scalar from arrays that are not 0-d")
                local = np.asarray(local)
            assert isinstance(local, np.ndarray), (op.name, type(local))
            assert local.shape == x.shape and local.dtype == dtype, (op.name, local.shape,
                                                                    local.dtype)
            assert local is g or (local.base is None and local.flags.writeable), op.name
            checked += 1
    assert checked, f"{op.name}: no case without broadcasting"

"""Custom ops with minigrad.Function: forward/backward, ctx, rendering metadata, Values."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad
import minigrad as mg
from minigrad import Function, Tensor, gradcheck
from minigrad.autograd import registered_ops
from tests._graphs import Cube


class ScaledMul(Function):
    formula = "∂/∂a = s·b,  ∂/∂b = s·a"
    symbol = "s·×"

    @staticmethod
    def forward(ctx, a, b, scale):
        ctx.save_for_backward(a, b)
        ctx.scale = scale
        ctx.calls = getattr(ctx, "calls", 0)
        return a * b * scale  # Tensor ops inside forward build no graph

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        ctx.calls += 1
        ga = g * b * ctx.scale if ctx.needs_input_grad[0] else None
        gb = g * a * ctx.scale if ctx.needs_input_grad[1] else None
        return ga, gb, None


def test_forward_backward_and_gradcheck():
    x = minigrad.tensor([1.0, 2.0, -1.5], requires_grad=True)
    y = Cube.apply(x)
    np.testing.assert_allclose(y.data, [1, 8, -3.375])
    assert y.dtype == np.float32
    y.sum().backward()
    np.testing.assert_allclose(x.grad, [3, 12, 6.75])
    assert x.grad.dtype == np.float32
    assert gradcheck(lambda t: Cube.apply(t), Tensor(np.array([0.3, -1.2]), requires_grad=True))


def test_op_record_for_renderers():
    x = minigrad.tensor([1.0, 2.0], requires_grad=True, name="x")
    y = Cube.apply(x)
    op = y.op
    assert op is Cube._op and op is Cube.apply(x).op  # one Op per class
    assert op.name == "Cube" and op.symbol == "Cube" and op.formula == "∂(x³)/∂x = 3x²"
    assert op.function is Cube and op.engine == "custom"
    assert y.parents == (x,)
    assert len(y.saved) == 1 and isinstance(y.saved[0], np.ndarray)
    np.testing.assert_array_equal(y.saved[0], [1, 2])
    assert y.in_shapes == ((2,),) and y.in_dtypes == (np.float32,)
    z = ScaledMul.apply(x, x, 2.0)
    assert z.op.formula.startswith("∂/∂a = s·b") and z.op.symbol == "s·×"


def test_custom_ops_are_not_in_the_registry():
    names = {op.name for op in registered_ops()}
    assert "Cube" not in names and "ScaledMul" not in names


def test_needs_input_grad_and_non_tensor_args():
    a = minigrad.tensor([1.0, 2.0], requires_grad=True)
    b = minigrad.tensor([3.0, 4.0])
    y = ScaledMul.apply(a, b, 0.5)
    ctx = y.attrs["ctx"]
    assert ctx.needs_input_grad == (True, False, False)
    assert ctx.scale == 0.5
    y.sum().backward()
    np.testing.assert_allclose(a.grad, [1.5, 2.0])
    assert b.grad is None
    assert ctx.calls == 1


def test_backward_runs_once_for_several_inputs():
    a = minigrad.tensor([1.0, 2.0], requires_grad=True)
    b = minigrad.tensor([3.0, 4.0], requires_grad=True)
    y = ScaledMul.apply(a, b, 2.0)
    ctx = y.attrs["ctx"]
    y.sum().backward()
    assert ctx.calls == 1
    np.testing.assert_allclose(b.grad, [2, 4])
    # no gradient kept alive after the pass: the ctx holds no array but what forward set
    assert not any(isinstance(v, np.ndarray) for v in vars(ctx).values())


def test_saved_released_after_backward():
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    y = Cube.apply(x)
    y.sum().backward()
    assert y.saved is None
    with pytest.raises(minigrad.GraphReleasedError):
        y.sum().backward()


def test_no_grad_gives_a_constant():
    x = minigrad.tensor([1.0], requires_grad=True)
    with minigrad.no_grad():
        y = Cube.apply(x)
    assert y.op is None and not y.requires_grad


def test_broadcast_gradient_is_reduced_by_the_engine():
    class AddRow(Function):
        @staticmethod
        def forward(ctx, m, row):
            return m.data + row.data

        @staticmethod
        def backward(ctx, g):
            return g, g  # the row's gradient is still (3, 4): the engine sums it

    m = Tensor(np.zeros((3, 4)), requires_grad=True)
    r = Tensor(np.zeros(4), requires_grad=True)
    AddRow.apply(m, r).sum().backward()
    np.testing.assert_array_equal(r.grad, [3, 3, 3, 3])


def test_wrong_number_of_gradients():
    class Bad(Function):
        @staticmethod
        def forward(ctx, a, b):
            return a.data + b.data

        @staticmethod
        def backward(ctx, g):
            return g, g, g

    a = minigrad.tensor([1.0], requires_grad=True)
    with pytest.raises(ValueError, match="Bad.backward returned 3 gradients"):
        Bad.apply(a, a).sum().backward()


def test_errors():
    with pytest.raises(TypeError, match="at least one"):
        Cube.apply(3.0)
    with pytest.raises(TypeError, match="apply"):
        Cube._op.forward(np.ones(2))
    with pytest.raises(TypeError, match="mix"):
        ScaledMul.apply(minigrad.Value(1.0), minigrad.tensor([1.0]), 1.0)


def test_values_work_too():
    v = minigrad.Value(2.0, label="v")
    y = Cube.apply(v) * 2
    y.backward()
    assert y.data == 16.0 and v.grad == 24.0
    assert gradcheck(lambda a: Cube.apply(a), minigrad.Value(0.7))


def test_trace_sees_custom_nodes():
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    with minigrad.record() as tape:
        y = Cube.apply(x).sum()
    tape.backward(y)
    ops = [e.node.op.name for e in tape if e.kind == "contribute"]
    assert ops == ["sum", "Cube"]


# --- derivatives of derivatives through a Function ------------------------------------------
class _RawCube(Cube):
    @staticmethod
    @mg.once_differentiable
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return np.asarray(g.data) * 3 * x.data ** 2


def test_a_function_whose_backward_uses_tensor_ops_is_twice_differentiable():
    x = mg.Tensor(np.array([0.5, -1.2]), requires_grad=True)
    assert mg.autograd.gradgradcheck(Cube.apply, x)
    assert mg.autograd.gradgradcheck(Cube.apply, mg.Value(0.3))
    (g,) = mg.autograd.grad(Cube.apply(x).sum(), [x], create_graph=True)
    (h,) = mg.autograd.grad(g.sum(), [x])
    np.testing.assert_allclose(h, 6 * x.data)


def test_once_differentiable_names_the_function_in_a_create_graph_pass():
    x = mg.Tensor(np.array([0.5, -1.2]), requires_grad=True)
    (g,) = mg.autograd.grad(_RawCube.apply(x).sum(), [x])  # once is fine
    np.testing.assert_allclose(g, 3 * x.data ** 2)
    with pytest.raises(mg.autograd.NotTwiceDifferentiableError, match="_RawCube.*once_diff"):
        mg.autograd.grad(_RawCube.apply(x).sum(), [x], create_graph=True)


def test_a_function_that_saved_an_intermediate_cannot_build_the_graph_silently():
    class SavesSquare(mg.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x.data ** 2)
            return x.data ** 3

        @staticmethod
        def backward(ctx, g):
            (sq,) = ctx.saved_tensors
            return g * 3 * sq

    x = mg.Tensor(np.array([0.5]), requires_grad=True)
    with pytest.raises(mg.autograd.NotTwiceDifferentiableError, match="SavesSquare.*save only"):
        mg.autograd.grad(SavesSquare.apply(x).sum(), [x], create_graph=True)

"""The public ways in to the op machinery: ``apply_op`` for ops without a method
(a registered name, a scalar op of your own), ``record``/``record_scopes`` with
a wrong argument, a custom Function's non-tensor arguments kept on its node,
and gradcheck's message saying what its numbers are.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
from minigrad import Tensor, Value
from minigrad.core.op import Op
from minigrad.nn import Linear, record_scopes
from minigrad.ops import tensor as tensor_ops

# An op of one's own for the scalar engine, built the way the registry's are (not
# registered, so the registry-wide tests do not see it).
CUBE = Op(name="cube", engine="scalar", symbol="³", forward=lambda x: (x ** 3, (x,)),
          grads=(lambda g, x: g * 3 * x * x,), formulas=("∂/∂x = 3x²",))


# --- apply_op -----------------------------------------------------------------------------
def test_apply_op_runs_a_scalar_op_of_ones_own_on_values():
    x = Value(1.5, label="x")
    y = mg.apply_op(CUBE, x)
    assert isinstance(y, Value) and y.op is CUBE and y.parents == (x,)
    assert y.data == 1.5 ** 3
    y.backward()
    assert x.grad == 3 * 1.5 ** 2
    assert mg.gradcheck(lambda v: mg.apply_op(CUBE, v), Value(0.7))


def test_apply_op_takes_a_registered_name_for_either_engine():
    a, b = Value(2.0), Value(-3.0)
    assert mg.apply_op("mul", a, b).data == -6.0
    t = Tensor(np.array([0.0, 1.0]), requires_grad=True)
    out = mg.apply_op("tanh", t)
    np.testing.assert_allclose(out.data, np.tanh([0.0, 1.0]))
    assert out.op.engine == "tensor"
    # numbers next to a Value are constants
    c = mg.apply_op("mul", 4.0, a)
    assert c.data == 8.0 and c.parents[1] is a


def test_apply_op_errors_name_the_problem():
    with pytest.raises(KeyError, match="no tensor op named 'softplus'"):
        mg.apply_op("softplus", Tensor(np.ones(2)))
    with pytest.raises(TypeError, match="cube takes 1 input .*got 2"):
        mg.apply_op(CUBE, Value(1.0), Value(2.0))
    with pytest.raises(TypeError, match="scalar ops take no settings"):
        mg.apply_op(CUBE, Value(1.0), axis=0)
    with pytest.raises(TypeError, match="mul: a tensor op cannot take a Value"):
        mg.apply_op(tensor_ops.MUL, Value(1.0), Value(1.0))
    with pytest.raises(TypeError, match="engines do not mix"):
        mg.apply_op("mul", Tensor(np.ones(2)), Value(1.0))
    with pytest.raises(TypeError, match="expected an Op"):
        mg.apply_op(len, Value(1.0))

    class Twice(mg.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    with pytest.raises(TypeError, match=r"custom Function: call Twice.apply"):
        mg.apply_op(Twice._op, Tensor(np.ones(2), requires_grad=True))


# --- record / record_scopes with a wrong argument -----------------------------------------
def test_record_refuses_an_object_that_is_not_a_recorder():
    with pytest.raises(TypeError, match="lacks created, seeded, visit, contribute"):
        mg.record(Linear(2, 2))


def test_record_scopes_refuses_the_model_instead_of_a_scope_map():
    model = Linear(3, 2)
    with pytest.raises(TypeError, match="record_scopes\\(\\) takes an optional ScopeMap"):
        with record_scopes(model):
            model(Tensor(np.ones((2, 3), dtype=np.float32)))


# --- gradcheck's message ------------------------------------------------------------------
class WrongCube(mg.Function):
    """A rule with a wrong derivative (2x instead of 3x²)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g * 2 * x


def test_gradcheck_message_says_its_numbers_are_weighted_and_how_to_unweight_them():
    x = Tensor(np.array([1.0, 2.0]), requires_grad=True)
    with pytest.raises(mg.GradcheckError, match=r"random upstream gradient u \(seed=0\)"):
        mg.gradcheck(WrongCube.apply, x)
    with pytest.raises(mg.GradcheckError, match=r"analytic 4 vs numerical 12 .*"
                                                r"gradient of sum\(upstream \* f\)"):
        mg.gradcheck(WrongCube.apply, x, upstream=1.0)


def test_gradcheck_upstream_broadcasts_and_is_checked():
    x = Tensor(np.array([[1.0, 2.0], [3.0, 4.0]]), requires_grad=True)
    assert mg.gradcheck(lambda t: t * t, x, upstream=[1.0, -2.0])
    with pytest.raises(ValueError, match=r"upstream of shape \(3,\) does not broadcast"):
        mg.gradcheck(lambda t: t * t, x, upstream=[1.0, 2.0, 3.0])


# --- a custom Function's settings -----------------------------------------------------------
class ScaledPow(mg.Function):
    """∂(k·xᵖ)/∂x = k·p·xᵖ⁻¹"""

    @staticmethod
    def forward(ctx, x, p, k=1.0, g=0.0):  # (a setting named like the rule's gradient)
        ctx.save_for_backward(x)
        ctx.p, ctx.k = p, k
        return k * x.data ** p + g

    @staticmethod
    def backward(ctx, grad_out):
        x, = ctx.saved_tensors
        return grad_out * ctx.k * ctx.p * x.data ** (ctx.p - 1), None


@pytest.mark.parametrize("make", [lambda: Tensor(np.array([0.7, 1.3]), requires_grad=True),
                                  lambda: Value(0.7)])
def test_function_settings_are_kept_by_name_and_backward_still_works(make):
    x = make()
    y = ScaledPow.apply(x, 2, k=3.0, g=0.5)
    settings = {k: v for k, v in y.attrs.items() if k != "ctx"}
    assert settings == {"p": 2, "k": 3.0, "g": 0.5}
    (y.sum() if isinstance(y, Tensor) else y).backward()
    np.testing.assert_allclose(x.grad, 6.0 * np.asarray(x.data))
    assert mg.gradcheck(lambda t: ScaledPow.apply(t, 3, k=0.5, g=1.0), make())


def test_function_settings_show_in_the_step_through_panel():
    viz = pytest.importorskip("viz")
    s = viz.step_through(lambda x: ScaledPow.apply(x, 2, k=3.0), 1.5,
                         svg='<svg xmlns="http://www.w3.org/2000/svg"></svg>')
    texts = " ".join(f.text for f in s.frames.frames)
    assert "k=3.0" in texts and "p=2" in texts


def test_function_with_star_args_names_settings_by_position():
    class Shift(mg.Function):
        @staticmethod
        def forward(ctx, x, *amounts):
            return x.data + sum(amounts)

        @staticmethod
        def backward(ctx, grad_out):
            return (grad_out,) + (None,) * 2

    y = Shift.apply(Tensor(np.ones(2), requires_grad=True), 1.0, 2.0)
    assert {k: v for k, v in y.attrs.items() if k != "ctx"} == {"arg1": 1.0, "arg2": 2.0}


def test_function_settings_do_not_keep_arrays_alive():
    """A mask passed as a setting and saved for backward is freed after backward, as the
    module doc promises; the node shows a description of it instead."""
    import gc
    import weakref

    class Masked(mg.Function):
        @staticmethod
        def forward(ctx, x, mask, scale=1.0, note=None):
            ctx.save_for_backward(mask)
            return x.data * mask * scale

        @staticmethod
        def backward(ctx, g):
            mask, = ctx.saved_tensors
            return g * mask, None

    x = Tensor(np.ones((300, 300)), requires_grad=True)
    mask = np.ones((300, 300)) > 0
    alive = weakref.ref(mask)
    y = Masked.apply(x, mask, scale=2.0, note=Tensor(np.ones(2)))
    assert repr(y.attrs["mask"]) == "<array (300, 300) bool>"
    assert repr(y.attrs["note"]) == "<Tensor (2,) float64>" and y.attrs["scale"] == 2.0
    loss = y.sum()
    del mask
    loss.backward()
    gc.collect()
    assert alive() is None


def test_apply_op_on_an_op_subclass_and_a_scalar_op_given_a_tensor():
    import dataclasses

    @dataclasses.dataclass(frozen=True, eq=False, kw_only=True)
    class MyOp(Op):
        pass

    tanh = tensor_ops.TANH
    mine = MyOp(name="mytanh", engine="tensor", symbol="t", forward=tanh.forward,
                grads=tanh.grads, formulas=("",))
    out = mg.apply_op(mine, Tensor(np.ones(3), requires_grad=True))
    np.testing.assert_allclose(out.data, np.tanh(np.ones(3)))
    with pytest.raises(TypeError, match="cube: a scalar op cannot take a Tensor"):
        mg.apply_op(CUBE, Tensor(np.ones(2)))


def test_record_refuses_a_recorder_class():
    with pytest.raises(TypeError, match=r"pass an instance, e.g. Tape\(\)"):
        mg.record(mg.Tape)

"""Transforms nested in transforms (``minigrad/func/levels.py`` and the ``live`` results of
``_lift.lift_inputs``): an inner transform whose function closes over an outer
transform's variable must hand back a result the outer one can differentiate, for
every composition, on Tensors and on Values; checked against ``torch.func`` in
float64."""

from __future__ import annotations

import numpy as np
import pytest

from minigrad import Tensor, Value, func
from minigrad.autograd import forward_ad
from minigrad.func.levels import LIFT_OPS, lift

from .test_reverse_transforms import t64

RNG = np.random.default_rng(7)
W, X = RNG.normal(size=(3, 4)), RNG.normal(size=4)
C, V = RNG.normal(size=3), RNG.normal(size=4)  # a cotangent (like f's output), a tangent (like x)
W0, X0 = 0.7, -1.3  # the Value case


def total(y):
    """A sum for a Tensor (torch's or ours), the number itself for a Value."""
    return y if isinstance(y, Value) else y.sum()


def f(w, x):  # (3, 4), (4,) -> (3,); for Values: a number of two numbers
    return (w * x).tanh() * x if isinstance(w, Value) or w.ndim == 0 else (w @ x).tanh() * x[:3]


def loss(w, x):
    return total(f(w, x) * f(w, x))


# name -> the composition, given a kit: T (the transforms), x, c, v (the inner
# function's input, a cotangent and a tangent, as that library's nodes); the result
# is a function of the outer variable w
COMPOSITIONS = {
    "grad∘grad": lambda k: k.T.grad(lambda w: total(k.T.grad(lambda x: loss(w, x))(k.x) ** 2)),
    "grad∘jacrev": lambda k: k.T.grad(lambda w: total(k.T.jacrev(lambda x: f(w, x))(k.x) ** 2)),
    "grad∘jacfwd": lambda k: k.T.grad(lambda w: total(k.T.jacfwd(lambda x: f(w, x))(k.x) ** 2)),
    "jacrev∘jacrev": lambda k: k.T.jacrev(lambda w: k.T.jacrev(lambda x: f(w, x))(k.x)),
    "jacfwd∘jacrev": lambda k: k.T.jacfwd(lambda w: k.T.jacrev(lambda x: f(w, x))(k.x)),
    "jacrev∘jacfwd": lambda k: k.T.jacrev(lambda w: k.T.jacfwd(lambda x: f(w, x))(k.x)),
    "grad∘vjp": lambda k: k.T.grad(
        lambda w: total(k.T.vjp(lambda x: f(w, x), k.x)[1](k.c)[0] ** 2)),
    "grad∘jvp": lambda k: k.T.grad(
        lambda w: total(k.T.jvp(lambda x: f(w, x), (k.x,), (k.v,))[1] ** 2)),
    "jacfwd∘jacfwd": lambda k: k.T.jacfwd(lambda w: k.T.jacfwd(lambda x: f(w, x))(k.x)),
    "grad∘hessian": lambda k: k.T.grad(lambda w: total(k.T.hessian(lambda x: loss(w, x))(k.x))),
    "hessian∘grad": lambda k: k.T.hessian(lambda w: total(k.T.grad(lambda x: loss(w, x))(k.x))),
    # the inner argument is the outer variable, which the function also closes over
    "grad∘grad, same variable": lambda k: k.T.grad(
        lambda w: total(w * k.T.grad(lambda x: total(w * x * x))(w))),
    "grad∘jvp, same variable": lambda k: k.T.grad(
        lambda w: total(w * k.T.jvp(lambda x: (w * x * x).tanh(), (w,), (w * 0 + 1,))[1])),
}


class Kit:
    def __init__(self, T, node, scalar):
        self.T = T
        self.x, self.c, self.v = ((node(X0), node(0.4), node(-0.8)) if scalar
                                  else (node(X), node(C), node(V)))


def ours(name, scalar):
    # (plain data: a Value requires grad by default, which would hide a dropped closure)
    kit = Kit(func, (lambda a: Value(float(a), requires_grad=False)) if scalar else t64, scalar)
    out = COMPOSITIONS[name](kit)(Value(W0) if scalar else t64(W))
    return np.asarray(out.data, dtype=np.float64)


def theirs(name, scalar):
    torch = pytest.importorskip("torch")
    import torch.func as torch_func

    kit = Kit(torch_func, lambda a: torch.tensor(a, dtype=torch.float64), scalar)
    return COMPOSITIONS[name](kit)(torch.tensor(W0 if scalar else W, dtype=torch.float64)).numpy()


@pytest.mark.parametrize("scalar", [False, True], ids=["Tensor", "Value"])
@pytest.mark.parametrize("name", list(COMPOSITIONS))
def test_a_transform_of_a_closure_over_an_outer_variable_matches_torch_func(name, scalar):
    expected = theirs(name, scalar)
    got = ours(name, scalar)
    assert got.shape == expected.shape
    assert np.abs(expected).max() > 1e-3  # (a zero answer would not tell the bug apart)
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)


def test_the_inner_transform_differentiates_its_own_argument_only_not_the_closure():
    # d/dx [x · ∂(x·y)/∂y at y = x] = d/dx x² = 2x; counting the closure's x as y gives 4x
    assert func.grad(lambda x: x * func.grad(lambda y: x * y)(x))(Value(3.0)).data == 6.0
    x = t64([1.0, -2.0])
    got = func.grad(lambda x: (x * func.grad(lambda y: (x * y).sum())(x)).sum())(x)
    np.testing.assert_allclose(got.data, 2 * x.data)


def test_a_top_level_transform_still_hands_back_constants():
    w = t64(W, requires_grad=True)  # the caller's own graph is not differentiated through
    jac = func.jacrev(lambda x: f(w, x))(t64(X))
    assert isinstance(jac, Tensor) and not jac.requires_grad


def test_a_transform_inside_a_forward_mode_level_carries_the_closures_tangent():
    # ∂/∂w of grad_x loss(w, x) along V_w, by hand with forward_ad, against jacfwd of it
    vw = RNG.normal(size=W.shape)
    with forward_ad.dual_level():
        w = forward_ad.make_dual(t64(W), vw)
        tangent = forward_ad.unpack_dual(func.grad(lambda x: loss(w, x))(t64(X))).tangent
    full = func.jacfwd(lambda w: func.grad(lambda x: loss(w, x))(t64(X)))(t64(W))
    assert tangent is not None
    np.testing.assert_allclose(np.asarray(tangent.data if isinstance(tangent, Tensor) else tangent),
                               np.tensordot(full.data, vw, axes=2), rtol=1e-10)


def test_nested_jvp_runs_two_backward_passes_instead_of_a_forward_one():
    with func.count_passes() as n:
        func.grad(lambda w: total(func.jvp(lambda x: f(w, x), (t64(X),), (V,))[1]))(t64(W))
    assert (n.forward, n.backward) == (1, 3)  # the outer grad's pass, the inner jvp's two


def test_lift_is_a_node_of_its_own_with_the_same_value_passing_gradients_through():
    x = t64(X, requires_grad=True)
    y = lift(x)
    assert y is not x and y.op is LIFT_OPS["tensor"] and np.array_equal(y.data, X)
    (y * y).sum().backward()
    np.testing.assert_allclose(x.grad.data, 2 * X)
    v = Value(2.0, requires_grad=True)
    assert lift(v).op is LIFT_OPS["scalar"] and lift(v).data == 2.0


def test_vmap_of_a_nested_transform_of_a_closure_matches_torch_func():
    torch = pytest.importorskip("torch")
    import torch.func as torch_func

    xs = RNG.normal(size=(5, 4))

    def per_example(T, node):
        return T.vmap(lambda x: T.grad(
            lambda w: (T.jacrev(lambda z: f(w, z))(x) ** 2).sum())(node(W)))(node(xs))

    expected = per_example(torch_func, lambda a: torch.tensor(a, dtype=torch.float64)).numpy()
    np.testing.assert_allclose(per_example(func, t64).data, expected, rtol=1e-10, atol=1e-12)

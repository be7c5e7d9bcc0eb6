"""Checks for exercise 18: the penalty's value against ∂L/∂x from a first-order backward,
its gradient with respect to the weights against central differences; weights and x
arrive with a stale .grad, which must be left alone."""

import numpy as np

from minigrad import Tensor
from minigrad.autograd import grad

from ._second_order import CREATE_GRAPH, DOT_GRAD, call_twice
from ._support import close, expect_array, expect_close, fail, fmt, rng_for


def _cases():
    """(text, loss_fn, weights, x): small float64 models whose loss closes over weights."""
    rng = rng_for("ex18.cases")
    W = Tensor(rng.standard_normal((3, 4)), requires_grad=True, name="W")
    b = Tensor(rng.standard_normal(4), requires_grad=True, name="b")
    C = Tensor(rng.standard_normal((5, 4)))  # a random upstream for the tanh layer

    def layer(x):
        return ((x @ W + b).tanh() * C).sum()

    yield ("L = sum(tanh(x @ W + b) · C)", layer, [W, b],
           Tensor(rng.standard_normal((5, 3)), requires_grad=True, name="x"))
    W1 = Tensor(rng.standard_normal((3, 4)) * 0.7, requires_grad=True, name="W1")
    W2 = Tensor(rng.standard_normal((4, 2)), requires_grad=True, name="W2")

    def two_layers(x):
        return ((x @ W1).tanh() @ W2).sigmoid().sum() + 0.1 * (x * x).sum()

    yield ("L = sum(σ(tanh(x @ W1) @ W2)) + 0.1·Σx²", two_layers, [W1, W2],
           Tensor(rng.uniform(-1, 1, (4, 3)), requires_grad=True, name="x"))


def _penalty(loss_fn, x) -> float:
    """‖∂L/∂x‖² from a first-order pass on a fresh copy of x."""
    fresh = Tensor(x.data.copy(), requires_grad=True)
    (gx,) = grad(loss_fn(fresh), [fresh])
    return float(np.sum(gx * gx))


def _loss(loss_fn, x) -> float:
    return float(loss_fn(Tensor(x.data.copy())).data)


def _numerical(fn, weights, eps=1e-6) -> list:
    """Central differences of ``fn()`` along every element of every weight (in place)."""
    out = []
    for w in weights:
        g = np.zeros(w.shape)
        for idx in np.ndindex(*w.shape):
            orig = w.data[idx]
            w.data[idx] = orig + eps
            plus = fn()
            w.data[idx] = orig - eps
            minus = fn()
            w.data[idx] = orig
            g[idx] = (plus - minus) / (2 * eps)
        out.append(g)
    return out


def _stale(nodes) -> list:
    """Give every node an old .grad (arrays of 5.0), as if from earlier work."""
    kept = []
    for n in nodes:
        n.grad = np.full(n.shape, 5.0)
        kept.append(n.grad.copy())
    return kept


def _expect_grads_untouched(nodes, kept, context):
    for n, k in zip(nodes, kept):
        if not (isinstance(n.grad, np.ndarray) and np.array_equal(n.grad, k)):
            fail(f"{context} changed {n.label}.grad (it arrived as an array of 5.0 and should "
                 f"stay so)", DOT_GRAD)


def check_gradient_penalty(gradient_penalty):
    for text, loss_fn, weights, x in _cases():
        context = f"gradient_penalty(loss_fn, x) with {text}"
        kept = _stale([x, *weights])
        got = call_twice(gradient_penalty, "gradient_penalty",
                         {"loss_fn": loss_fn, "x": x}, context)
        _expect_grads_untouched([x, *weights], kept, context)
        if not isinstance(got, Tensor):
            fail(f"{context} returned {type(got).__name__} {fmt(got)}, expected a scalar "
                 f"Tensor whose graph reaches the weights", CREATE_GRAPH)
        if not got.requires_grad:
            fail(f"{context} returned a Tensor that does not require grad: it has no graph "
                 f"back to the weights", CREATE_GRAPH)
        if got.shape != ():
            fail(f"{context} returned a Tensor of shape {got.shape}, expected a scalar",
                 "sum the squares of all the gradient's elements")
        want = _penalty(loss_fn, x)
        hint = "‖∂L/∂x‖² is the sum of the squares of ∂L/∂x's elements"
        if close(float(got.data), np.sqrt(want)):
            hint = "the penalty is the *squared* norm: Σ g², no square root"
        expect_close(float(got.data), want, what="the penalty", context=context, hint=hint,
                     rtol=1e-9)
        for w in weights:
            w.grad = None
        got.backward()
        expected = _numerical(lambda f=loss_fn, x=x: _penalty(f, x), weights)
        for w, e in zip(weights, expected):
            expect_close(w.grad, e, what=f"d penalty/d{w.label} (after .backward() on your "
                         f"penalty)", context=context, hint=CREATE_GRAPH, atol=1e-6, rtol=1e-5)


def check_penalized_gradients(penalized_gradients):
    for (text, loss_fn, weights, x), lam in zip(_cases(), (0.3, 2.0)):
        context = f"penalized_gradients(loss_fn, weights, x, lam={lam}) with {text}"
        kept = _stale([x, *weights])
        got = call_twice(penalized_gradients, "penalized_gradients",
                         {"loss_fn": loss_fn, "weights": list(weights), "x": x, "lam": lam},
                         context)
        _expect_grads_untouched([x, *weights], kept, context)
        if not isinstance(got, (list, tuple)) or len(got) != len(weights):
            fail(f"{context} should return a list of {len(weights)} arrays (one per weight), "
                 f"got {fmt(got)}")
        if any(isinstance(g, Tensor) for g in got):
            fail(f"{context} returned Tensors, expected numpy arrays",
                 "the last grad() needs no create_graph: it returns arrays")
        d_loss = _numerical(lambda f=loss_fn, x=x: _loss(f, x), weights)
        d_pen = _numerical(lambda f=loss_fn, x=x: _penalty(f, x), weights)
        want = [dl + lam * dp for dl, dp in zip(d_loss, d_pen)]
        for g, w, weight in zip(got, want, weights):
            expect_array(g, w.shape, what=f"the gradient for {weight.label}", context=context)

        def near(candidates, got=got):
            return all(close(g, c, atol=1e-6, rtol=1e-5) for g, c in zip(got, candidates))

        hint = "the gradient of L + lam·‖∂L/∂x‖², with ∂L/∂x from grad(..., create_graph=True)"
        if near(d_loss):
            hint = (f"this is the gradient of L alone: the penalty's part is missing; "
                    f"{CREATE_GRAPH}")
        elif near([dl + dp for dl, dp in zip(d_loss, d_pen)]):
            hint = "multiply the penalty by lam"
        elif near([lam * dp for dp in d_pen]):
            hint = "this is the penalty's part alone: L's own gradient belongs in it too"
        for g, w, weight in zip(got, want, weights):
            expect_close(g, w, what=f"the gradient for {weight.label}", context=context,
                         hint=hint, atol=1e-6, rtol=1e-5)

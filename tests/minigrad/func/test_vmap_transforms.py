"""``vmap`` composed with the other transforms, in both orders, checked against the
per-example loop and against ``torch.func`` (when installed).

The headline: ``vmap(grad(loss), in_dims=(None, 0, 0))(params, xs, ys)`` gives one
gradient per example, from one batched forward and backward pass (the parameters are
never copied per example)."""

from __future__ import annotations

import numpy as np
import pytest

from minigrad import Tensor
from minigrad.batching import BatchedArray
from minigrad.func import grad, hessian, jacfwd, jacrev, jvp, vjp, vmap


def _mlp_data(n=6, seed=29):
    rng = np.random.default_rng(seed)
    params = (rng.standard_normal((4, 5)) * 0.5, rng.standard_normal(5) * 0.1,
              rng.standard_normal((5, 3)) * 0.5)
    return params, rng.standard_normal((n, 4)), rng.standard_normal((n, 3))


def _loss(w1, b1, w2, x, y):
    return (((x @ w1 + b1).tanh() @ w2 - y) ** 2).mean()


PARAMS = (0, 1, 2)
IN_DIMS = (None, None, None, 0, 0)


def test_per_example_gradients_equal_the_loop():
    params, xs, ys = _mlp_data()
    ps = [Tensor(p) for p in params]
    got = vmap(grad(_loss, argnums=PARAMS), in_dims=IN_DIMS)(*ps, Tensor(xs), Tensor(ys))
    for i in range(len(xs)):
        want = grad(_loss, argnums=PARAMS)(*ps, Tensor(xs[i]), Tensor(ys[i]))
        for g, w in zip(got, want):
            np.testing.assert_allclose(g.data[i], w.data, rtol=1e-12, atol=1e-15)


def test_one_weight_per_example_gradient_in_the_issues_words():
    """``vmap(grad(loss), in_dims=(None, 0, 0))(params, xs, ys)``."""
    rng = np.random.default_rng(1)
    w, xs, ys = rng.standard_normal((4, 2)), rng.standard_normal((5, 4)), rng.standard_normal(5)
    loss = lambda w, x, y: ((x @ w).tanh().sum() - y) ** 2
    got = vmap(grad(loss), in_dims=(None, 0, 0))(Tensor(w), Tensor(xs), Tensor(ys))
    r = np.tanh(xs @ w).sum(1) - ys  # by hand: 2r · x ⊗ (1 − tanh²)
    want = 2 * r[:, None, None] * xs[:, :, None] * (1 - np.tanh(xs @ w) ** 2)[:, None, :]
    np.testing.assert_allclose(got.data, want, rtol=1e-12)


def test_per_example_gradients_keep_the_parameters_unbatched_inside():
    """Inside the mapped function the parameters stay plain arrays (one copy, shared) and
    only the data is a batch: the matmul's rule makes the per-example gradients."""
    params, xs, ys = _mlp_data()
    seen = []

    def loss(*args):
        seen.append([type(a.data) for a in args])
        return _loss(*args)

    vmap(grad(loss, argnums=PARAMS), in_dims=IN_DIMS)(*[Tensor(p) for p in params],
                                                        Tensor(xs), Tensor(ys))
    assert seen == [[np.ndarray] * 3 + [BatchedArray] * 2]  # one call, params unbatched


def test_per_example_gradients_match_torch_func():
    torch = pytest.importorskip("torch")
    params, xs, ys = _mlp_data()
    got = vmap(grad(_loss, argnums=PARAMS), in_dims=IN_DIMS)(
        *[Tensor(p) for p in params], Tensor(xs), Tensor(ys))

    def tloss(w1, b1, w2, x, y):
        return ((torch.tanh(x @ w1 + b1) @ w2 - y) ** 2).mean()

    want = torch.func.vmap(torch.func.grad(tloss, argnums=PARAMS), in_dims=IN_DIMS)(
        *[torch.from_numpy(p) for p in params], torch.from_numpy(xs), torch.from_numpy(ys))
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.data, w.numpy(), rtol=1e-10, atol=1e-14)


def _f(x, w):
    return (x @ w).tanh() * x.sum()


def _tf(torch):
    return lambda x, w: torch.tanh(x @ w) * x.sum()


@pytest.fixture
def data():
    rng = np.random.default_rng(3)
    return rng.standard_normal((4, 3)), rng.standard_normal((3, 2)), rng.standard_normal((4, 2))


def _both(torch, xs, w):
    return (Tensor(xs), Tensor(w)), (torch.from_numpy(xs), torch.from_numpy(w))


@pytest.mark.parametrize("name", ["vmap(jacrev)", "vmap(jacfwd)", "jacrev(vmap)",
                                  "jacfwd(vmap)", "vmap(hessian)", "grad(vmap)",
                                  "hessian(vmap)"])
def test_jacobians_and_vmap_compose_in_either_order_like_torch(name, data):
    torch = pytest.importorskip("torch")
    tf = torch.func
    xs, w, _ = data
    (x, wm), (tx, tw) = _both(torch, xs, w)
    scalar = lambda x, w: (_f(x, w) ** 2).sum()
    tscalar = lambda x, w: (_tf(torch)(x, w) ** 2).sum()
    mine = {
        "vmap(jacrev)": lambda: vmap(jacrev(_f), in_dims=(0, None))(x, wm),
        "vmap(jacfwd)": lambda: vmap(jacfwd(_f), in_dims=(0, None))(x, wm),
        "jacrev(vmap)": lambda: jacrev(vmap(_f, in_dims=(0, None)))(x, wm),
        "jacfwd(vmap)": lambda: jacfwd(vmap(_f, in_dims=(0, None)))(x, wm),
        "vmap(hessian)": lambda: vmap(hessian(scalar), in_dims=(0, None))(x, wm),
        "grad(vmap)": lambda: grad(lambda x, w: vmap(scalar, in_dims=(0, None))(x, w).sum(),
                                   argnums=1)(x, wm),
        "hessian(vmap)": lambda: hessian(lambda w: vmap(scalar, in_dims=(0, None))(x, w)
                                         .sum())(wm),
    }[name]()
    theirs = {
        "vmap(jacrev)": lambda: tf.vmap(tf.jacrev(_tf(torch)), in_dims=(0, None))(tx, tw),
        "vmap(jacfwd)": lambda: tf.vmap(tf.jacfwd(_tf(torch)), in_dims=(0, None))(tx, tw),
        "jacrev(vmap)": lambda: tf.jacrev(tf.vmap(_tf(torch), in_dims=(0, None)))(tx, tw),
        "jacfwd(vmap)": lambda: tf.jacfwd(tf.vmap(_tf(torch), in_dims=(0, None)))(tx, tw),
        "vmap(hessian)": lambda: tf.vmap(tf.hessian(tscalar), in_dims=(0, None))(tx, tw),
        "grad(vmap)": lambda: tf.grad(lambda x, w: tf.vmap(tscalar, in_dims=(0, None))(x, w)
                                      .sum(), argnums=1)(tx, tw),
        "hessian(vmap)": lambda: tf.hessian(lambda w: tf.vmap(tscalar, in_dims=(0, None))(tx, w)
                                            .sum())(tw),
    }[name]()
    np.testing.assert_allclose(mine.data, theirs.detach().numpy(), rtol=1e-10, atol=1e-13)


def test_vmap_of_jvp_and_vjp_maps_tangents_and_cotangents(data):
    torch = pytest.importorskip("torch")
    xs, w, cs = data
    (x, wm), (tx, tw) = _both(torch, xs, w)
    g = lambda x: _f(x, wm)
    tg = lambda x: _tf(torch)(x, tw)
    got = vmap(lambda x, t: jvp(g, (x,), (t,))[1])(x, x * 0.5)
    want = torch.func.vmap(lambda x, t: torch.func.jvp(tg, (x,), (t,))[1])(tx, tx * 0.5)
    np.testing.assert_allclose(got.data, want.numpy(), rtol=1e-12)
    got = vmap(lambda x, c: vjp(g, x)[1](c)[0])(x, Tensor(cs))
    want = torch.func.vmap(lambda x, c: torch.func.vjp(tg, x)[1](c)[0])(
        tx, torch.from_numpy(cs))
    np.testing.assert_allclose(got.data, want.numpy(), rtol=1e-12)
    # the cotangents mapped, the point shared: rows of the Jacobian at one x
    x0 = Tensor(xs[0])
    _, pull = vjp(g, x0)
    eye = Tensor(np.eye(2))
    rows = vmap(lambda c: pull(c)[0])(eye)
    np.testing.assert_allclose(rows.data, jacrev(g)(x0).data, rtol=1e-12)


def test_jvp_of_vmap_carries_a_tangent_through_the_batch(data):
    xs, w, _ = data
    x, wm = Tensor(xs), Tensor(w)
    t = Tensor(np.ones_like(xs))
    _, got = jvp(vmap(lambda x: _f(x, wm)), (x,), (t,))
    want = np.stack([jvp(lambda x: _f(x, wm), (Tensor(a),), (Tensor(np.ones(3)),))[1].data
                     for a in xs])
    np.testing.assert_allclose(got.data, want, rtol=1e-12)


def test_vmap_of_vmap_of_grad():
    x = np.random.default_rng(5).standard_normal((3, 4))
    got = vmap(vmap(grad(lambda a: a.tanh() * a)))(Tensor(x))
    np.testing.assert_allclose(got.data, np.tanh(x) + x * (1 - np.tanh(x) ** 2), rtol=1e-12)


def test_per_example_gradients_of_the_library_losses():
    """cross_entropy with a batch of class targets, mse_loss with a batch of targets."""
    from minigrad.nn import functional as F

    rng = np.random.default_rng(8)
    w, xs = Tensor(rng.standard_normal((5, 3))), Tensor(rng.standard_normal((4, 5)))
    labels, targets = Tensor(rng.integers(0, 3, 4)), Tensor(rng.standard_normal((4, 3)))
    losses = {"cross_entropy": (lambda w, x, y: F.cross_entropy((x @ w)[None], y[None]), labels),
              "mse_loss": (lambda w, x, y: F.mse_loss(x @ w, y), targets)}
    for name, (loss, ys) in losses.items():
        got = vmap(grad(loss), in_dims=(None, 0, 0))(w, xs, ys)
        for i in range(4):
            want = grad(loss)(w, Tensor(xs.data[i]), Tensor(ys.data[i]))
            np.testing.assert_allclose(got.data[i], want.data, rtol=1e-12, err_msg=name)
    with pytest.raises(ValueError, match="target 5 is out of range for 3 classes"):
        vmap(losses["cross_entropy"][0], in_dims=(None, 0, 0))(w, xs,
                                                               Tensor(np.array([0, 1, 5, 2])))


def test_a_gradient_hook_inside_vmap_sees_and_returns_a_batch():
    xs = np.random.default_rng(4).standard_normal((4, 3))
    seen = []

    def f(x):
        y = x * 3
        y.register_hook(lambda g: seen.append(g.shape) or g * 2)
        return (y * y).sum()

    got = vmap(grad(f))(Tensor(xs))
    np.testing.assert_allclose(got.data, 36 * xs, rtol=1e-12)  # 2 · (2·9·x)
    assert seen == [(3,)]  # one call, one example's shape: the hook ran once for the batch


def test_backward_through_a_vmap_reaches_a_leaf_outside_it():
    w = Tensor(np.random.default_rng(6).standard_normal((4, 3)), requires_grad=True)
    out = vmap(lambda x: (x * x).sum())(w)
    out.sum().backward()
    np.testing.assert_allclose(w.grad, 2 * w.data, rtol=1e-12)

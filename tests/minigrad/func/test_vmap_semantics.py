"""``vmap``'s semantics, checked against the loop it replaces and against ``torch.func.vmap``:
in_dims per argument (int, None, negative, nested for tuples, lists and dicts), out_dims,
tuple outputs, nested vmaps, chunk_size, keyword arguments."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad
from minigrad import Tensor
from minigrad.func import vmap


def _rng():
    return np.random.default_rng(29)


def _loop(f, xs, dim=0):
    """``f`` per slice of ``xs`` along ``dim``, stacked on axis 0: what vmap means."""
    return np.stack([f(Tensor(np.take(xs, i, axis=dim))).data for i in range(xs.shape[dim])])


@pytest.mark.parametrize("dim", [0, 1, 2, -1, -3])
def test_in_dims_picks_the_mapped_axis_negative_too(dim):
    x = _rng().standard_normal((3, 4, 5))
    f = lambda t: (t.exp() * t).sum(axis=0)
    got = vmap(f, in_dims=dim)(Tensor(x))
    np.testing.assert_allclose(got.data, _loop(f, x, dim), rtol=1e-12)


def test_none_in_dims_shares_an_argument_between_examples():
    rng = _rng()
    w, xs = rng.standard_normal((3, 2)), rng.standard_normal((5, 3))
    got = vmap(lambda w, x: x @ w, in_dims=(None, 0))(Tensor(w), Tensor(xs))
    np.testing.assert_allclose(got.data, xs @ w, rtol=1e-12)


def test_nested_in_dims_for_tuples_lists_and_dicts():
    rng = _rng()
    a, b, c = rng.standard_normal((4, 3)), rng.standard_normal((3, 4)), rng.standard_normal(3)
    f = lambda pair, d: pair[0] * pair[1] + d["c"]
    got = vmap(f, in_dims=((0, 1), {"c": None}))((Tensor(a), Tensor(b)), {"c": Tensor(c)})
    np.testing.assert_allclose(got.data, a * b.T + c, rtol=1e-12)
    got = vmap(f, in_dims=([0, 1], None))([Tensor(a), Tensor(b)], {"c": Tensor(c)})
    np.testing.assert_allclose(got.data, a * b.T + c, rtol=1e-12)


def test_one_int_in_dims_maps_every_tensor_in_a_nested_argument():
    rng = _rng()
    a, b = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    got = vmap(lambda p: p[0] - p[1])((Tensor(a), Tensor(b)))
    np.testing.assert_allclose(got.data, a - b)


@pytest.mark.parametrize("out_dims", [0, 1, -1])
def test_out_dims_places_the_batch_axis(out_dims):
    x = _rng().standard_normal((4, 2, 3))
    got = vmap(lambda t: t * 2, out_dims=out_dims)(Tensor(x))
    np.testing.assert_allclose(got.data, np.moveaxis(2 * x, 0, out_dims))


def test_tuple_outputs_each_with_its_out_dim():
    x = _rng().standard_normal((4, 3))
    s, m = vmap(lambda t: (t.sum(), t * 3), out_dims=(0, 1))(Tensor(x))
    np.testing.assert_allclose(s.data, x.sum(1))
    np.testing.assert_allclose(m.data, 3 * x.T)


def test_an_output_that_does_not_depend_on_the_batch_is_repeated():
    w = _rng().standard_normal(3)
    out = vmap(lambda x, w: w * 2, in_dims=(0, None))(Tensor(np.zeros((4, 1))), Tensor(w))
    np.testing.assert_allclose(out.data, np.tile(2 * w, (4, 1)))


def test_out_dims_none_returns_an_unbatched_output_as_it_is():
    w = Tensor(_rng().standard_normal(3))
    _, same = vmap(lambda x, w: (x * 2, w), in_dims=(0, None), out_dims=(0, None))(
        Tensor(np.ones((4, 3))), w)
    assert same is w


def test_nested_vmap_maps_two_axes():
    x = _rng().standard_normal((3, 4, 5))
    f = lambda t: (t * t).sum()
    got = vmap(vmap(f, in_dims=1), in_dims=0)(Tensor(x))
    np.testing.assert_allclose(got.data, (x * x).sum(1), rtol=1e-12)  # (3, 5)
    # an outer product: the inner vmap over b, the outer over a
    a, b = _rng().standard_normal(3), _rng().standard_normal(4)
    outer = vmap(vmap(lambda u, v: u * v, in_dims=(None, 0)), in_dims=(0, None))
    np.testing.assert_allclose(outer(Tensor(a), Tensor(b)).data, np.outer(a, b))


@pytest.mark.parametrize("chunk_size", [1, 2, 3, 10])
def test_chunk_size_gives_the_same_result(chunk_size):
    rng = _rng()
    xs, w = rng.standard_normal((7, 3)), rng.standard_normal((3, 2))
    f = lambda x, w: ((x @ w).tanh(), x.sum())
    want = vmap(f, in_dims=(0, None))(Tensor(xs), Tensor(w))
    got = vmap(f, in_dims=(0, None), chunk_size=chunk_size)(Tensor(xs), Tensor(w))
    for g, h in zip(got, want):
        np.testing.assert_allclose(g.data, h.data, rtol=1e-12)


def test_keyword_arguments_are_passed_unmapped():
    xs = _rng().standard_normal((4, 3))
    got = vmap(lambda x, scale=1.0: x * scale)(Tensor(xs), scale=Tensor(np.full(3, 2.0)))
    np.testing.assert_allclose(got.data, 2 * xs)


def test_matmul_with_vectors_and_broadcast_batch_ranks():
    rng = _rng()
    A, v = rng.standard_normal((5, 2, 3)), rng.standard_normal((5, 3))
    M = rng.standard_normal((3, 3))
    np.testing.assert_allclose(vmap(lambda a, x: a @ x)(Tensor(A), Tensor(v)).data,
                               np.einsum("bij,bj->bi", A, v), rtol=1e-12)
    np.testing.assert_allclose(vmap(lambda x, y: x @ y)(Tensor(v), Tensor(v)).data,
                               (v * v).sum(1), rtol=1e-12)
    np.testing.assert_allclose(vmap(lambda x: x @ Tensor(M) @ x)(Tensor(v)).data,
                               np.einsum("bi,ij,bj->b", v, M, v), rtol=1e-12)


def test_the_functional_layers_batch():
    """A small network's forward, mapped: linear, relu, softmax, layer_norm, indexing."""
    rng = _rng()
    xs = rng.standard_normal((6, 4))
    lin, norm = minigrad.nn.Linear(4, 3), minigrad.nn.LayerNorm(3)

    def net(x):
        return norm(lin(x).relu()).softmax(axis=-1)[1:]

    got = vmap(net)(Tensor(xs, dtype=np.float32))
    want = np.stack([net(Tensor(x, dtype=np.float32)).data for x in xs])
    np.testing.assert_allclose(got.data, want, rtol=1e-5, atol=1e-6)


def test_against_torch_func_vmap():
    torch = pytest.importorskip("torch")
    rng = _rng()
    x, w = rng.standard_normal((5, 3, 4)), rng.standard_normal((4, 2))

    def mine(x, w):
        return ((x @ w).tanh().sum(axis=0), x.max(axis=-1))

    def theirs(x, w):
        return ((x @ w).tanh().sum(0), x.amax(-1))

    got = vmap(mine, in_dims=(1, None), out_dims=(0, 1))(Tensor(x), Tensor(w))
    want = torch.func.vmap(theirs, in_dims=(1, None), out_dims=(0, 1))(
        torch.from_numpy(x), torch.from_numpy(w))
    for g, t in zip(got, want):
        np.testing.assert_allclose(g.data, t.numpy(), rtol=1e-12)

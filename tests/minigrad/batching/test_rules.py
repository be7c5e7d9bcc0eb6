"""The batching rules, one numpy call at a time: on a batch, each must give what the call
gives per example, stacked (the definition of a batching rule), with no fallback warning.
Operands mix batches and plain arrays, and logical ranks differ."""

from __future__ import annotations

import operator
import warnings

import numpy as np
import pytest

from minigrad.batching import BatchedArray, BatchingError, BatchingFallbackWarning

B = 3
RNG = np.random.default_rng(29)


def batch(*shape, level=1, dtype=float):
    """A batch of B examples of ``shape`` (its per-example arrays are ``.value[i]``)."""
    if dtype is int:
        return BatchedArray(RNG.integers(0, 3, (B,) + shape), level)
    return BatchedArray(RNG.standard_normal((B,) + shape), level)


def _pick(x, i):
    return x.value[i] if isinstance(x, BatchedArray) else x


def check(fn, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("error", BatchingFallbackWarning)
        got = fn(*args)
    picked = lambda i: [_pick(a, i) if not isinstance(a, (tuple, list)) else
                        type(a)(_pick(b, i) for b in a) for a in args]
    want = [fn(*picked(i)) for i in range(B)]
    if isinstance(got, (tuple, list)):
        for k, g in enumerate(got):
            np.testing.assert_allclose(g.value, np.stack([w[k] for w in want]), rtol=1e-13)
        return
    assert isinstance(got, BatchedArray)
    np.testing.assert_allclose(got.value, np.stack(want), rtol=1e-13)


@pytest.mark.parametrize("fn", [np.exp, np.tanh, np.negative, lambda x: x * 2 + 1,
                                lambda x: x > 0, np.sign])
def test_unary_ufuncs(fn):
    check(fn, batch(2, 3))


@pytest.mark.parametrize("shapes", [((2, 3), (2, 3)), ((3,), (2, 3)), ((2, 3), (3,)),
                                    ((), (2, 3)), ((2, 1), (1, 3))])
@pytest.mark.parametrize("which", ["both", "left", "right"])
def test_binary_ufuncs_broadcast_across_logical_ranks(shapes, which):
    a = batch(*shapes[0]) if which != "right" else RNG.standard_normal(shapes[0])
    b = batch(*shapes[1]) if which != "left" else RNG.standard_normal(shapes[1])
    for fn in (np.add, np.multiply, np.maximum, operator.truediv, np.power):
        check(lambda x, y, fn=fn: fn(np.abs(x) + 1, y), a, b)


@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 2)])
@pytest.mark.parametrize("fn", [np.sum, np.mean, np.max, np.min, np.prod, np.var, np.any,
                                np.argmax, np.cumsum])
def test_reductions_shift_their_axis(fn, axis):
    if fn in (np.argmax, np.cumsum) and isinstance(axis, tuple):
        return
    check(lambda x: fn(x, axis=axis), batch(2, 3, 4))


def test_reduction_methods_and_keepdims_and_ufunc_reduce():
    check(lambda x: x.sum(axis=1, keepdims=True), batch(2, 3))
    check(lambda x: np.maximum.reduce(x, axis=-1), batch(2, 3))
    check(lambda x: np.add.reduce(x, axis=None), batch(2, 3))


@pytest.mark.parametrize("shapes", [((2, 3), (3, 4)), ((3,), (3, 4)), ((2, 3), (3,)),
                                    ((3,), (3,)), ((5, 2, 3), (3, 4)), ((2, 3), (5, 3, 4))])
@pytest.mark.parametrize("which", ["both", "left", "right"])
def test_matmul_every_rank_and_side(shapes, which):
    a = batch(*shapes[0]) if which != "right" else RNG.standard_normal(shapes[0])
    b = batch(*shapes[1]) if which != "left" else RNG.standard_normal(shapes[1])
    check(lambda x, y: x @ y, a, b)


@pytest.mark.parametrize("fn", [
    lambda x: x.reshape(6, 4), lambda x: x.reshape(-1), lambda x: np.reshape(x, (4, -1)),
    lambda x: x.T, lambda x: x.transpose(2, 0, 1), lambda x: np.swapaxes(x, 0, 2),
    lambda x: np.moveaxis(x, 0, -1), lambda x: np.expand_dims(x, 1),
    lambda x: np.expand_dims(x, -1), lambda x: np.ravel(x), lambda x: x.flatten(),
    lambda x: np.broadcast_to(x[:, :1], (2, 3, 4)), lambda x: np.broadcast_to(x, (5, 2, 3, 4)),
    lambda x: np.pad(x, ((0, 1), (1, 0), (2, 2))), lambda x: np.split(x, 2, axis=2),
    lambda x: x.astype(np.float32), lambda x: np.flip(x, 0),
    lambda x: np.zeros_like(x), lambda x: np.ones_like(x, shape=(5,)),
    lambda x: np.take(x, [0, 2], axis=1), lambda x: np.take(x, [1, 5]),
    lambda x: np.argsort(x, axis=-1), lambda x: np.squeeze(x[:, :1]),
])
def test_shape_functions(fn):
    check(fn, batch(2, 3, 4))


def test_joining_batches_with_plain_arrays():
    a, b = batch(2, 3), RNG.standard_normal((2, 3))
    check(lambda x, y: np.concatenate([x, y], axis=1), a, b)
    check(lambda x, y: np.stack([x, y], axis=-1), a, b)
    check(lambda x, y: np.stack((y, x)), a, b)


def test_where_clip_take_along_axis():
    check(lambda c, x: np.where(c > 0, x, 0.0), batch(2, 3), batch(3))
    check(lambda x: np.clip(x, -0.5, 0.5), batch(2, 3))
    check(lambda x, lo: np.clip(x, lo, None), batch(2, 3), RNG.standard_normal(3))
    check(lambda x, i: np.take_along_axis(x, i, axis=1), batch(2, 3), batch(2, 1, dtype=int))
    check(lambda x, i: np.take_along_axis(x, i, axis=1), batch(2, 3),
          RNG.integers(0, 3, (2, 2)))


@pytest.mark.parametrize("index", [
    1, (slice(1, 3), -1), (Ellipsis, None, 2), np.array([0, 2, 0]),
    (np.array([0, 1]), np.array([2, 2])), (slice(None), np.array([2, 0, 2])),
    (np.array([0, 1]), slice(None), np.array([1, 1])),  # advanced indices apart
])
def test_indexing_with_plain_indices(index):
    check(lambda x: x[index], batch(3, 4, 5))


def test_unbuffered_add_with_advanced_indices_apart_runs_per_example():
    def scatter(v):
        out = np.zeros_like(v, shape=(2, 3, 4))
        np.add.at(out, (np.array([0, 1]), slice(None), np.array([1, 1])), v)
        return out

    v = batch(2, 3)
    with pytest.warns(BatchingFallbackWarning, match="np.add.at with this index"):
        got = scatter(v)
    np.testing.assert_allclose(got.value, np.stack([scatter(v.value[i]) for i in range(B)]))


def test_indexing_with_a_mask_and_with_batched_indices():
    x = batch(3, 4)
    mask = RNG.random((3, 4)) > 0.5
    check(lambda x: x[mask], x)
    rows = batch(5, dtype=int)
    check(lambda x, r: x[np.arange(5) % 3, r], x, rows)
    check(lambda x, r: x[r], x, rows)


def test_assignment_and_unbuffered_add_into_a_batch():
    def assign(x, v):
        y = x.copy()
        y[1:, 0] = v
        return y

    check(assign, batch(3, 4), batch(2))
    check(assign, batch(3, 4), 7.0)

    def scatter(v, i):
        out = np.zeros_like(v, shape=(4,))
        np.add.at(out, (i,), v)
        return out

    check(scatter, batch(5), RNG.integers(0, 4, 5))
    check(scatter, batch(5), batch(5, dtype=int))


def test_in_place_ufuncs_write_into_a_batch_and_refuse_a_plain_array():
    x = batch(2, 3)
    before = x.value.copy()
    x += 1.0
    np.testing.assert_allclose(x.value, before + 1)
    plain = np.zeros((2, 3))
    with pytest.raises(BatchingError, match="in-place add writes a batched value"):
        plain += batch(2, 3)


def test_nested_levels_compose():
    """An inner batch (level 2) whose value is an outer batch (level 1): a rule works at
    the inner level and its numpy calls recurse to the outer one."""
    outer = BatchedArray(RNG.standard_normal((2, B, 4, 3)), 1)  # 2 outer, 3 inner examples
    inner = BatchedArray(outer, 2)
    w = BatchedArray(RNG.standard_normal((2, 3, 5)), 1)  # batched at the outer level only
    out = inner @ w
    assert out.level == 2 and out.shape == (4, 5) and out.value.shape == (B, 4, 5)
    want = np.einsum("abij,ajk->abik", outer.value, w.value)
    np.testing.assert_allclose(out.value.value, want, rtol=1e-13)
    s = (inner * inner).sum(axis=-1)
    np.testing.assert_allclose(s.value.value, (outer.value ** 2).sum(-1), rtol=1e-13)

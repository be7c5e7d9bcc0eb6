"""``split``, ``chunk``, ``unbind``, ``topk`` and ``max``/``min(dim=)``: values against
numpy, values and gradients against PyTorch when it is installed, and clear errors."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
from minigrad import Tensor
from tests._helpers import leaf

RNG = np.random.default_rng(11)
X = RNG.permutation(24).reshape(4, 6).astype(np.float64) / 7.0  # no ties


def test_split_by_size_and_by_sections_match_numpy():
    x = leaf(X)
    pieces = x.split(4, dim=1)
    assert [p.shape for p in pieces] == [(4, 4), (4, 2)]
    for mine, ref in zip(pieces, np.split(X, [4], axis=1)):
        np.testing.assert_array_equal(mine.data, ref)
    pieces = mg.split(x, [1, 0, 3], dim=0)
    assert [p.shape for p in pieces] == [(1, 6), (0, 6), (3, 6)]


def test_chunk_gives_ceil_sized_pieces_like_pytorch():
    x = leaf(np.arange(6.0))
    assert [p.shape for p in x.chunk(4)] == [(2,), (2,), (2,)]
    assert [p.shape for p in mg.chunk(leaf(np.arange(5.0)), 3)] == [(2,), (2,), (1,)]


def test_unbind_removes_the_dim():
    x = leaf(X)
    rows = x.unbind(-1)
    assert len(rows) == 6 and rows[2].shape == (4,)
    np.testing.assert_array_equal(rows[2].data, X[:, 2])
    assert mg.unbind(leaf(np.arange(3.0)))[1].shape == ()


def test_max_with_dim_returns_values_and_indices_and_axis_keeps_values_only():
    x = leaf(X)
    values, indices = x.max(dim=1)
    np.testing.assert_array_equal(values.data, X.max(axis=1))
    np.testing.assert_array_equal(indices.data, X.argmax(axis=1))
    assert indices.data.dtype.kind == "i" and not indices.requires_grad
    assert x.max(dim=0, keepdim=True).values.shape == (1, 6)
    assert isinstance(x.max(axis=1), Tensor)  # numpy's form: unchanged
    assert isinstance(x.max(1), Tensor)
    r = x.min(dim=-1)
    np.testing.assert_array_equal(r.indices.data, X.argmin(axis=-1))


def test_max_dim_gives_a_tie_to_the_first_index():
    x = leaf([[1.0, 3.0, 3.0]])
    values, indices = x.max(dim=1)
    values.sum().backward()
    np.testing.assert_array_equal(x.grad, [[0.0, 1.0, 0.0]])
    assert int(indices.data[0]) == 1


def test_topk_values_are_sorted_and_indices_point_at_them():
    x = leaf(X)
    values, indices = x.topk(3)
    np.testing.assert_array_equal(values.data, -np.sort(-X, axis=-1)[:, :3])
    np.testing.assert_array_equal(np.take_along_axis(X, indices.data, -1), values.data)
    small = mg.topk(x, 2, dim=0, largest=False)
    np.testing.assert_array_equal(small.values.data, np.sort(X, axis=0)[:2])


@pytest.mark.parametrize("make, message", [
    (lambda x: x.split([2, 3]), "sections"),
    (lambda x: x.split(0), "split_size"),
    (lambda x: x.split(2, dim=3), "dim 3 is out of range"),
    (lambda x: x.chunk(0), "chunks must be >= 1"),
    (lambda x: x.unbind(-3), "dim -3 is out of range"),
    (lambda x: x.topk(7), "k=7 is out of range"),
    (lambda x: x.max(dim=2), "dim 2 is out of range"),
    (lambda x: x.max(axis=0, dim=1), "not both"),
])
def test_bad_arguments_are_clear_errors_naming_the_op_and_shape(make, message):
    with pytest.raises((ValueError, TypeError), match=message) as info:
        make(leaf(X))
    assert str(info.value).split(":")[0] in ("split", "chunk", "unbind", "topk", "max")


def test_max_over_an_empty_dim_is_an_error():
    with pytest.raises(ValueError, match="empty"):
        leaf(np.zeros((2, 0))).max(dim=1)


# --- PyTorch as an oracle -------------------------------------------------------------------
CASES = [
    ("split", lambda t: t.split(4, dim=1), lambda t: t.split(4, dim=1)),
    ("split sections", lambda t: t.split([1, 3], 0), lambda t: t.split([1, 3], 0)),
    ("chunk", lambda t: t.chunk(4, dim=1), lambda t: t.chunk(4, dim=1)),
    ("unbind", lambda t: t.unbind(1), lambda t: t.unbind(1)),
    ("max", lambda t: t.max(dim=1), lambda t: t.max(dim=1)),
    ("min keepdim", lambda t: t.min(dim=0, keepdim=True), lambda t: t.min(dim=0, keepdim=True)),
    ("topk", lambda t: t.topk(2), lambda t: t.topk(2)),
    ("topk smallest", lambda t: t.topk(3, dim=0, largest=False),
     lambda t: t.topk(3, dim=0, largest=False)),
]


@pytest.mark.parametrize("name, mine, theirs", CASES, ids=[c[0] for c in CASES])
def test_values_and_gradients_match_pytorch_with_one_output_unused(name, mine, theirs):
    torch = pytest.importorskip("torch")
    x, tx = leaf(X), torch.tensor(X, requires_grad=True)
    ours, ref = mine(x), theirs(tx)
    assert len(ours) == len(ref)
    total, ttotal = 0.0, 0.0
    rng = np.random.default_rng(3)
    for k, (o, r) in enumerate(zip(ours, ref)):
        np.testing.assert_array_equal(o.data, r.detach().numpy())
        if k == len(ours) - 1 and len(ours) > 2 or not r.is_floating_point():
            continue  # left unused: its gradient is zeros
        w = rng.standard_normal(o.shape)
        total = total + (o * w).sum()
        ttotal = ttotal + (r * torch.tensor(w)).sum()
    total.backward()
    ttotal.backward()
    np.testing.assert_allclose(x.grad, tx.grad.numpy(), rtol=1e-12, atol=1e-12)

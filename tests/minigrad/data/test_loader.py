"""minigrad.data.DataLoader: batch counts, order, shuffling by seed, drop_last, custom
datasets, errors."""

from __future__ import annotations

import numpy as np
import pytest

from minigrad.data import (
    DataLoader,
    load_digits,
    train_test_split,
)


def _epoch_ids(loader):
    return np.concatenate([batch[-1] for batch in loader])


@pytest.mark.parametrize(
    "n, bs, drop_last, expected",
    [(10, 3, False, 4), (10, 3, True, 3), (9, 3, False, 3), (9, 3, True, 3), (2, 5, True, 0)],
)
def test_loader_batch_counts(n, bs, drop_last, expected):
    X = np.zeros((n, 4), dtype=np.float32)
    y = np.arange(n)
    loader = DataLoader((X, y), batch_size=bs, drop_last=drop_last)
    batches = list(loader)
    assert len(loader) == len(batches) == expected
    sizes = [len(b[0]) for b in batches]
    assert all(s == bs for s in sizes[: n // bs])
    if not drop_last and n % bs:
        assert sizes[-1] == n % bs
    assert all(isinstance(b, tuple) and len(b) == 2 for b in batches)
    assert all(isinstance(a, np.ndarray) for b in batches for a in b)


def test_loader_no_shuffle_keeps_order_and_pairs():
    X = np.arange(20).reshape(10, 2)
    y = np.arange(10)
    loader = DataLoader((X, y), batch_size=4)
    assert np.array_equal(_epoch_ids(loader), y)
    for xb, yb in DataLoader((X, y), batch_size=3, shuffle=True, seed=0):
        assert np.array_equal(xb[:, 0] // 2, yb)


def test_loader_shuffle_each_sample_once_and_epochs_differ():
    y = np.arange(100)
    loader = DataLoader((y,), batch_size=16, shuffle=True, seed=5)
    e1, e2 = _epoch_ids(loader), _epoch_ids(loader)
    assert sorted(e1.tolist()) == list(range(100))
    assert sorted(e2.tolist()) == list(range(100))
    assert not np.array_equal(e1, y)
    assert not np.array_equal(e1, e2)


def test_loader_shuffle_deterministic_by_seed():
    y = np.arange(50)
    a = DataLoader((y,), batch_size=8, shuffle=True, seed=42)
    b = DataLoader((y,), batch_size=8, shuffle=True, seed=42)
    c = DataLoader((y,), batch_size=8, shuffle=True, seed=43)
    seq_a = [_epoch_ids(a) for _ in range(3)]
    seq_b = [_epoch_ids(b) for _ in range(3)]
    assert all(np.array_equal(p, q) for p, q in zip(seq_a, seq_b, strict=True))
    assert not np.array_equal(seq_a[0], _epoch_ids(c))


def test_loader_drop_last_shuffled_covers_distinct_samples():
    y = np.arange(10)
    ids = _epoch_ids(DataLoader((y,), batch_size=3, shuffle=True, drop_last=True, seed=0))
    assert len(ids) == 9 and len(set(ids.tolist())) == 9


def test_loader_custom_dataset_object():
    class Squares:
        def __len__(self):
            return 7

        def __getitem__(self, idx):
            idx = np.asarray(idx)
            return idx.astype(np.float32), idx**2

    batches = list(DataLoader(Squares(), batch_size=3))
    assert len(batches) == 3
    xb, yb = batches[0]
    assert np.array_equal(xb, [0, 1, 2]) and np.array_equal(yb, [0, 1, 4])

    class Single:
        def __len__(self):
            return 4

        def __getitem__(self, idx):
            return np.asarray(idx) * 10

    (only,) = next(iter(DataLoader(Single(), batch_size=4)))
    assert np.array_equal(only, [0, 10, 20, 30])


def test_loader_with_digits_and_split():
    X, y = load_digits()
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.25, seed=0)
    assert len(X_te) == 450 and len(X_tr) == 1347
    loader = DataLoader((X_tr, y_tr), batch_size=64, shuffle=True, seed=0)
    assert len(loader) == 22
    assert sum(len(yb) for _, yb in loader) == 1347


def test_loader_errors():
    with pytest.raises(ValueError, match=r"lengths \[3, 2\]"):
        DataLoader((np.zeros(3), np.zeros(2)))
    for bad in (0, -1, 2.5, True):
        with pytest.raises(ValueError, match="batch_size"):
            DataLoader((np.zeros(3),), batch_size=bad)
    with pytest.raises(TypeError):
        DataLoader(42)
    with pytest.raises(ValueError):
        DataLoader(())


def test_a_shuffling_loader_built_inside_vmap_follows_randomness():
    import minigrad
    from minigrad.batching import BatchingError
    from minigrad.batching.state import batching

    data = (np.arange(20),)
    with batching(10**9, "error", 3), pytest.raises(BatchingError, match="randomness='error'"):
        DataLoader(data, 5, shuffle=True)
    with batching(10**9, "different", 3), pytest.raises(BatchingError, match="one order"):
        DataLoader(data, 5, shuffle=True)
    with batching(10**9, "different", 3):  # (a seed, or no shuffling: nothing drawn)
        DataLoader(data, 5, shuffle=True, seed=1)
        DataLoader(data, 5)
    orders = []
    for _ in range(2):
        minigrad.manual_seed(4)
        with batching(10**9, "same", 3):
            orders.append(np.concatenate([b[0] for b in DataLoader(data, 5, shuffle=True)]))
    np.testing.assert_array_equal(orders[0], orders[1])
    assert sorted(orders[0]) == list(range(20))

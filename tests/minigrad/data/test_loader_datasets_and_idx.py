"""Regression tests for minigrad.data: DataLoader with PyTorch-style datasets
(lists of samples, per-index datasets) and corrupt gzip IDX files."""

from __future__ import annotations

import gzip
import struct

import numpy as np
import pytest

from minigrad.data import DataLoader, load_idx

# ------------------------------------------------------------ PyTorch-style datasets


def _torch_batches(dataset, batch_size):
    torch = pytest.importorskip("torch")
    from torch.utils.data import DataLoader as TorchLoader

    torch.manual_seed(0)
    return [tuple(t.numpy() for t in b) for b in TorchLoader(dataset, batch_size=batch_size)]


def _assert_same_batches(ours, theirs):
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert len(a) == len(b)
        for x, t in zip(a, b):
            assert x.shape == t.shape and x.dtype == t.dtype
            np.testing.assert_array_equal(x, t)


@pytest.mark.parametrize("x_shape", [(), (3,), (1, 2, 2)])
def test_loader_list_of_sample_tuples_matches_torch(x_shape):
    rng = np.random.default_rng(0)
    xs = rng.normal(size=(10, *x_shape)).astype(np.float32)
    ys = np.arange(10, dtype=np.int64)
    samples = list(zip(xs, ys))
    loader = DataLoader(samples, batch_size=4)
    assert len(loader) == 3
    _assert_same_batches(list(loader), _torch_batches(samples, 4))


def test_loader_python_number_samples_match_torch():
    samples = [(0.5 * i, i % 3) for i in range(7)]
    _assert_same_batches(list(DataLoader(samples, batch_size=3)), _torch_batches(samples, 3))


class _PerIndex:
    """A PyTorch-style map dataset: ``__getitem__`` takes one int."""

    def __init__(self, n=10):
        rng = np.random.default_rng(1)
        self.items = [(rng.normal(size=3).astype(np.float32), i % 4) for i in range(n)]
        self.calls = 0

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        self.calls += 1
        return self.items[i]


def test_loader_per_index_dataset_matches_torch():
    ours = list(DataLoader(_PerIndex(), batch_size=4))
    _assert_same_batches(ours, _torch_batches(_PerIndex(), 4))


def test_loader_per_sample_shuffle_and_drop_last_cover_each_sample_once():
    samples = [(np.full(2, i, np.float32), i) for i in range(10)]
    loader = DataLoader(samples, batch_size=3, shuffle=True, drop_last=True, seed=0)
    ids = np.concatenate([yb for _, yb in loader])
    assert len(loader) == 3 and len(ids) == 9 and len(set(ids.tolist())) == 9
    xb, yb = next(iter(DataLoader(samples, batch_size=3, shuffle=True, seed=0)))
    np.testing.assert_array_equal(xb[:, 0], yb)  # fields stay paired
    ds = _PerIndex()
    per_index = DataLoader(ds, batch_size=4)
    list(per_index)
    assert ds.calls == 1 + 10  # one failed whole-batch call, then one call per sample
    list(per_index)
    assert ds.calls == 11 + 10  # the loader remembers: no more whole-batch attempts


def test_loader_samples_of_different_shapes_give_a_clear_error():
    samples = [(np.zeros(3), 0), (np.zeros(2), 1)]
    with pytest.raises(ValueError, match=r"cannot stack field 0 .* shapes \[\(2,\), \(3,\)\]"):
        list(DataLoader(samples, batch_size=2))


def test_loader_tuple_of_arrays_is_unchanged():
    X, y = np.arange(12).reshape(6, 2), np.arange(6)
    batches = list(DataLoader((X, y), batch_size=4))
    assert len(batches) == 2 and batches[0][0].shape == (4, 2)
    (col,) = next(iter(DataLoader([np.arange(5)], batch_size=5)))  # list of one array
    np.testing.assert_array_equal(col, np.arange(5))


# ------------------------------------------------------------ corrupt gzip IDX


def test_corrupt_gzip_idx_names_the_file(tmp_path):
    data = struct.pack(">HBBI", 0, 0x08, 1, 1000) + bytes(1000)
    path = tmp_path / "train-labels-idx1-ubyte.gz"
    path.write_bytes(gzip.compress(data)[:-30])  # cut-off download
    with pytest.raises(ValueError, match=r"train-labels-idx1-ubyte\.gz: corrupt or truncated gzip"):
        load_idx(path)
    path.write_bytes(b"\x1f\x8b" + b"garbage" * 10)  # gzip magic, nonsense after
    with pytest.raises(ValueError, match="corrupt or truncated gzip"):
        load_idx(path)

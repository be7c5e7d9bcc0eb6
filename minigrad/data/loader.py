"""Mini-batch iteration over numpy data.

Batches are plain numpy arrays: the training loop decides when to wrap them in
Tensors, which keeps this module independent of the autograd engine.

Shuffling uses one ``np.random.default_rng(seed)`` generator created with the
loader and kept across epochs. Each epoch therefore gets a fresh order (a model
that sees the same order every epoch can learn it), while two loaders built with
the same seed still produce exactly the same sequence of epochs, so a training
run can be reproduced. With no seed, a shuffling loader splits its generator off
minigrad's default one when it is built, so ``minigrad.manual_seed`` repeats it too.
Built inside ``vmap`` that split is a random draw like any other: refused under
``randomness="error"``, shared under ``"same"``, and refused under ``"different"``
(one loader yields one order of plain index batches; it cannot hold a different
order per example: build one loader per example outside, or pass ``seed=``).
"""

from __future__ import annotations

import numbers

import numpy as np

from ..batching import BatchingError
from ..batching.state import draws_per_example
from ..random import get_rng

__all__ = ["DataLoader"]


class DataLoader:
    """Iterate over ``dataset`` in mini-batches.

    ``dataset`` is one of

    * a tuple (or list) of equal-length arrays such as ``(X, y)``: the fast path,
      one fancy-indexing per array and batch;
    * a list of sample tuples such as ``list(zip(xs, ys))``, the shape of a
      small PyTorch dataset;
    * any object with ``__len__`` and ``__getitem__``.  It is first asked for a
      whole batch with an integer index array (returning one array or a tuple of
      arrays); if that raises, as a PyTorch-style ``__getitem__`` that takes one
      ``int`` does, samples are fetched one at a time from then on.

    Samples fetched one at a time are collated like PyTorch's default: each
    field is stacked with ``np.stack``, so ``xb`` has shape ``(batch, *x.shape)``.
    Each iteration over the loader is one epoch and yields tuples of numpy
    arrays, one per field, e.g. ``for xb, yb in loader``.

    ``len(loader)`` is the number of batches per epoch. With ``drop_last=True``
    a final batch smaller than ``batch_size`` is skipped, which helps when code
    (or batch statistics) assumes a fixed batch size.
    """

    def __init__(
        self,
        dataset,
        batch_size: int = 32,
        shuffle: bool = False,
        drop_last: bool = False,
        seed: int | None = None,
    ):
        if (
            isinstance(batch_size, bool)
            or not isinstance(batch_size, numbers.Integral)
            or batch_size < 1
        ):
            raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}")

        # A list whose items are all tuples is a list of samples, not of arrays.
        self._per_item = (
            isinstance(dataset, list)
            and bool(dataset)
            and all(isinstance(s, tuple) for s in dataset)
        )
        if self._per_item:
            self._arrays = None
            self._n = len(dataset)
        elif isinstance(dataset, (tuple, list)):
            if not dataset:
                raise ValueError("dataset tuple must contain at least one array")
            arrays = tuple(np.asarray(a) for a in dataset)
            if any(a.ndim == 0 for a in arrays):
                raise ValueError("dataset arrays must have at least one dimension")
            lengths = [len(a) for a in arrays]
            if len(set(lengths)) != 1:
                raise ValueError(f"dataset arrays must have the same length, got lengths {lengths}")
            self._arrays = arrays
            self._n = lengths[0]
        elif hasattr(dataset, "__len__") and hasattr(dataset, "__getitem__"):
            self._arrays = None
            self._n = len(dataset)
        else:
            raise TypeError(
                "dataset must be a tuple of arrays, a list of sample tuples or an object "
                f"with __len__ and __getitem__, got {type(dataset).__name__}"
            )

        self.dataset = dataset
        self.batch_size = int(batch_size)
        self.shuffle = bool(shuffle)
        self.drop_last = bool(drop_last)
        self.seed = seed
        if seed is None and self.shuffle:  # (a loader that never shuffles draws nothing)
            if draws_per_example():
                raise BatchingError(
                    "vmap: DataLoader(shuffle=True) built with randomness='different' would "
                    "need a different order per example, but one loader yields one order. "
                    "Build one loader per example outside the vmapped function, pass "
                    "seed=, or use randomness='same'")
            seed = int(get_rng().integers(2**63 - 1))  # (vmap "error": refused there)
        self._rng = np.random.default_rng(seed)

    def __len__(self) -> int:
        if self.drop_last:
            return self._n // self.batch_size
        return -(-self._n // self.batch_size)  # ceiling division

    def _fetch(self, idx: np.ndarray) -> tuple[np.ndarray, ...]:
        if self._arrays is not None:
            return tuple(a[idx] for a in self._arrays)
        if not self._per_item:
            try:
                item = self.dataset[idx]
            except (TypeError, IndexError, KeyError, ValueError):
                # Most likely a __getitem__ written for one int index; if it is a
                # real bug, the per-item call below raises it again, unmasked.
                self._per_item = True
            else:
                if isinstance(item, (tuple, list)):
                    return tuple(np.asarray(a) for a in item)
                return (np.asarray(item),)
        return _collate([self.dataset[int(i)] for i in idx])

    def __iter__(self):
        # The permutation is drawn when iteration starts, so an epoch's order is
        # fixed even if the loop over it is abandoned part way.
        order = self._rng.permutation(self._n) if self.shuffle else np.arange(self._n)
        for b in range(len(self)):
            yield self._fetch(order[b * self.batch_size : (b + 1) * self.batch_size])

    def __repr__(self) -> str:
        return (
            f"DataLoader(n={self._n}, batch_size={self.batch_size}, shuffle={self.shuffle}, "
            f"drop_last={self.drop_last}, seed={self.seed})"
        )


def _collate(samples: list) -> tuple[np.ndarray, ...]:
    """Stack samples field by field (PyTorch's default collate, for numpy)."""
    first = samples[0]
    fields = list(zip(*samples)) if isinstance(first, (tuple, list)) else [samples]
    if isinstance(first, (tuple, list)) and any(len(s) != len(first) for s in samples):
        counts = sorted({len(s) for s in samples})
        raise ValueError(f"cannot collate a batch: samples have {counts} fields")
    out = []
    for k, field in enumerate(fields):
        arrays = [np.asarray(v) for v in field]
        shapes = sorted({a.shape for a in arrays})
        if len(shapes) > 1:
            raise ValueError(f"cannot stack field {k} of a batch: samples have shapes {shapes}")
        out.append(np.stack(arrays))
    return tuple(out)

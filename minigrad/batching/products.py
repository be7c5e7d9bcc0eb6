"""Products a batch makes differently from one example: the batching rules' shortcuts.

Two numpy calls are correct on a batch as the rules write them but run far below
what the machine can do, and they are the bulk of a per-example gradient:

* **outer products.**  A matmul's weight gradient for one example is ``g ⊗ x``
  (``g[:, None] * x``); for a batch the rule pads and broadcasts,
  ``(B, n, 1) * (B, 1, k)``, and numpy's broadcasting loop runs about half as fast
  as ``einsum("bn,bk->bnk")`` writing the same ``B·n·k`` products (no sum: each
  entry is one product, the same number either way).  ``outer_product`` spots a
  multiply whose result is much larger than both operands and hands it to einsum.
* **a matrix times a batch of vectors.**  ``W @ x`` with ``W`` shared and ``x`` a
  batch of vectors is, padded, ``(n, k) @ (B, k, 1)``: numpy's matmul loops over the
  batch, ``B`` matrix-vector products each reading all of ``W``.  As one product of
  matrices, ``X @ Wᵀ`` with the examples as rows, it is one BLAS call (the same sums,
  perhaps added in another order: equal to rounding).  Likewise ``x @ W`` for a batch
  of row vectors ``x``.

Each returns None when its case does not apply; the rule then runs as written.  The
tests (``tests/minigrad/batching/test_products.py``) check each against the plain
rule's result.
"""

from __future__ import annotations

import numpy as np

from .array import BatchedArray

__all__ = ["outer_product", "matrix_times_batch"]

#: below this many result elements, broadcasting is as quick as anything (einsum's set-up
#: would cost more than it saves)
MIN_OUTER = 1 << 15
_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def outer_product(a, b):
    """``a * b`` (physical arrays, padded to one rank) by ``einsum`` when broadcasting
    makes an outer product of them: every axis of the result is kept by at least one
    operand, so each operand's size-1 axes are dropped and einsum labels the rest."""
    if type(a) is not np.ndarray or type(b) is not np.ndarray or a.ndim != b.ndim \
            or a.dtype != b.dtype or a.dtype.kind != "f" or a.ndim > len(_LETTERS):
        return None
    try:
        shape = np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        return None  # (numpy's own call will name the mismatch)
    size = int(np.prod(shape))
    if size < MIN_OUTER or size < 4 * max(a.size, b.size):
        return None  # (not an outer product: plain broadcasting is as fast)
    labels = _LETTERS[:len(shape)]
    (pa, la), (pb, lb) = _labelled(a, shape, labels), _labelled(b, shape, labels)
    return np.einsum(f"{la},{lb}->{labels}", pa, pb)


def _labelled(x, shape, labels):
    """``x`` without the axes it broadcasts along (size 1 where the result is larger),
    and the labels of the axes it keeps."""
    keep = [i for i, (n, m) in enumerate(zip(x.shape, shape)) if n == m]
    return x.reshape([x.shape[i] for i in keep]), "".join(labels[i] for i in keep)


def matrix_times_batch(a, b, level):
    """``a @ b`` with one side a shared 2-D matrix and the other a batch of vectors (at
    ``level``), as one matrix product: ``W @ x`` is ``X @ Wᵀ`` and ``x @ W`` is ``X @ W``
    with the batch's vectors as the rows of ``X``."""
    if _vectors(b, level) and _matrix(a):
        return BatchedArray(np.matmul(b.value, a.T), level)
    if _vectors(a, level) and _matrix(b):
        return BatchedArray(np.matmul(a.value, b), level)
    return None


def _vectors(x, level) -> bool:
    return (isinstance(x, BatchedArray) and x.level == level and x.ndim == 1
            and type(x.value) is np.ndarray)


def _matrix(x) -> bool:
    return type(x) is np.ndarray and x.ndim == 2

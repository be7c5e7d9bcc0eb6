"""Reference solution for exercise 28 (a batching rule for the outer product)."""

import numpy as np  # noqa: F401

from minigrad.batching import BatchedArray, level_of

__all__ = ["outer_batch"]


def outer_batch(u, v):
    """``(out, saved)``: the outer product of a batch of ``u`` and ``v`` (either may be
    unbatched), ``out`` a ``BatchedArray`` of shape ``(n, m)`` per example."""
    level = level_of(u, v)

    def physical(x):  # (B, k): this level's batch in front, or one row to broadcast
        if isinstance(x, BatchedArray) and x.level == level:
            return x.value
        return x[None]

    out = physical(u)[:, :, None] * physical(v)[:, None, :]
    return BatchedArray(out, level), (u, v)

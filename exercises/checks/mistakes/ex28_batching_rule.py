"""Wrong answers that ``checks/ex28_batching_rule.py`` must reject (lesson 16)."""

from __future__ import annotations

import numpy as np

from minigrad.batching import BatchedArray, level_of

from ._registry import mistake


def _physical(x, level):
    return x.value if isinstance(x, BatchedArray) and x.level == level else x[None]


@mistake("ex28", "outer_batch", "assumes every input is batched", "plain numpy array")
def _both_batched(u, v):
    return BatchedArray(u.value[:, :, None] * v.value[:, None, :], u.level), (u, v)


@mistake("ex28", "outer_batch", "returns the physical array, not a batch", "BatchedArray(value")
def _unwrapped(u, v):
    level = level_of(u, v)
    return _physical(u, level)[:, :, None] * _physical(v, level)[:, None, :], (u, v)


@mistake("ex28", "outer_batch", "puts v's axis before u's", "the batch axis first")
def _transposed(u, v):
    level = level_of(u, v)
    return BatchedArray(_physical(u, level)[:, None, :] * _physical(v, level)[:, :, None],
                        level), (u, v)


@mistake("ex28", "outer_batch", "the outer product of the whole batches", "every other one")
def _cross(u, v):
    level = level_of(u, v)
    return BatchedArray(np.multiply.outer(_physical(u, level), _physical(v, level)),
                        level), (u, v)


@mistake("ex28", "outer_batch", "saves the physical arrays", "as given")
def _saves_values(u, v):
    level = level_of(u, v)
    pu, pv = _physical(u, level), _physical(v, level)
    return BatchedArray(pu[:, :, None] * pv[:, None, :], level), (pu, pv)


@mistake("ex28", "outer_batch", "works at the first batched input's level", "highest level")
def _first_level(u, v):
    level = next(x.level for x in (u, v) if isinstance(x, BatchedArray))
    return BatchedArray(_physical(u, level)[:, :, None] * _physical(v, level)[:, None, :],
                        level), (u, v)

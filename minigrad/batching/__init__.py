"""Batching: arrays that stand for a batch of examples, the ground ``vmap`` runs on.

Read ``array.py`` first (the batched array and how numpy's calls reach it), then
``rules.py`` (the batching rules, by numpy function) and ``fallback.py`` (the
per-example loop for what has no rule).  This package imports numpy only: the
engines and the op table below ``minigrad.func`` recognise a batch without knowing
about ``vmap``.
"""

from . import rules  # noqa: F401  (fills in the batching rules: array.PROTOCOL)
from .array import BatchedArray, level_of, move_batch
from .errors import BatchingError, BatchingFallbackWarning
from .fallback import per_example

__all__ = ["BatchedArray", "BatchingError", "BatchingFallbackWarning", "level_of",
           "move_batch", "per_example"]

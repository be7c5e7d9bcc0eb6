"""The errors and the warning ``vmap`` gives: what went wrong, in the user's terms."""

from __future__ import annotations

from ..core.standin import StandInRefused

__all__ = ["BatchingError", "BatchedAttributeError", "BatchingFallbackWarning"]


class BatchingError(StandInRefused):
    """Something cannot be batched: Python control flow on a batch, reading one of its
    values, writing a batch into an unbatched array, a random op under
    ``randomness="error"``."""


class BatchedAttributeError(BatchingError, AttributeError):
    """An ndarray attribute a batch does not have (``strides``: a batch is not one block of
    memory).  An ``AttributeError`` too, so ``getattr(x, name, default)`` still works."""


class BatchingFallbackWarning(UserWarning):
    """An op or numpy function has no batching rule: it ran once per example (correct, but
    a Python loop: slower).  The message names it."""

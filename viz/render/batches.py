"""A value inside ``vmap``, as every renderer shows it: one example's shape and the batch.

Inside ``minigrad.func.vmap(f)`` a tensor's data is a ``minigrad.batching.BatchedArray``:
its ``shape`` is the *logical* one, one example's, and its ``value`` holds the whole
batch with the batch axis in front, the *physical* array (nested vmaps: a batch of
batches, outermost first).  A drawing of such a node must say both, and never turn
the batch into one plain array (``np.asarray`` of a batch is refused by design, so
that code written for one example cannot mix examples up): the values shown are
those of one example, read from the physical array.

``(3,) per example · batch of 5 → (5, 3)``: what a card, the text tree and the
stepper's panel write (``shape_text``).
"""

from __future__ import annotations

import numpy as np

from minigrad.batching import BatchedArray

from .numbers import format_shape

__all__ = ["is_batched", "batch_sizes", "physical", "logical_shape", "shape_of", "example",
           "batch_text", "shape_text", "EXAMPLE"]

#: the example whose values a drawing shows (the first one, at every vmap level)
EXAMPLE = 0


def is_batched(x) -> bool:
    """Whether ``x`` stands for a batch of arrays (a vmap's value)."""
    return isinstance(x, BatchedArray)


def batch_sizes(x) -> tuple[int, ...]:
    """The batch sizes of ``x``'s vmaps, outermost first (``()``: not batched)."""
    sizes = []
    while isinstance(x, BatchedArray):
        sizes.append(x.batch_size)
        x = x.value
    return tuple(reversed(sizes))


def physical(x) -> np.ndarray:
    """The plain array behind a batch: every vmap's batch axis in front, outermost first,
    then one example's axes (``BatchedArray.every_example``).  For reading values, not for
    math."""
    return x.every_example() if isinstance(x, BatchedArray) else np.asarray(x)


def logical_shape(x) -> tuple:
    """One example's shape (a batch's own ``shape``; a plain array's shape)."""
    return tuple(x.shape) if hasattr(x, "shape") else np.shape(x)


def shape_of(x) -> tuple:
    """``np.shape(x)`` that never asks a batch for a plain array: its logical shape."""
    return tuple(x.shape) if isinstance(x, BatchedArray) else np.shape(x)


def example(x, k: int = EXAMPLE) -> np.ndarray:
    """Example ``k`` of a batch (the ``k``-th along every batch axis), as a plain array."""
    levels = len(batch_sizes(x))
    return physical(x)[(k,) * levels] if levels else np.asarray(x)


def batch_text(x) -> str:
    """``batch of 5 → (5, 3)``, or ``batches 2 × 5 → (2, 5, 3)`` for nested vmaps."""
    sizes = batch_sizes(x)
    what = (f"batch of {sizes[0]}" if len(sizes) == 1 else
            "batches " + " × ".join(map(str, sizes)))
    return f"{what} → {format_shape(physical(x).shape)}"


def shape_text(x) -> str:
    """``(3,) per example · batch of 5 → (5, 3)``: the logical and the physical shape."""
    return f"{format_shape(x.shape)} per example · {batch_text(x)}"

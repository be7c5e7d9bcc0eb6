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

Which example: the first by default; ``example=k`` (``viz.draw``, ``viz.text``,
``viz.step_through``: a ``DisplayOptions`` field) shows example ``k``, and the cards and
the panel say so, ``example 2 of 5``.  Under nested vmaps an int picks along the
outermost batch (the inner ones show their first), a tuple gives one index per vmap,
outermost first: ``example=(1, 2)`` reads ``example (1, 2) of 4 × 5``.  A graph's vmaps
are told apart by their levels (``minigrad.batching``: a vmap's level is the first node
id of its run, so an inner vmap has the higher level); ``choose_example`` checks the
indices against the batches the graph holds (``Examples``).
"""

from __future__ import annotations

import numpy as np

from minigrad.batching import BatchedArray
from minigrad.batching.array import batch_levels

from .numbers import format_shape

__all__ = ["is_batched", "batch_sizes", "physical", "logical_shape", "shape_of", "example",
           "batch_text", "shape_text", "EXAMPLE", "Examples", "FIRST", "choose_example",
           "check_example"]

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


class Examples:
    """Which example of each vmap's batch a picture shows: ``index[level]``, 0 for a level
    not listed (``choose_example`` makes one; ``FIRST`` shows example 0 everywhere)."""

    __slots__ = ("index",)

    def __init__(self, index: dict | None = None):
        self.index = dict(index or {})

    def picks(self, x) -> tuple[int, ...]:
        """The index along each of ``x``'s batch axes, outermost first (``()``: no batch)."""
        return tuple(self.index.get(level, 0) for level in batch_levels(x))

    def of(self, x) -> np.ndarray:
        """The example shown of ``x``, as a plain array (``x`` itself when not batched)."""
        picks = self.picks(x)
        return physical(x)[picks] if picks else np.asarray(x)

    def short(self, x) -> str:
        """``example 2``, or ``example (1, 2)`` under nested vmaps."""
        picks = self.picks(x)
        return f"example {picks[0] if len(picks) == 1 else picks}"

    def word(self, x) -> str:
        """``example 2 of 5``, or ``example (1, 2) of 4 × 5``: which one, of how many."""
        sizes = batch_sizes(x)
        return f"{self.short(x)} of {' × '.join(map(str, sizes))}"

    def __repr__(self) -> str:
        return f"Examples({self.index})"


#: example 0 of every batch (what a picture shows unless ``example=`` says otherwise)
FIRST = Examples()


def check_example(where: str, example) -> None:
    """Refuse an ``example=`` that is no index before any graph is read: ``None``, an int
    >= 0, or a non-empty tuple (or list) of them."""
    if example is None:
        return
    items = example if isinstance(example, (tuple, list)) else (example,)
    if not items or not all(isinstance(k, (int, np.integer)) and not isinstance(k, bool)
                            for k in items):
        raise TypeError(f"{where}: example picks which example of a vmap's batch is shown: "
                        f"an int, or a tuple of ints (one per nested vmap, outermost first); "
                        f"got {example!r}")
    if any(k < 0 for k in items):
        raise ValueError(f"{where}: example={example!r}: indices count from 0 (the first "
                         f"example); a negative one is not taken")


def choose_example(values, example, where: str = "viz") -> Examples:
    """The ``Examples`` a picture of ``values`` (every node's data and gradient) shows for
    ``example=`` (see the module doc), checked against the batches among them.

    A vmap's depth is where its level stands among a value's batch axes (0: outermost);
    an int is ``(k,)``, and a level deeper than the indices given shows its example 0."""
    if example is None:
        return FIRST
    check_example(where, example)
    sizes, depth = {}, {}
    for x in values:
        if isinstance(x, BatchedArray):
            for d, (level, size) in enumerate(zip(batch_levels(x), batch_sizes(x))):
                sizes[level] = size
                depth[level] = max(depth.get(level, 0), d)
    if not sizes:
        raise ValueError(f"{where}: example={example!r} picks one example of a vmap's batch, "
                         f"but no value of this graph is batched (none was computed inside "
                         f"minigrad.func.vmap); leave example= out")
    wanted = tuple(int(k) for k in (example if isinstance(example, (tuple, list))
                                    else (example,)))
    deep = max(depth.values()) + 1
    if len(wanted) > deep:
        raise ValueError(f"{where}: example={example!r} gives {len(wanted)} indices, one per "
                         f"nested vmap, but this graph's vmaps nest {deep} deep")
    index = {}
    for level in sorted(sizes):
        d = depth[level]
        k = wanted[d] if d < len(wanted) else 0
        if k >= sizes[level]:
            which = "" if deep == 1 else f" (index {d}: the {_nth(d, deep)} vmap)"
            raise IndexError(f"{where}: example={example!r} is out of range{which}: that batch "
                             f"has {sizes[level]} examples, numbered 0 to {sizes[level] - 1}")
        index[level] = k
    return Examples(index)


def _nth(d: int, deep: int) -> str:
    return ("outermost" if d == 0 else "innermost" if d == deep - 1
            else f"number {d + 1} from the outside")

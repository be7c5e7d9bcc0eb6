"""Random numbers inside ``vmap``: one draw per example, at every ``"different"`` level.

A function written for one example asks for numbers of one example's ``shape``.
Under ``vmap(..., randomness="different")`` each example must get its own, so
the draw is made once for the whole batch, ``(B,) + shape``, and handed back as
a ``BatchedArray`` of that vmap's level: one call to the generator, and the
function still sees ``shape``.  With nested vmaps every ``"different"`` level
adds its axis, outermost first, ``(B_outer, B_inner) + shape``, wrapped inner
around outer (as ``vmap`` nests its inputs); a ``"same"`` level adds none, so the
numbers repeat along its batch (broadcast for free when they meet a batched
operand).  The numbers come from the caller's generator in one call, so
``minigrad.manual_seed`` repeats them.

``chunk_size`` runs a vmap in pieces.  Under ``"same"`` each piece must see the
same numbers, so (as ``torch.func.vmap`` does with its generator) the generators
drawn from in the first piece are rewound to where they started before each later
piece (``same_draws_per_chunk``).  Under ``"different"`` each piece simply draws
its own.
"""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np

from .array import BatchedArray
from .errors import BatchingError
from .state import check_random_draw, different_levels

__all__ = ["draw_per_example", "levels_of", "check_fill", "note_generator",
           "same_draws_per_chunk"]


def draw_per_example(sample, shape, levels=None):
    """``sample(sizes + shape)``, a plain array, wrapped as a batch of each ``"different"``
    vmap's level in ``levels`` (default: the running ones, ``state.different_levels``).

    ``sample`` takes the full physical shape and returns a numpy array of it; with no
    ``"different"`` vmap running this is just ``sample(shape)``.
    """
    levels = different_levels() if levels is None else levels
    shape = tuple(shape)
    value = sample(tuple(size for _, size in levels) + shape)
    for level, _ in levels:  # (the outermost wraps the array itself, the innermost is outside)
        value = BatchedArray(value, level)
    return value


def levels_of(x) -> set[int]:
    """The vmap levels ``x`` is batched at (empty for a plain array)."""
    found = set()
    while isinstance(x, BatchedArray):
        found.add(x.level)
        x = x.value
    return found


def check_fill(what: str, target) -> None:
    """Refuse to fill an array in place with per-example numbers it has no room for.

    Under ``"different"`` every example draws its own numbers, but an in-place fill of
    an array that is not batched at that vmap's level would have to store a batch in
    one array (``torch.func.vmap`` refuses this too: it would look like ``"same"``).
    """
    check_random_draw(what)
    missing = [level for level, _ in different_levels() if level not in levels_of(target)]
    if missing:
        raise BatchingError(
            f"vmap: {what} fills an array in place with randomness='different', but the "
            f"array (shape {tuple(getattr(target, 'shape', ()))}) "
            f"is the same for every example of that vmap, so it cannot hold one draw per "
            f"example. Use the out-of-place version (it returns a batch), make the array "
            f"inside the vmapped function from a mapped input, or use randomness='same'")


# --- chunk_size under "same": every chunk sees the numbers the first one saw -----------------
_TAPES: list[dict] = []


def note_generator(rng: np.random.Generator) -> None:
    """Remember ``rng``'s state before its first draw in each running same-draws tape."""
    for tape in _TAPES:
        if id(rng) not in tape:
            tape[id(rng)] = (rng, rng.bit_generator.state)


class _Rewind:
    def __init__(self, tape):
        self.tape = tape

    def __call__(self):
        """Put every generator drawn from since the start back where it was."""
        for rng, state in self.tape.values():
            rng.bit_generator.state = state


@contextmanager
def same_draws_per_chunk(active: bool):
    """Yield a ``rewind()`` to call before each chunk after the first (a no-op unless
    ``active``: a chunked vmap with ``randomness="same"``)."""
    if not active:
        yield lambda: None
        return
    tape: dict = {}
    _TAPES.append(tape)
    try:
        yield _Rewind(tape)
    finally:
        _TAPES.remove(tape)


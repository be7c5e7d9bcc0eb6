"""Which vmaps are running, and what each says about random numbers.

``randomness`` is ``torch.func.vmap``'s, one mode per vmap:

* ``"error"`` (the default): a random draw inside the function is an error (should
  each example get its own numbers or share them?);
* ``"same"``: one draw, shared by every example of that vmap;
* ``"different"``: each example of that vmap draws its own.

Nested vmaps each apply their own mode to their own batch axis: inside
``vmap(vmap(f, randomness="different"), randomness="same")`` a draw differs along
the inner batch and repeats along the outer one; an ``"error"`` at any level
refuses.  So a draw of one example's ``shape`` is really a draw of
``sizes + shape``, ``sizes`` the batch sizes of the ``"different"`` vmaps
(``different_levels``), outermost first (``batching.randomness`` makes the batch).
The default generator (``minigrad.random``) asks ``check_random_draw`` before it
hands itself out; with no vmap running that is one check of an empty list.
"""

from __future__ import annotations

from contextlib import contextmanager

from .errors import BatchingError

__all__ = ["batching", "check_random_draw", "different_levels", "draws_per_example",
           "RUNNING", "ACTIVE"]

#: the randomness mode of each running vmap, outermost first
RUNNING: list[str] = []
#: ``(level, batch size)`` of each running vmap, outermost first (beside ``RUNNING``)
FRAMES: list[tuple[int, int]] = []
#: the levels of the running vmaps
ACTIVE: set[int] = set()


@contextmanager
def batching(level: int, randomness: str, size: int = 0):
    """One vmap's run (``size`` examples): its level is active and its randomness mode in
    force."""
    RUNNING.append(randomness)
    FRAMES.append((level, size))
    ACTIVE.add(level)
    try:
        yield
    finally:
        RUNNING.pop()
        FRAMES.pop()
        ACTIVE.discard(level)


def check_random_draw(what: str) -> None:
    """Refuse a random draw if any running vmap says ``randomness="error"``.

    (``"same"`` and ``"different"`` are always possible for a fresh draw: the caller
    draws through ``batching.randomness.draw_per_example``.)"""
    for mode in RUNNING:
        if mode == "error":
            raise BatchingError(
                f"vmap: {what} draws random numbers inside a vmapped function with "
                f"randomness='error'. Say what you want: randomness='same' (one draw "
                f"shared by every example), randomness='different' (each example its "
                f"own), or draw outside and pass the numbers in")


def different_levels() -> list[tuple[int, int]]:
    """``(level, batch size)`` of each running vmap with ``randomness="different"``,
    outermost first: the batch axes a draw must have."""
    return [frame for frame, mode in zip(FRAMES, RUNNING) if mode == "different"]


def draws_per_example() -> bool:
    """Whether any running vmap wants each of its examples to draw its own numbers."""
    return "different" in RUNNING

"""Which vmaps are running, and what each says about random numbers.

``randomness`` is ``torch.func.vmap``'s: ``"error"`` (a random draw inside the
function is an error: should each example get its own numbers or share them?),
``"same"`` (one draw, shared by every example) or ``"different"``.  The default
generator (``minigrad.random``) asks ``check_random_draw`` before it hands
itself out; with no vmap running that is one check of an empty list.
"""

from __future__ import annotations

from contextlib import contextmanager

from .errors import BatchingError

__all__ = ["batching", "check_random_draw", "draws_per_example", "RUNNING", "ACTIVE"]

#: the randomness mode of each running vmap, outermost first
RUNNING: list[str] = []
#: the levels of the running vmaps
ACTIVE: set[int] = set()


@contextmanager
def batching(level: int, randomness: str):
    """One vmap's run: its level is active and its randomness mode in force."""
    RUNNING.append(randomness)
    ACTIVE.add(level)
    try:
        yield
    finally:
        RUNNING.pop()
        ACTIVE.discard(level)


def check_random_draw(what: str, per_example: bool = False) -> None:
    """Refuse a random draw under ``randomness="error"``, and under ``"different"``
    unless the caller draws a batch of numbers itself (``per_example``: dropout does;
    the generators behind ``randn`` cannot yet); ``"same"`` shares one draw."""
    for mode in RUNNING:
        if mode == "error":
            raise BatchingError(
                f"vmap: {what} draws random numbers inside a vmapped function with "
                f"randomness='error'. Say what you want: randomness='same' (one draw "
                f"shared by every example) or draw outside and pass the numbers in")
        if mode == "different" and not per_example:
            raise BatchingError(
                f"vmap: {what} under randomness='different': minigrad cannot draw a "
                f"batch of independent numbers yet; draw them outside the function "
                f"(one row per example) and map over them, or use randomness='same'")



def draws_per_example() -> bool:
    """Whether the innermost running vmap wants each example's own random numbers."""
    return bool(RUNNING) and RUNNING[-1] == "different"

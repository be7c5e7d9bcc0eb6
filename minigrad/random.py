"""minigrad's one default random generator, and how a caller picks a generator.

Everything that draws random numbers when not handed a generator draws from
the default one here: ``randn``/``rand``, ``nn.init`` (so layers' weights),
``functional.dropout``, ``nn.Dropout`` and a shuffling ``DataLoader`` built
without a seed.  So ``minigrad.manual_seed(s)`` makes all of them repeat, like
``torch.manual_seed``.  ``nn.Dropout`` and ``DataLoader`` split their own stream
off it when they are built, so their draws do not shift when other code draws
more or fewer numbers.  The toy datasets default to ``seed=0``.

Inside ``vmap`` a draw asks ``batching.state.check_random_draw`` first: under
``randomness="error"`` (the default, as in ``torch.func.vmap``) it is an error,
since nothing says whether the examples share the numbers.
"""

from __future__ import annotations

import numbers

import numpy as np

from .batching.state import RUNNING, check_random_draw

__all__ = ["manual_seed", "default_generator", "generator", "get_rng"]

_default = np.random.default_rng(0)


def manual_seed(seed: int) -> np.random.Generator:
    """Replace the default generator with a fresh one seeded by ``seed``, and return it."""
    global _default
    _default = np.random.default_rng(seed)
    return _default


def default_generator() -> np.random.Generator:
    """The current default generator (``manual_seed`` replaces it: ask for it each time)."""
    return _default


def generator(generator=None, seed=None) -> np.random.Generator:
    """The generator to draw from: ``generator``, a fresh one seeded by ``seed``, or the default.

    The ``generator=``/``seed=`` pair of the tensor constructors (``randn``, ``rand``).
    """
    if generator is not None and seed is not None:
        raise ValueError("give either generator= or seed=, not both")
    if RUNNING:  # inside vmap: does each example draw its own numbers? (randomness=)
        check_random_draw("a random tensor constructor")
    if generator is not None:
        return generator
    if seed is not None:
        return np.random.default_rng(seed)
    return _default


def get_rng(rng=None, *, per_example: bool = False) -> np.random.Generator:
    """A Generator from one ``rng``: a Generator (as is), an int seed, or None (the default).

    The ``rng=`` argument of ``nn.init`` and ``functional.dropout``.  ``per_example``:
    the caller draws a batch of numbers itself inside ``vmap(randomness="different")``.
    """
    if RUNNING:  # inside vmap: does each example draw its own numbers? (randomness=)
        check_random_draw("a random draw (dropout, an initialiser)", per_example)
    if rng is None:
        return _default
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, numbers.Integral) and not isinstance(rng, bool):
        return np.random.default_rng(int(rng))
    raise TypeError(f"rng must be a numpy Generator, an int seed or None, got {rng!r}")

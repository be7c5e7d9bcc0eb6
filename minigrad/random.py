"""minigrad's one default random generator, and how a caller picks a generator.

Everything that draws random numbers when not handed a generator draws from
the default one here: ``randn``/``rand``, ``nn.init`` (so layers' weights),
``functional.dropout``, ``nn.Dropout`` and a shuffling ``DataLoader`` built
without a seed.  So ``minigrad.manual_seed(s)`` makes all of them repeat, like
``torch.manual_seed``.  ``nn.Dropout`` and ``DataLoader`` split their own stream
off it when they are built, so their draws do not shift when other code draws
more or fewer numbers.  The toy datasets default to ``seed=0``.

Inside ``vmap`` a draw follows ``randomness=`` (``batching.state``), as in
``torch.func.vmap``: under ``"error"`` (the default) it is an error, since nothing
says whether the examples share the numbers; under ``"same"`` it is one draw of one
example's shape; under ``"different"`` ``sample`` draws ``(B,) + shape`` in one call
and hands it back as a batch (``batching.randomness``), per example at every
``"different"`` level of nested vmaps.  Either way the numbers come from the same
generator, so ``manual_seed`` repeats them.
"""

from __future__ import annotations

import numbers

import numpy as np

from .batching.randomness import draw_per_example, note_generator
from .batching.state import RUNNING, check_random_draw

__all__ = ["manual_seed", "default_generator", "generator", "get_rng", "sample"]

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
        rng = generator
    elif seed is not None:
        rng = np.random.default_rng(seed)
    else:
        rng = _default
    if RUNNING:
        note_generator(rng)
    return rng


def get_rng(rng=None) -> np.random.Generator:
    """A Generator from one ``rng``: a Generator (as is), an int seed, or None (the default).

    The ``rng=`` argument of ``nn.init`` and ``functional.dropout``.  Inside ``vmap``
    the caller draws through ``sample``, which honours ``randomness=``.
    """
    if RUNNING:  # inside vmap: does each example draw its own numbers? (randomness=)
        check_random_draw("a random draw (dropout, an initialiser)")
    if rng is None:
        rng = _default
    elif isinstance(rng, numbers.Integral) and not isinstance(rng, bool):
        rng = np.random.default_rng(int(rng))
    elif not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy Generator, an int seed or None, got {rng!r}")
    if RUNNING:
        note_generator(rng)
    return rng


def sample(draw, shape, *args, **kwargs):
    """``draw(*args, size=shape, **kwargs)`` for one example's ``shape``, as the running
    vmaps ask.

    ``draw`` is a generator's method (``rng.standard_normal``, ``rng.uniform`` ...).
    Outside ``vmap`` this is just that call.  Inside, every vmap with
    ``randomness="different"`` puts its batch axis in front, ``size=(B_outer, B_inner)
    + shape``, and the result is a batch that looks like one example of ``shape``
    (``batching.randomness``); a ``"same"`` vmap adds nothing, so its examples share
    the numbers.
    """
    if not RUNNING:
        return draw(*args, size=shape, **kwargs)
    return draw_per_example(lambda size: draw(*args, size=size, **kwargs), shape)

"""Arrays that stand for arrays: all the core knows of ``vmap``'s batches.

``vmap`` runs a function on ``BatchedArray``s (``minigrad.batching``): each looks
like one example's array (its shape is one example's) and holds the whole batch.
Every op's forward and rules run on it unchanged, so the engine's loop needs
no change either, with three exceptions that only the batch itself can settle.
The core never imports it (it lives in a layer above); it knows this base class,
and asks it:

* is it an array?  ``ARRAYS`` (an ndarray or a stand-in) is what the core tests
  where it used to test ``np.ndarray``;
* a gradient contribution for a node made *before* the vmap began (a weight that
  ``grad(vmap(f))`` differentiates): that node was shared by every example, so
  the contribution is summed over the batch (``share_for``);
* a rule that refuses it (``StandInRefused``: it writes into a plain array it
  made, or reads a value into Python): run it once per example (``per_example``);
* and, for the engines, whether any exists at all (``LIVE``);
* what memory it holds (``every_example``): its ``shape`` is one example's, so
  ``minigrad.memory`` weighs the array behind every example instead.
"""

from __future__ import annotations

import numpy as np

__all__ = ["StandIn", "StandInRefused", "ARRAYS", "LIVE", "count_live", "per_example"]


class _Live:
    __slots__ = ("count",)

    def __init__(self):
        self.count = 0


#: how many stand-ins exist right now.  While none does, no graph can hold one, and
#: ``engines/choose.py`` may run the fast loops (which assume plain arrays); while some
#: do, backward takes the reference loop, which adds gradients with ``accumulate``
LIVE = _Live()


def count_live(delta: int) -> None:
    """A stand-in was made (+1) or freed (-1)."""
    LIVE.count += delta


class StandIn:
    """Base class of array types that stand for arrays (see the module doc)."""

    __slots__ = ()

    def share_for(self, local, node_id: int):
        """``local`` (``self``, or a node holding it) as a contribution to node ``node_id``."""
        return local

    @classmethod
    def per_example(cls, name: str, fn, args):
        """``fn(*args)`` run once per example of the stand-ins among ``args``."""
        raise NotImplementedError

    def every_example(self) -> np.ndarray:
        """The plain array holding every example (all batch axes in front): the memory
        this stand-in keeps alive.  ``minigrad.memory`` sizes it (``nbytes``, and its base
        for a view), since the stand-in's own ``shape`` and ``size`` are one example's."""
        raise NotImplementedError


class StandInRefused(RuntimeError):
    """Code that cannot run on a stand-in (the batch's own error, ``BatchingError``,
    derives from it)."""


#: what holds a tensor's values: a numpy array, or a stand-in for many of them
ARRAYS = (np.ndarray, StandIn)


def per_example(name: str, fn, args):
    """``fn(*args)`` once per example, by the first stand-in among ``args`` (each stand-in
    type knows how to loop over its examples and stack the results)."""
    found = _first(args)
    if found is None:
        raise StandInRefused(f"{name}: refused a stand-in it was not given")
    return type(found).per_example(name, fn, args)


def _first(values):
    """The first stand-in among ``values``, looking into tuples and lists.

    A rule's arguments are flat (the upstream gradient, then what the op saved), but
    forward mode's fallback passes three tuples (inputs, saved values, tangents), and
    a variadic op's inputs (``cat``) come as one list: the stand-in may be inside.
    Any stand-in will do: each type loops over its own innermost batch, and the
    values of outer batches pass through each call unchanged, as stand-ins too.
    """
    for x in values:
        if isinstance(x, StandIn):
            return x
        if isinstance(x, (tuple, list)):
            found = _first(x)
            if found is not None:
                return found
    return None

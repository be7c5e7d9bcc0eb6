"""The per-example loop: how a call with no batching rule still gives the right answer.

Without a rule, the only thing known to be right is the definition of ``vmap``
itself: run the call once per example and stack the results.  It is correct for
any function, and slow (a Python loop of B calls), so it warns, naming the op or
numpy function, which is the hint for where a batching rule would pay.
"""

from __future__ import annotations

import warnings

import numpy as np

from .array import PROTOCOL, BatchedArray
from .errors import BatchingFallbackWarning

__all__ = ["per_example", "batch_of"]


def batch_of(tree, level: int | None = None):
    """``(level, size)`` of the innermost batch in ``tree`` (nested tuples, lists, dicts),
    or of the given ``level``; ``(0, 0)`` when nothing is batched."""
    found = [x for x in _leaves(tree) if isinstance(x, BatchedArray)]
    if not found:
        return 0, 0
    level = max(x.level for x in found) if level is None else level
    return level, next(x.batch_size for x in found if x.level == level)


def per_example(name: str, fn, args, kwargs=None, warn: bool = True):
    """``fn(*args, **kwargs)`` once per example of the innermost batch among the
    arguments, the results stacked into a batch (tuples of results element by element;
    results that are not arrays, such as a shape, must agree and are returned once)."""
    kwargs = kwargs or {}
    level, size = batch_of((args, kwargs))
    if warn:
        warnings.warn(f"vmap: {name} has no batching rule; it runs once per example "
                      f"({size} calls, a Python loop)", BatchingFallbackWarning, stacklevel=3)
    results = [fn(*_pick(args, level, i), **_pick(kwargs, level, i)) for i in range(size)]
    return _stack(results, level, name)


def _leaves(tree):
    if isinstance(tree, (tuple, list)):
        for x in tree:
            yield from _leaves(x)
    elif isinstance(tree, dict):
        for x in tree.values():
            yield from _leaves(x)
    else:
        yield tree


def _pick(tree, level, i):
    """``tree`` with each batch of ``level`` replaced by its example ``i``."""
    if isinstance(tree, BatchedArray) and tree.level == level:
        return tree.value[i]
    if isinstance(tree, (tuple, list)):
        return type(tree)(_pick(x, level, i) for x in tree)
    if isinstance(tree, dict):
        return {k: _pick(x, level, i) for k, x in tree.items()}
    return tree


def _stack(results, level, name):
    first = results[0]
    if isinstance(first, (tuple, list)) and not _is_shape(first):
        return type(first)(_stack([r[k] for r in results], level, name)
                           for k in range(len(first)))
    if isinstance(first, (np.ndarray, np.generic, BatchedArray)) or (
            isinstance(first, (int, float, bool)) and not _same(results)):
        return BatchedArray(np.stack([np.asarray(r) if isinstance(r, np.generic) else r
                                      for r in results]), level)
    if not _same(results):
        raise ValueError(f"vmap: {name} gave a different {type(first).__name__} for each "
                         f"example; it cannot be batched")
    return first


def _is_shape(x) -> bool:
    return isinstance(x, tuple) and all(isinstance(n, int) for n in x)


def _same(results) -> bool:
    return all(r == results[0] for r in results[1:])


PROTOCOL["per_example"] = per_example

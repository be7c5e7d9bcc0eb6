"""``BatchedArray``: many arrays of one shape, seen as one (what ``vmap`` runs on).

``vmap(f)`` runs ``f`` once, on arrays that each stand for a whole batch: the
value is one numpy array with the batch axis in front (``value.shape == (B,) +
shape``), but ``shape``, ``ndim``, ``size`` and indexing are the *logical* ones,
those of one example.  Code written for one example (an op's forward, its
backward and forward-mode rules, a user's loss) runs unchanged: every numpy call
it makes comes here through numpy's protocols (``__array_ufunc__``,
``__array_function__``), and a *batching rule* rewrites it for the batch:

* a ufunc (``np.exp``, ``a * b``) is elementwise: align the logical ranks behind
  the batch axis and let numpy broadcast (an unbatched operand is broadcast
  over the batch for free, never copied);
* a reduction or any op with ``axis=`` shifts the axis by one;
* matmul, reshape, indexing ... have their own rules (``rules.py``).

An unbatched array mixed with a batched one gives a batched result: a
parameter's gradient becomes a batch of per-example gradients, which is
exactly what ``vmap(grad(loss))`` asks for, with one matrix product per layer.

Nesting: ``vmap(vmap(f))`` gives a ``BatchedArray`` (inner ``level``) whose
value is a ``BatchedArray`` of the outer level.  A rule works at the highest
level among its arguments; everything else (plain arrays, outer levels) is
"unbatched" there, and the rule's numpy calls on the values recurse to the
outer level.  Levels only grow, so an inner vmap is always the higher one.
"""

from __future__ import annotations

import numpy as np

from ..core.standin import StandIn, count_live
from .errors import BatchedAttributeError, BatchingError
from .state import ACTIVE

__all__ = ["BatchedArray", "PROTOCOL", "level_of", "physical", "move_batch", "batched_like",
           "batch_levels", "rebatched"]

#: the batching rules, by protocol entry (``rules.py`` and ``fallback.py`` fill it in when the
#: package is imported: they need this module's class, so it cannot import them)
PROTOCOL: dict = {}


class BatchedArray(StandIn, np.lib.mixins.NDArrayOperatorsMixin):
    """A batch of arrays, seen as one of them: ``value`` holds the batch on axis 0.

    (``NDArrayOperatorsMixin`` is numpy's own: it makes ``a + b``, ``a @ b``,
    ``-a`` ... the ufuncs, so every operator reaches ``__array_ufunc__``.)
    """

    __slots__ = ("value", "level")
    #: what ``core`` checks to treat this as an array (it cannot import this module's layer
    #: by name everywhere, and a plain attribute keeps ndarray's checks cheap)
    is_batched = True

    def __init__(self, value, level: int):
        self.value = value
        self.level = level
        count_live(1)  # (while any batch exists, backward takes the reference loop)

    def __del__(self):
        count_live(-1)

    # --- the logical array: one example's shape ---------------------------------
    @property
    def shape(self) -> tuple:
        return self.value.shape[1:]

    @property
    def ndim(self) -> int:
        return self.value.ndim - 1

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def dtype(self):
        return self.value.dtype

    @property
    def batch_size(self) -> int:
        return self.value.shape[0]

    @property
    def T(self):
        return np.transpose(self)

    @property
    def flags(self):
        return self.value.flags

    @property
    def base(self):
        return None

    def __len__(self) -> int:
        if self.ndim == 0:
            raise TypeError("len() of a 0-d array")
        return self.shape[0]

    def __repr__(self) -> str:
        return (f"BatchedArray(level={self.level}, batch={self.batch_size}, "
                f"shape={self.shape}, dtype={self.dtype})")

    # --- numpy's protocols: every numpy call on a batch lands here ----------------
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        operands = inputs[:1] + inputs[2:] if method == "at" else inputs  # (at: an index)
        if not all(_known(x) for x in operands + kwargs.get("out", ())):
            return NotImplemented  # a Tensor among them: it lifts us and records the op
        return PROTOCOL["ufunc"](ufunc, method, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        if not all(issubclass(t, (np.ndarray, BatchedArray)) for t in types):
            return NotImplemented
        return PROTOCOL["function"](func, args, kwargs)

    def __array__(self, dtype=None, copy=None):
        raise BatchingError(
            f"np.asarray() of a batched array (inside vmap; one example has shape "
            f"{self.shape}, the batch has {self.batch_size}): a batch cannot become one "
            f"plain array inside the vmapped function. Keep to numpy calls and tensor ops, "
            f"and return the value from the function: vmap stacks it")

    def __bool__(self):
        raise BatchingError(
            "the truth value of a batched tensor inside vmap: each example may give a "
            "different answer, so Python control flow (if/while/and/or) cannot depend on "
            "it. Compute both branches and pick per element with where(cond, a, b)")

    def item(self):
        raise BatchingError(
            "item() of a batched tensor inside vmap: every example has its own value. "
            "Return it from the function instead (vmap stacks it)")

    __float__ = __int__ = __index__ = item

    def every_example(self) -> np.ndarray:
        """All examples' values as one plain array (every level's batch axes in front): for
        a check that must hold for each of them (class targets in range), or to weigh the
        memory the batch holds (``minigrad.memory``), never for math."""
        v = self.value
        return v.every_example() if isinstance(v, BatchedArray) else v

    def tolist(self):
        raise BatchingError("tolist() of a batched tensor inside vmap: return it from the "
                            "function instead (vmap stacks it)")

    # --- the methods numpy's ndarray has, as their numpy functions ---------------
    def __getitem__(self, index):
        return PROTOCOL["getitem"](self, index)

    def __setitem__(self, index, value):
        PROTOCOL["setitem"](self, index, value)

    # --- what the core asks a stand-in (core/standin.py) ---------------------------
    def share_for(self, local, node_id: int):
        """A contribution ``local`` (this batch, or a node holding it) for the node
        ``node_id``, summed over every batch whose vmap began after that node was made.

        A vmap's level is the first node id of its run.  A node made inside it (a
        parameter ``grad`` lifted inside ``vmap(grad(loss))``) is per example: its
        gradient stays a batch.  A node made before it (a weight ``grad(vmap(f))``
        passed in, or a closure) was shared by every example, so its gradient is the
        sum over the batch, as for any input broadcast over an axis.  Unless the backward
        pass itself runs inside that vmap (``vmap(vjp_fn)`` over cotangents): then the
        whole pass is per example, and so is every gradient in it."""
        while True:
            data = local if local.__class__ is BatchedArray else getattr(local, "data", None)
            if data.__class__ is not BatchedArray or data.level <= node_id or (
                    data.level in ACTIVE):  # (a backward pass inside the vmap: per example)
                return local
            if local is data:
                local = local.value.sum(axis=0)
            else:  # (a node, in a create_graph pass: the sum is recorded)
                local = PROTOCOL["node_sum"](local, data.level, data.batch_size)

    @classmethod
    def per_example(cls, name, fn, args):
        return PROTOCOL["per_example"](name, fn, args)

    def astype(self, dtype, copy=True, **kwargs):
        return BatchedArray(self.value.astype(dtype, copy=copy), self.level)

    def copy(self, order="C"):
        return BatchedArray(self.value.copy(), self.level)

    def reshape(self, *shape, order="C"):
        return np.reshape(self, shape[0] if len(shape) == 1 else shape)

    def transpose(self, *axes):
        if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
            axes = axes[0]
        return np.transpose(self, axes or None)

    def sum(self, axis=None, dtype=None, out=None, keepdims=False, **kw):
        return np.sum(self, axis=axis, dtype=dtype, out=out, keepdims=keepdims, **kw)

    def mean(self, axis=None, dtype=None, out=None, keepdims=False, **kw):
        return np.mean(self, axis=axis, dtype=dtype, out=out, keepdims=keepdims, **kw)

    def var(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False, **kw):
        return np.var(self, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims, **kw)

    def max(self, axis=None, out=None, keepdims=False, **kw):
        return np.max(self, axis=axis, keepdims=keepdims, **kw)

    def min(self, axis=None, out=None, keepdims=False, **kw):
        return np.min(self, axis=axis, keepdims=keepdims, **kw)

    def prod(self, axis=None, dtype=None, out=None, keepdims=False, **kw):
        return np.prod(self, axis=axis, dtype=dtype, keepdims=keepdims, **kw)

    def any(self, axis=None, out=None, keepdims=False, **kw):
        return np.any(self, axis=axis, keepdims=keepdims, **kw)

    def all(self, axis=None, out=None, keepdims=False, **kw):
        return np.all(self, axis=axis, keepdims=keepdims, **kw)

    def argmax(self, axis=None, out=None, **kw):
        return np.argmax(self, axis=axis, **kw)

    def argmin(self, axis=None, out=None, **kw):
        return np.argmin(self, axis=axis, **kw)

    def argsort(self, axis=-1, **kw):
        return np.argsort(self, axis=axis, **kw)

    def cumsum(self, axis=None, dtype=None, out=None):
        return np.cumsum(self, axis=axis, dtype=dtype)

    def clip(self, min=None, max=None, **kw):
        return np.clip(self, min, max, **kw)

    def squeeze(self, axis=None):
        return np.squeeze(self, axis=axis)

    def swapaxes(self, a, b):
        return np.swapaxes(self, a, b)

    def take(self, indices, axis=None, **kw):
        return np.take(self, indices, axis=axis, **kw)

    def ravel(self, order="C"):
        return np.ravel(self)

    def flatten(self, order="C"):
        return np.ravel(self).copy()

    def fill(self, value):
        self.value.fill(value)

    def __getattr__(self, name):
        # (only for names not found above: ndarray's others, such as strides or ctypes,
        # describe one block of memory, which a batch is not)
        if hasattr(np.ndarray, name) and not name.startswith("__"):
            raise BatchedAttributeError(f"vmap: .{name} of a batched array has no batching "
                                        f"rule")
        raise AttributeError(f"'BatchedArray' object has no attribute {name!r}")


def _known(x) -> bool:
    """Operands a batching rule handles itself: arrays, batches, numbers."""
    return isinstance(x, (np.ndarray, np.generic, BatchedArray, int, float, complex, bool))


def level_of(*xs) -> int:
    """The highest vmap level among ``xs`` (0: none is batched)."""
    return max((x.level for x in xs if isinstance(x, BatchedArray)), default=0)


def physical(x, level: int, ndim: int | None = None):
    """``x`` as the array a rule at ``level`` computes on: a batch of that level is its
    value with the batch in front; its logical rank is padded to ``ndim`` with size-1
    axes behind the batch axis (numpy broadcasting aligns from the right, so the
    batch axis must stay in front of every operand).  Anything else is unchanged."""
    if isinstance(x, BatchedArray) and x.level == level:
        v = x.value
        if ndim is not None and ndim > x.ndim:
            v = v.reshape((v.shape[0],) + (1,) * (ndim - x.ndim) + x.shape)
        return v
    return x


def move_batch(x, dim: int, level: int) -> BatchedArray:
    """A batch of ``x``'s slices along ``dim`` (the batch axis moved to the front)."""
    return BatchedArray(np.moveaxis(x, dim, 0), level)


def batched_like(value, level: int):
    """A rule's result (one array, or a tuple/list of them) wrapped back as batches."""
    if isinstance(value, (tuple, list)):
        return type(value)(batched_like(v, level) for v in value)
    if isinstance(value, np.generic):
        value = np.asarray(value)
    return BatchedArray(value, level)


def batch_levels(x: BatchedArray) -> tuple:
    """The vmap levels ``x`` is batched over, outermost first: the order of the batch axes
    in front of ``x.every_example()``.  (A batch of level 7 inside one of level 3 has
    levels ``(3, 7)``; a value the outer vmap never saw has ``(7,)``.)"""
    levels = []
    while isinstance(x, BatchedArray):
        levels.append(x.level)
        x = x.value
    return tuple(reversed(levels))


def rebatched(every: np.ndarray, levels: tuple):
    """The inverse of ``every_example``: ``every`` (one batch axis in front per level,
    outermost first) seen as a batch of ``levels`` again.  What a saved-tensor hook's
    unpack gave back becomes the batch that was saved (``autograd/saved.py``)."""
    x = every
    for level in levels:
        x = BatchedArray(x, level)
    return x

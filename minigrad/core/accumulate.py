"""Adding a contribution into a gradient: ``parent.grad += local``, done right.

Both engines add every edge's contribution here, never inside an op's rule;
that is what lets a recorder show each edge, and what makes the ``+=`` for a
shared subexpression (``x*x``, a diamond) impossible to forget.
"""

from __future__ import annotations

import numpy as np

from .standin import ARRAYS, StandIn

__all__ = ["unbroadcast", "unbroadcastable", "fit_gradient", "accumulate", "vjp_results"]

_add_reduce = np.add.reduce


def unbroadcast(grad: np.ndarray, shape: tuple) -> np.ndarray:
    """Sum ``grad`` down to ``shape``: the backward of numpy broadcasting.

    If the forward pass broadcast an input of shape ``(3, 1)`` to ``(2, 3, 4)``,
    every input element was used 2·4 times, once per copy; its gradient is the
    sum of the gradients of its copies.  So we sum over the axes broadcasting
    added in front (here axis 0) and over the axes where the input had size 1
    (here axis 2, kept with size 1).
    """
    # A worked example, the bias of a layer: ``x @ W + b`` with ``x @ W`` of shape
    # (batch, 3) and ``b`` of shape (3,).  Broadcasting copied ``b`` into every row, so
    # each element of ``b`` was used ``batch`` times, and its gradient is the sum of
    # the gradients of its copies: ``grad.sum(axis=0)``, shape (3,) again.
    shape = tuple(shape)
    if grad.shape == shape:  # nothing was broadcast: the gradient fits as it is
        return grad
    extra = grad.ndim - len(shape)  # axes broadcasting added in front
    if extra == 1 and grad.shape[1:] == shape:  # the common case: a bias added to rows
        # (a numpy scalar, from summing a 1-D gradient for a 0-d input, as an array: the
        # engine adds into it in place)
        if type(grad) is np.ndarray:  # (numpy's own sum(axis=0), minus its Python wrapper)
            return _array(_add_reduce(grad, 0))
        return grad.sum(axis=0)  # a node, in a create_graph pass: a recorded sum
    if not unbroadcastable(grad.shape, shape):
        raise ValueError(
            f"unbroadcast: a gradient of shape {grad.shape} cannot come from "
            f"broadcasting shape {shape}"
        )
    # Two kinds of axes to sum over: the ``extra`` axes broadcasting added in front,
    # and each axis where the input had size 1 but the gradient does not (kept as
    # size 1 by ``keepdims``, then dropped by the reshape if it came in front).
    axes = tuple(range(extra)) + tuple(
        extra + i for i, n in enumerate(shape) if n == 1 and grad.shape[extra + i] != 1
    )
    summed = grad.sum(axis=axes, keepdims=True) if axes else grad
    return summed.reshape(shape)  # drop the front axes (now of size 1)


def _array(x):
    """Numpy scalars as 0-d arrays; arrays and graph nodes (``create_graph``) as they are."""
    return np.asarray(x) if isinstance(x, np.generic) else x


def unbroadcastable(big: tuple, shape: tuple) -> bool:
    """Whether broadcasting can make ``shape`` into ``big``, so that ``unbroadcast``
    can sum a gradient of shape ``big`` back down to ``shape``."""
    # numpy's rule, read backwards: align the shapes at the right; each of ``shape``'s
    # sizes must be 1 (copied) or equal to the size it is aligned with.
    extra = len(big) - len(shape)
    return extra >= 0 and all(n == 1 or n == big[extra + i] for i, n in enumerate(shape))


def fit_gradient(local: np.ndarray, data: np.ndarray) -> np.ndarray:
    """A rule's result in its input's shape and dtype.

    A rule may return a numpy scalar where its arrays were 0-d (numpy's habit), and
    returns its gradient in the shape the op's *output* had; numpy
    broadcasting may have made the input look bigger in the forward pass, so
    the gradient is summed back down (``unbroadcast``).  A float32 input next to
    a float64 one was promoted; its gradient is cast back to float32.
    """
    # Three repairs, each cheap to test for and each needed by some op:
    if isinstance(local, np.generic):  # what numpy gives for 0-d arrays: make it an array
        local = np.asarray(local)
    if local.shape != data.shape:
        local = unbroadcast(local, data.shape)
    if local.dtype is not data.dtype and local.dtype != data.dtype:  # (identity: the quick test)
        local = local.astype(data.dtype)
    return local


def accumulate(parent, local) -> None:
    """``parent.grad += local``, the reference way (the fast engine's shortcuts are in
    ``fast.py``, proven to give the same bits).

    The first contribution is stored, the next ones added.  A sum is always a new
    array, never an update in place, because the first contribution may be shared:
    ``a + b`` passes its own gradient ``g`` to both inputs unchanged.  For the same
    reason a leaf's first contribution is copied: a leaf's ``.grad`` belongs to the
    user and outlives the pass, so it must not be a view of another node's gradient.
    In a ``create_graph`` pass the contributions are nodes, and the sum is one
    more recorded ``add``: nodes are never changed in place, so nothing is copied.
    """
    # Three cases: the gradients are nodes (a create_graph pass), arrays (Tensor), or
    # floats (Value).  Each stores the first contribution and adds the next ones.
    # (First, inside vmap: a batch of contributions is summed for a node made before the
    # vmap began, which every example shared; see ``standin.py``.)
    batch = local.data if isinstance(local, parent.engine_class) else local
    if isinstance(batch, StandIn):
        local = batch.share_for(local, parent.id)
    if isinstance(local, parent.engine_class):  # a create_graph pass: a node, recorded
        if isinstance(parent.data, ARRAYS):
            local = fit_gradient(local, parent.data)
        parent.grad = local if parent.grad is None else parent.grad + local
    elif isinstance(parent.data, ARRAYS):
        local = fit_gradient(local, parent.data)
        if parent.grad is None:
            # (a batch's leaf lives inside a transform inside vmap, never the user's, and
            # per-example gradients are the biggest arrays of the pass: not copied)
            keep = parent.op is not None or isinstance(local, StandIn)
            parent.grad = local if keep else local.copy()
        else:
            parent.grad = _array(parent.grad + local)  # (0-d + 0-d gives a numpy scalar)
    elif parent.grad is None:  # floats: nothing to fit, nothing shared (a new float
        parent.grad = local      # is made by every +)
    else:
        parent.grad = parent.grad + local


def vjp_results(node, grads) -> tuple:
    """What an op's ``vjp`` returned, checked to be one gradient (or None) per parent.

    A vjp written by a user (a custom ``Function``'s ``backward``) that returns one
    gradient too few would otherwise pair the wrong gradient with the wrong input,
    silently: ``zip`` stops at the shorter side.  So the count is checked here."""
    grads = tuple(grads)
    if len(grads) != len(node.parents):
        raise ValueError(f"{node.op.name}: its vjp returned {len(grads)} gradients for "
                         f"{len(node.parents)} inputs")
    return grads

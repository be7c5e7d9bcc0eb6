"""The transforms' inputs and results as nodes: differentiable copies, constants, and the
Jacobian's pieces: the standard basis in chunks, stacks of rows or columns, and the
block ``∂out_i/∂x_k`` cut out of them."""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np

from ..autograd import forward_ad
from ..autograd.forward_ad import tangent_of
from ..batching import BatchedArray
from ..tensor import Tensor
from ..tensor.combining import cat, stack
from ..value import Value
from .levels import lift

__all__ = ["lift_inputs", "constant_like", "live_result", "is_live", "inside", "in_transform",
           "basis_chunks", "stack_parts", "join_chunks", "jacobian_block", "shape_of",
           "size_of"]


#: how many transforms are running their function right now (``inside``)
_DEPTH = [0]


def is_live(x) -> bool:
    """Whether ``x`` takes part in an outer differentiation: it carries a forward-mode
    tangent (an outer ``jvp``), or it requires grad *and* an outer transform is running
    (an outer ``grad`` made it).  A node the user made with ``requires_grad=True`` is
    not live at the top level: the transforms differentiate through each other, not
    through the caller's own graph, and hand back constants there."""
    return _tangent(x) is not None or (bool(x.requires_grad) and _DEPTH[0] > 0)


def in_transform() -> bool:
    """Whether some transform's function is running (this call is nested in it)."""
    return _DEPTH[0] > 0


@contextmanager
def inside():
    """Run the transformed function: nodes that require grad are now an outer
    transform's, so the transforms called inside keep their results differentiable."""
    _DEPTH[0] += 1
    try:
        yield
    finally:
        _DEPTH[0] -= 1


def lift_inputs(xs):
    """Nodes to run ``f`` on, the nodes to differentiate with respect to, and whether
    the result must stay differentiable (``live``).

    A plain input becomes a fresh leaf on the same data that requires grad (the
    caller's node is not touched), a fresh leaf carrying its tangent if it has one.
    An input that is an outer transform's node (``is_live`` and requires grad) is
    fed as a ``levels.lift`` node on it: connected, yet differentiated apart from
    the function's other uses of the same outer variable.

    ``live`` is true whenever an outer differentiation is running: another
    transform's function, or a forward-mode level.  The outer variable may reach
    ``f`` through the arguments *or through a closure* (``grad(lambda w:
    jacrev(lambda x: w @ x)(X).sum())``), so every nested transform builds its
    result as a graph (``create_graph=True``) for the outer one to differentiate;
    at the top level it hands back constants, as fast as before.
    """
    live = in_transform() or forward_ad.active()
    feed, wrt = [], []
    for x in xs:
        if x.requires_grad and is_live(x):
            node = lift(x)
            feed.append(node)
            wrt.append(node)
            continue
        leaf = (Value(x.data, requires_grad=True) if isinstance(x, Value)
                else Tensor(x.data, requires_grad=True))
        tangent = _tangent(x)
        # (a dual of the leaf: its make_dual node passes gradients through to the leaf)
        feed.append(leaf if tangent is None else forward_ad.make_dual(leaf, tangent))
        wrt.append(leaf)
    return feed, wrt, live


def constant_like(x, data):
    """A constant node like ``x`` (engine, shape, dtype) holding ``data`` (0.0: zeros)."""
    if isinstance(x, Value):
        return Value(float(data), requires_grad=False)
    if isinstance(data, float) and data == 0.0:
        data = np.zeros(x.data.shape, dtype=x.data.dtype)
    if isinstance(data, BatchedArray):  # (inside vmap: a batch of results)
        return Tensor(data.astype(x.data.dtype, copy=False))
    return Tensor(np.asarray(data, dtype=x.data.dtype))


def live_result(out, live):
    """The function's output to hand back: the node itself inside an outer transform,
    else a constant with its data (no graph kept alive through the result)."""
    if live or not (isinstance(out, Value) or isinstance(out, Tensor)):
        return out
    if isinstance(out, Value):
        return Value(out.data, requires_grad=False)
    return Tensor(out.data)


def shape_of(x) -> tuple:
    """A node's shape (a Value is a number: shape ``()``)."""
    return () if isinstance(x, Value) else tuple(x.data.shape)


def size_of(x) -> int:
    """A node's number of elements (1 for a Value)."""
    return 1 if isinstance(x, Value) else x.data.size


def _dtype_of(x):
    return np.dtype(np.float64) if isinstance(x, Value) else x.data.dtype


def basis_chunks(nodes, chunk_size):
    """The standard basis of the elements of ``nodes`` taken together (all of the first
    node's elements, then the second's...), ``chunk_size`` directions at a time (all at
    once for None).  Each chunk is a tuple with one array per node, shaped
    ``(c,) + node.shape`` in its dtype: direction ``j`` of the chunk is one-hot in
    exactly one node's array and zero in the others."""
    sizes = [size_of(x) for x in nodes]
    total = sum(sizes)
    step = total if chunk_size is None else chunk_size
    for start in range(0, total, step):
        c = min(step, total - start)
        if len(nodes) == 1:  # (the usual case: rows start.. of the identity, as they are)
            yield (np.eye(c, total, k=start, dtype=_dtype_of(nodes[0]))
                   .reshape((c,) + shape_of(nodes[0])),)
            continue
        rows = np.eye(c, total, k=start)
        offsets = np.cumsum([0] + sizes)
        yield tuple(rows[:, lo:hi].astype(_dtype_of(x)).reshape((c,) + shape_of(x))
                    for x, lo, hi in zip(nodes, offsets[:-1], offsets[1:]))


def stack_parts(parts, like, live):
    """One row or column per direction, stacked along a new first axis: a Tensor
    ``(k,) + like.shape`` (a node with its graph when ``live``), or, when ``like`` is a
    Value, the list of Values itself (one number per direction)."""
    if isinstance(like, Value):
        return list(parts)
    if live:
        return stack(list(parts), axis=0)
    return Tensor(np.stack([p.data for p in parts], axis=0))


def join_chunks(stacks, live):
    """The stacks of successive chunks as one stack (the first axis runs on)."""
    if len(stacks) == 1:
        return stacks[0]
    if isinstance(stacks[0], list):
        return [v for s in stacks for v in s]
    if live:
        return cat(stacks, axis=0)
    return Tensor(np.concatenate([s.data for s in stacks], axis=0))


def jacobian_block(stacked, start, stop, out, x, live, where, columns=False):
    """``∂out/∂x``, shaped ``out.shape + x.shape``, from entries ``start:stop`` of a stack.

    Reverse mode (``columns=False``): the stack holds rows, entries ``start:stop`` are
    ``out``'s elements and each is shaped like ``x``.  Forward mode: it holds columns,
    the entries are ``x``'s elements and each is shaped like ``out``.
    """
    each, lead = (out, x) if columns else (x, out)
    if isinstance(each, Value):  # a list of Values, one per entry
        part = stacked[start:stop]
        if isinstance(lead, Value):
            return part[0]
        if live and any(v.requires_grad for v in part):
            raise NotImplementedError(
                f"{where}: the Jacobian between a Tensor and a Value inside another "
                f"transform is not supported; make the Value a one-element Tensor")
        return Tensor(np.array([v.data for v in part], dtype=np.float64)
                      .reshape(shape_of(lead)))
    if not live:  # constants: numpy does the cutting, no ops recorded
        data = stacked.data[start:stop]
        if columns and shape_of(out):  # (x's elements, out's) -> (out's, x's): a transpose
            data = data.reshape(stop - start, -1).T
        return Tensor(data.reshape(shape_of(out) + shape_of(x)))
    whole = start == 0 and stop == stacked.data.shape[0]
    part = stacked if whole else stacked[start:stop]
    if not columns or not shape_of(out):  # rows: out's elements first, as wanted
        return part.reshape(shape_of(out) + shape_of(x))
    # columns: x's elements first; move that axis to the end
    ndim = len(shape_of(out))
    part = part.reshape((stop - start,) + shape_of(out)).permute(*range(1, ndim + 1), 0)
    return part.reshape(shape_of(out) + shape_of(x))


def _tangent(x):
    """The forward-mode tangent ``x`` carries (inside an outer ``jvp``), if any."""
    return tangent_of(x)

"""Batching rules, by numpy function: one example's call rewritten for the batch.

Each rule gets the call as it was made on logical (one-example) arrays and
runs it on the physical values at the innermost level (``array.physical``).  The
families:

* **elementwise** (every ufunc, ``where``, ``clip``): pad the logical ranks to one
  behind the batch axis and broadcast;
* **axis** (reductions, ``cumsum``, ``argsort``, ``concatenate`` ...): a
  non-negative logical axis ``a`` is physical ``a + 1``; a negative one is the same
  axis from the right; ``axis=None`` means every logical axis;
* **written** rules: ``matmul`` (a 1-D operand is a row or a column), ``reshape``,
  ``transpose``, ``broadcast_to``, ``pad``, indexing;
* anything else: ``fallback.per_example``, with a warning naming it.
"""

from __future__ import annotations

import operator

import numpy as np

from .array import PROTOCOL, BatchedArray, batched_like, level_of, physical
from .errors import BatchingError
from .fallback import batch_of, per_example
from .products import matrix_times_batch, outer_product

__all__ = ["ufunc_rule", "function_rule", "getitem", "setitem", "RULES"]


def _axis(axis, ndim: int):
    """A logical axis (or tuple of them; ``None``: all) as the physical one(s)."""
    if axis is None:
        return tuple(range(1, ndim + 1))
    if isinstance(axis, (tuple, list)):
        return tuple(_axis(a, ndim) for a in axis)
    axis = operator.index(axis)
    if not -ndim <= axis < max(ndim, 1):
        raise np.exceptions.AxisError(axis, ndim)
    return axis % ndim + 1 if ndim else 1


# --- ufuncs -----------------------------------------------------------------------------------
def ufunc_rule(ufunc, method, inputs, kwargs):
    level = batch_of((inputs, kwargs.get("out", ())))[0]
    out = kwargs.pop("out", None)
    if ufunc is np.matmul and method == "__call__":
        result = _matmul(level, *inputs, **kwargs)
    elif method == "__call__":
        result = _elementwise(getattr(ufunc, method), level, inputs, kwargs,
                              outer=ufunc is np.multiply and not kwargs)
    elif method == "at":
        return ufunc_at(ufunc, *inputs)
    elif method in ("reduce", "accumulate") and isinstance(inputs[0], BatchedArray) \
            and inputs[0].level == level:
        x = inputs[0]
        axis = _axis(kwargs.pop("axis", 0), x.ndim)
        result = batched_like(getattr(ufunc, method)(x.value, axis=axis, **kwargs), level)
    else:
        return per_example(f"np.{ufunc.__name__}.{method}", getattr(ufunc, method), inputs,
                           kwargs)
    if out is None:
        return result
    return _write(out, result, ufunc.__name__)


def _elementwise(fn, level, inputs, kwargs, outer=False):
    ndim = max(np.ndim(x) if not isinstance(x, BatchedArray) else x.ndim for x in inputs)
    operands = [physical(x, level, ndim) for x in inputs]
    # (a multiply that makes an outer product, a weight's per-example gradient: einsum)
    result = outer_product(*operands) if outer and len(operands) == 2 else None
    if result is None:
        result = fn(*operands, **kwargs)
    return batched_like(result, level)


def _write(out, result, name):
    """``out=``: the result written into the given arrays, which must be batches of the
    same level (writing a batch into one plain array would keep one example)."""
    results = result if isinstance(result, tuple) else (result,)
    for o, r in zip(out, results):
        if not (isinstance(o, BatchedArray) and o.level == getattr(r, "level", o.level)):
            raise BatchingError(
                f"vmap: an in-place {name} writes a batched value (one per example) into "
                f"an array that is not batched (shape {np.shape(o)}); it can hold only one. "
                f"Write the update out of place (y = x + 1, not x += 1), or make x batched "
                f"too (pass it through vmap's in_dims)")
        o.value[...] = physical(r, o.level, o.ndim) if isinstance(r, BatchedArray) else r
    return out[0] if len(out) == 1 else out


def _matmul(level, a, b, **kwargs):
    """``a @ b`` for a batch: operands made at least 2-D (a 1-D ``a`` is a row, a 1-D
    ``b`` a column), logical ranks aligned, one batched ``np.matmul``, the added axes
    taken out again.  (A shared matrix times a batch of vectors is one product of
    matrices: ``products.matrix_times_batch``.)"""
    if not kwargs:
        fast = matrix_times_batch(a, b, level)
        if fast is not None:
            return fast
    a_vec, b_vec = np.ndim(a) == 1, np.ndim(b) == 1
    pa = _at_least_2d(a, level, a_vec, row=True)
    pb = _at_least_2d(b, level, b_vec, row=False)
    ndim = max(_logical_ndim(a, level, pa), _logical_ndim(b, level, pb))
    pa, pb = _pad(pa, a, level, ndim), _pad(pb, b, level, ndim)
    out = np.matmul(pa, pb, **kwargs)
    if not isinstance(out, BatchedArray) and np.ndim(out) == ndim:  # nothing was batched
        raise AssertionError("matmul rule without a batch")
    if b_vec:
        out = out[..., 0]
    if a_vec:
        out = out[..., 0, :] if not b_vec else out[..., 0]
    return BatchedArray(out, level)


def _at_least_2d(x, level, vec, row):
    if not vec:
        return physical(x, level)
    p = physical(x, level)
    return p[..., None, :] if row else p[..., :, None]


def _logical_ndim(x, level, p):
    return np.ndim(p) - 1 if isinstance(x, BatchedArray) and x.level == level else np.ndim(p)


def _pad(p, x, level, ndim):
    if isinstance(x, BatchedArray) and x.level == level:
        have = np.ndim(p) - 1
        if have < ndim:
            return p.reshape((p.shape[0],) + (1,) * (ndim - have) + tuple(p.shape[1:]))
        return p
    return p  # (an unbatched operand broadcasts from the right, over the batch axis too)


# --- numpy functions ----------------------------------------------------------------------------
RULES: dict = {}


def rule(*funcs):
    def register(fn):
        for f in funcs:
            RULES[f] = fn
        return fn

    return register


def function_rule(func, args, kwargs):
    handler = RULES.get(func)
    if handler is None:
        return per_example(f"np.{func.__name__}", func, args, kwargs)
    return handler(func, *args, **kwargs)


def _only(func, x, level=None):
    level = level or level_of(x)
    return level, physical(x, level)


@rule(np.sum, np.mean, np.max, np.min, np.amax, np.amin, np.prod, np.any, np.all, np.var,
      np.std, np.nanmax, np.nanmin, np.nansum, np.nanmean, np.count_nonzero)
def _reduction(func, a, axis=None, *args, **kwargs):
    if not isinstance(a, BatchedArray):
        return per_example(f"np.{func.__name__}", func, (a, axis) + args, kwargs)
    return batched_like(func(a.value, _axis(axis, a.ndim), *args, **kwargs), a.level)


@rule(np.argmax, np.argmin)
def _arg_reduction(func, a, axis=None, **kwargs):
    if axis is None:  # (an index into the flattened example)
        return batched_like(func(a.value.reshape(a.batch_size, -1), axis=1, **kwargs), a.level)
    return batched_like(func(a.value, axis=_axis(axis, a.ndim), **kwargs), a.level)


@rule(np.cumsum, np.cumprod)
def _cumulative(func, a, axis=None, **kwargs):
    if axis is None:
        return batched_like(func(a.value.reshape(a.batch_size, -1), axis=1, **kwargs), a.level)
    return batched_like(func(a.value, axis=_axis(axis, a.ndim), **kwargs), a.level)


@rule(np.argsort, np.sort)
def _sort(func, a, axis=-1, **kwargs):
    if axis is None:
        return func(np.ravel(a), **kwargs)
    return batched_like(func(a.value, axis=_axis(axis, a.ndim), **kwargs), a.level)


@rule(np.where)
def _where(func, cond, *xy):
    if not xy:
        return per_example("np.where (one argument)", func, (cond,))
    return _elementwise(func, level_of(cond, *xy), (cond,) + xy, {})


@rule(np.clip)
def _clip(func, a, a_min=None, a_max=None, **kwargs):
    level = level_of(a, a_min, a_max)
    inputs = [x for x in (a, a_min, a_max) if x is not None]
    ndim = max(np.ndim(x) if not isinstance(x, BatchedArray) else x.ndim for x in inputs)
    p = [None if x is None else physical(x, level, ndim) for x in (a, a_min, a_max)]
    if not (isinstance(a, BatchedArray) and a.level == level):
        p[0] = np.broadcast_to(p[0], np.broadcast_shapes(*(np.shape(x) for x in p
                                                           if x is not None)))
    return batched_like(func(*p, **kwargs), level)


@rule(np.reshape)
def _reshape(func, a, shape=None, order="C", **kwargs):
    shape = kwargs.get("newshape", shape)
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    return BatchedArray(a.value.reshape((a.batch_size,) + shape, order=order), a.level)


@rule(np.ravel)
def _ravel(func, a, order="C"):
    return BatchedArray(a.value.reshape(a.batch_size, -1), a.level)


@rule(np.transpose)
def _transpose(func, a, axes=None):
    axes = tuple(reversed(range(a.ndim))) if axes is None else tuple(axes)
    return BatchedArray(a.value.transpose((0,) + tuple(_axis(k, a.ndim) for k in axes)),
                        a.level)


@rule(np.swapaxes)
def _swapaxes(func, a, axis1, axis2):
    return BatchedArray(np.swapaxes(a.value, _axis(axis1, a.ndim), _axis(axis2, a.ndim)),
                        a.level)


@rule(np.moveaxis)
def _moveaxis(func, a, source, destination):
    return BatchedArray(np.moveaxis(a.value, _axis(source, a.ndim),
                                    _axis(destination, a.ndim)), a.level)


@rule(np.flip)
def _flip(func, m, axis=None):
    return BatchedArray(np.flip(m.value, _axis(axis, m.ndim)), m.level)


@rule(np.squeeze)
def _squeeze(func, a, axis=None):
    if axis is None:
        axis = tuple(k for k, n in enumerate(a.shape) if n == 1)
    return BatchedArray(np.squeeze(a.value, _axis(axis, a.ndim)), a.level)


@rule(np.expand_dims)
def _expand_dims(func, a, axis):
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    ndim = a.ndim + len(axes)
    return BatchedArray(np.expand_dims(a.value, tuple(_axis(k, ndim) for k in axes)), a.level)


@rule(np.broadcast_to)
def _broadcast_to(func, a, shape, subok=False):
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    return BatchedArray(np.broadcast_to(physical(a, a.level, len(shape)),
                                        (a.batch_size,) + shape), a.level)


@rule(np.concatenate, np.stack)
def _join(func, arrays, axis=0, **kwargs):
    level, size = batch_of(arrays)
    ndim = max(np.ndim(x) for x in arrays) + (func is np.stack)
    parts = [_batched_full(x, level, size) for x in arrays]
    return BatchedArray(func(parts, axis=_axis(axis, ndim), **kwargs), level)


def _batched_full(x, level, size):
    """``x`` as a physical batch: an unbatched operand copied (as a view) per example."""
    if isinstance(x, BatchedArray) and x.level == level:
        return x.value
    return np.broadcast_to(x, (size,) + np.shape(x))


@rule(np.split, np.array_split)
def _split(func, a, indices_or_sections, axis=0):
    return [BatchedArray(v, a.level)
            for v in func(a.value, indices_or_sections, axis=_axis(axis, a.ndim))]


@rule(np.take)
def _take(func, a, indices, axis=None, **kwargs):
    if isinstance(indices, BatchedArray) and not isinstance(a, BatchedArray):
        # (one array, a batch of indices: the batch's axes land where the indices' do)
        if axis is None:
            return BatchedArray(np.take(a, indices.value, **kwargs), indices.level)
        axis = axis % np.ndim(a)
        return BatchedArray(np.moveaxis(np.take(a, indices.value, axis=axis, **kwargs), axis, 0),
                            indices.level)
    if isinstance(indices, BatchedArray):
        return per_example("np.take (batched indices)", func, (a, indices, axis), kwargs)
    if axis is None:
        return BatchedArray(np.take(a.value.reshape(a.batch_size, -1), indices, axis=1,
                                    **kwargs), a.level)
    return BatchedArray(np.take(a.value, indices, axis=_axis(axis, a.ndim), **kwargs), a.level)


@rule(np.take_along_axis)
def _take_along_axis(func, arr, indices, axis):
    level, size = batch_of((arr, indices))
    ndim = np.ndim(arr)
    return BatchedArray(np.take_along_axis(_batched_full(arr, level, size),
                                           _batched_full(indices, level, size),
                                           axis=_axis(axis, ndim)), level)


@rule(np.pad)
def _pad_rule(func, array, pad_width, mode="constant", **kwargs):
    widths = np.broadcast_to(np.asarray(pad_width), (array.ndim, 2))
    return BatchedArray(np.pad(array.value, [(0, 0)] + [tuple(w) for w in widths], mode,
                               **kwargs), array.level)


@rule(np.zeros_like, np.ones_like, np.empty_like, np.full_like)
def _like(func, a, *args, **kwargs):
    if not isinstance(a, BatchedArray):
        return per_example(f"np.{func.__name__}", func, (a,) + args, kwargs)
    if kwargs.get("shape") is not None:  # (the batch of another shape: zeros_like(g, shape=s))
        shape = kwargs["shape"]
        kwargs["shape"] = (a.batch_size,) + ((shape,) if isinstance(shape, int) else tuple(shape))
    return BatchedArray(func(a.value, *args, **kwargs), a.level)


@rule(np.shape)
def _shape(func, a):
    return a.shape


@rule(np.ndim)
def _ndim(func, a):
    return a.ndim


@rule(np.size)
def _size(func, a, axis=None):
    return a.size if axis is None else a.shape[axis]


@rule(np.result_type)
def _result_type(func, *args):
    return np.result_type(*(x.dtype if isinstance(x, BatchedArray) else x for x in args))


@rule(np.copy)
def _copy(func, a, *args, **kwargs):
    return a.copy()


@rule(np.may_share_memory, np.shares_memory)
def _shares(func, a, b, *args):
    return np.may_share_memory(getattr(a, "value", a), getattr(b, "value", b))


# --- indexing ------------------------------------------------------------------------------------
def _is_advanced(i) -> bool:
    return isinstance(i, (np.ndarray, list, BatchedArray))


def physical_index(x: BatchedArray, index):
    """The index into ``x.value`` that picks ``x[index]`` for every example, with the batch
    axis first in the result; ``None`` where numpy's rules would move it (advanced indices
    apart, or batched indices not in front)."""
    index = index if isinstance(index, tuple) else (index,)
    level = x.level
    if not any(isinstance(i, BatchedArray) for i in index):
        if any(isinstance(i, np.ndarray) and i.dtype == bool for i in index):
            return (slice(None),) + index  # (a mask: its axes stay where it was)
        adv = [k for k, i in enumerate(index) if _is_advanced(i) or (
            isinstance(i, (int, np.integer)) and any(map(_is_advanced, index)))]
        if adv and adv != list(range(adv[0], adv[0] + len(adv))):
            return None
        return (slice(None),) + index
    if any(isinstance(i, BatchedArray) and (i.level != level or i.dtype == bool)
           for i in index) or any(i is None or i is Ellipsis for i in index):
        return None
    adv = [k for k, i in enumerate(index) if _is_advanced(i) or isinstance(i, (int, np.integer))]
    if adv != list(range(len(adv))):
        return None
    # Each example's indices pick from its own example: the batch axis is one more
    # advanced index, ``arange(B)``, broadcast against the others.
    ndim = len(np.broadcast_shapes(*(np.shape(index[k]) if not isinstance(index[k], BatchedArray)
                                     else index[k].shape for k in adv)))
    arange = np.arange(x.batch_size).reshape((x.batch_size,) + (1,) * ndim)
    return (arange,) + tuple(physical(i, level, ndim) if isinstance(i, BatchedArray) else i
                             for i in index)


def getitem(x: BatchedArray, index):
    """``x[index]`` for a batch: ``value[:, index]`` (``physical_index``); where advanced
    indices stand apart, numpy puts their axes first, so the batch axis is moved back."""
    p = physical_index(x, index)
    if p is not None:
        return BatchedArray(x.value[p], x.level)
    index = index if isinstance(index, tuple) else (index,)
    if any(isinstance(i, BatchedArray) for i in index):
        return per_example("indexing with batched indices", operator.getitem, (x, index))
    out = x.value[(slice(None),) + index]
    n = len(np.broadcast_shapes(*(np.shape(i) for i in index if _is_advanced(i))))
    return BatchedArray(np.moveaxis(out, n, 0), x.level)


def _target_ndim(x, p):
    return np.ndim(np.broadcast_to(np.empty((), x.dtype), x.value.shape)[p]) - 1


def setitem(x: BatchedArray, index, value):
    """``x[index] = value``: every example's part written (a plain ``value`` is broadcast
    to all of them)."""
    p = physical_index(x, index)
    if p is None:
        per_example("assignment with this index", _assign, (x, index, value), warn=True)
        return
    x.value[p] = physical(value, x.level, _target_ndim(x, p))


def _assign(x, index, value):
    x[index] = value
    return None


def ufunc_at(ufunc, x, index, values=None):
    """``np.add.at(x, index, values)`` (unbuffered, repeated indices add up) for a batch
    ``x``; a batch of values into a plain ``x`` cannot be: one array holds one example."""
    level = batch_of((x, index, values))[0]
    if not (isinstance(x, BatchedArray) and x.level == level):
        raise BatchingError(f"vmap: np.{ufunc.__name__}.at writes a batched value into an "
                            f"array that is not batched (shape {np.shape(x)})")
    p = physical_index(x, index)
    if p is None:  # (numpy would move the batch axis: one example at a time, in place)
        extra = () if values is None else (values,)
        per_example(f"np.{ufunc.__name__}.at with this index", _at(ufunc), (x, index) + extra)
        return None
    extra = () if values is None else (physical(values, level, _target_ndim(x, p)),)
    ufunc.at(x.value, p, *extra)
    return None


def _at(ufunc):
    def at(x, index, *values):
        ufunc.at(x, index, *values)  # (x is one example's view: written in place)

    return at


PROTOCOL.update(ufunc=ufunc_rule, function=function_rule, getitem=getitem, setitem=setitem)

"""Functions of several tensors: ``cat`` (``concatenate``), ``stack``, ``where``,
``maximum``, ``minimum``, which make one tensor from several, and the module-level
spellings of the ``Tensor`` methods that cut one into several: ``split``, ``chunk``,
``unbind``, ``topk`` (``minigrad.split(t, 2)`` is ``t.split(2)``, as in PyTorch).

numpy's own names for them (``np.where``, ``np.concatenate``, ``np.stack``) are
registered here too, so an op's gradient rule written with numpy records them
when it runs on tensors (see ``numpy_protocol``).
"""

from __future__ import annotations

import numpy as np

from ..ops import tensor as ops
from .arguments import as_int, constant, lift
from .numpy_protocol import implements
from .tensor import Tensor, apply_op

__all__ = [
    "cat", "chunk", "concatenate", "maximum", "minimum", "split", "stack", "topk", "unbind",
    "where",
]

asarray = np.asarray


# --- functions of several tensors ------------------------------------------------------------
def _tensor_list(tensors, op_name):
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{op_name} expects a list or tuple of tensors, got "
                        f"{type(tensors).__name__}")
    if not tensors:
        raise ValueError(f"{op_name} needs at least one tensor")
    return tensors


def cat(tensors, axis: int = 0) -> Tensor:
    """Join tensors along an existing axis (``np.concatenate``)."""
    return apply_op(ops.CAT, *_tensor_list(tensors, "cat"), axis=as_int(axis, "cat", "axis"))


concatenate = cat  # numpy's name


def stack(tensors, axis: int = 0) -> Tensor:
    """Join tensors of equal shape along a new axis (``np.stack``)."""
    return apply_op(ops.STACK, *_tensor_list(tensors, "stack"),
                    axis=as_int(axis, "stack", "axis"))


def maximum(a, b) -> Tensor:
    """Elementwise larger value (``np.maximum``); a tie shares the gradient half and half."""
    return _either(Tensor.maximum, a, b, "maximum")


def minimum(a, b) -> Tensor:
    """Elementwise smaller value (``np.minimum``); a tie shares the gradient half and half."""
    return _either(Tensor.minimum, a, b, "minimum")


def _either(method, a, b, op_name) -> Tensor:
    """``method(a, b)`` when either operand (not necessarily the first) is a Tensor."""
    if not isinstance(a, Tensor):
        if not isinstance(b, Tensor):
            raise TypeError(f"{op_name}: give at least one Tensor (for arrays use np.{op_name})")
        a = lift(Tensor, a, b.data.dtype, op_name)
    return method(a, b)


def where(condition, a, b) -> Tensor:
    """``a`` where ``condition`` (a bool tensor or array) holds, else ``b``."""
    cond = condition.data if isinstance(condition, Tensor) else asarray(condition)
    if cond.dtype != bool:
        raise TypeError(f"where: the condition must be a bool tensor (e.g. x > 0), got dtype "
                        f"{cond.dtype}")
    cond_t = condition if isinstance(condition, Tensor) else constant(Tensor, cond)
    return apply_op(ops.WHERE, cond_t, a, b)


# --- numpy's names for them, when a Tensor is an argument (see numpy_protocol) -----------------
@implements(np.where)
def _np_where(condition, *a_b):
    if not a_b:  # np.where(cond) alone: the indices where it holds, not differentiable
        return np.where(condition.data if isinstance(condition, Tensor) else condition)
    return where(condition, *a_b)


@implements(np.concatenate)
def _np_concatenate(arrays, axis=0, **_):
    return cat(list(arrays), axis)


@implements(np.stack)
def _np_stack(arrays, axis=0, **_):
    return stack(list(arrays), axis)




# --- the methods that cut one tensor into several, by their module-level names ----------------
split = Tensor.split
chunk = Tensor.chunk
unbind = Tensor.unbind
topk = Tensor.topk

"""``Tensor``'s elementwise operators: ``a * b``, ``x.tanh()`` ..., built from the op registry.

These are ``apply_op`` specialised for one and two inputs, with the op bound in
a closure.  They run for every elementwise op, and each Python call or generic
loop is a visible share of a 4x4 op's cost (``benchmarks/tensor_ops.py``), so
``a * b`` runs one Python function:

* an op that is one numpy ufunc (``ufunc=``: add, mul, tanh ...) runs as that
  ufunc, keeping what the op says it ``saves``, without calling its forward
  (``tests/minigrad/tensor/test_operators_ufunc_paths.py`` compares the two paths for every
  such op);
* the **one inlined copy** of ``node.init_node``'s slot assignments, for the usual
  case only: some input requires grad, grad mode is on and nobody listens, which
  one read of ``core.modes.COUNTS.detours`` tells.  Otherwise (grad mode possibly off, a
  recorder, anomaly mode, a dual level, nothing to record) the constructor itself
  makes the node and decides whether to record the op: there is one predicate.
  (``tests/minigrad/core/test_node.py`` compares the operators' nodes slot by
  slot with the constructor's for every elementwise operator.)

Their ops have no settings: their nodes get ``attrs=None`` and their rules are
called without keywords.  A node's class is its inputs' ``engine_class``
(``Tensor``, also for an ``nn.Parameter``).
"""

from __future__ import annotations

import numpy as np

from ..core.modes import COUNTS
from ..core.node import init_node, next_id
from ..core.op import SAVES
from .arguments import as_array_result, lift, op_error, promote

__all__ = ["binary_method", "unary_method"]

_new = object.__new__
ndarray = np.ndarray
float32 = np.dtype(np.float32)


def _keep(op) -> int:
    """What a one-ufunc op saves, as its position in ``SAVES``; -1 for any other op."""
    return -1 if op.ufunc is None else SAVES.index(op.saves)


def operator_method(op, name: str, arity: int, reflected: bool = False,
                    doc: str | None = None):
    """The Tensor method ``name`` running ``op``: ``op(self)`` for one input,
    ``op(self, other)`` for two (``op(other, self)`` if ``reflected``)."""
    unary = arity == 1
    run = _unary_run(op) if unary else _binary_run(op)
    if unary:
        def method(self):
            return run(self)
        method = run if doc is None and not reflected else method
    elif reflected:
        def method(self, other):
            return run(lift(self.engine_class, other, self.data.dtype, op.name), self)
    else:
        method = run
    method.__name__ = name
    method.__qualname__ = f"Tensor.{name}"
    if unary:
        method.__doc__ = doc or f"Elementwise {op.name} (op '{op.name}')."
    else:
        method.__doc__ = doc or (f"``other {op.symbol} self`` (op '{op.name}')" if reflected
                                 else f"``self {op.symbol} other`` (op '{op.name}')")
    return method


def binary_method(op, name: str, reflected: bool = False, doc: str | None = None):
    """The Tensor method ``name``: ``op(self, other)``, or ``op(other, self)`` if reflected."""
    return operator_method(op, name, 2, reflected, doc)


def unary_method(op, name: str, doc: str | None = None):
    """The Tensor method ``name``: ``op(self)``."""
    return operator_method(op, name, 1, doc=doc)


def _unary_run(op):
    """``op(a)``: the op's ufunc (or forward) on the array, and its node."""
    elementwise = op.elementwise
    float_only = op.float_only
    forward = op.forward  # (ops are frozen records: bind once)
    ufunc = op.ufunc
    keep = _keep(op)

    def run(a):
        cls = a.engine_class  # (Tensor, also for an nn.Parameter)
        ad = a.data
        # (an input that requires grad is floating: only constants can need the cast)
        if float_only and not a.requires_grad and ad.dtype.kind != "f":
            ad = ad.astype(float32)
        if ufunc is None:
            out, saved = forward(ad)
        else:
            out = ufunc(ad)
        if type(out) is not ndarray:  # a 0-d result: numpy gives a scalar
            out, saved = as_array_result(out, saved if ufunc is None else ())
        if keep >= 0:  # the ufunc path: save what the op's own forward saves
            saved = (ad,) if keep == 1 else (out,) if keep == 2 else ()
        # An elementwise op's rules return gradients in the output's shape and dtype,
        # which are its one input's.
        if COUNTS.detours or not a.requires_grad:  # the constructor decides, its way
            return init_node(_new(cls), out, op, (a,), saved, None, elementwise)
        node = _new(cls)  # recorded: init_node's slots, written out
        node.data = out
        node.grad = None
        node.requires_grad = True
        node.op = op
        node.parents = (a,)
        node.saved = saved
        node.attrs = None
        node.id = next_id()
        node.label = None
        node.origin = None
        node.grads_fit_inputs = elementwise
        return node

    return run


def _binary_run(op):
    """``op(a, b)``: the op's ufunc (or forward) on the arrays, and its node."""
    elementwise = op.elementwise
    forward = op.forward
    ufunc = op.ufunc
    keep = _keep(op)
    name = op.name

    def run(a, b):  # ``a`` is a Tensor: self, or the lifted operand of a reflected op
        cls = a.engine_class
        ad = a.data
        if type(b) is not cls and not isinstance(b, cls):
            b = lift(cls, b, ad.dtype, name)
        bd = b.data
        same_dtype = ad.dtype is bd.dtype
        if not same_dtype:
            ad, bd = promote(ad, bd)
        try:
            if ufunc is None:
                out, saved = forward(ad, bd)
            else:
                out = ufunc(ad, bd)
        except (ValueError, TypeError) as err:
            raise op_error(op, (a, b), {}, err) from None
        if type(out) is not ndarray:  # a 0-d result: numpy gives a scalar
            out, saved = as_array_result(out, saved if ufunc is None else ())
        if keep >= 0:
            saved = (ad, bd) if keep == 1 else (out,) if keep == 2 else ()
        # An elementwise op's rules return gradients in the output's shape and dtype:
        # they fit as they come if numpy promoted nothing and broadcast no input that
        # gets a gradient (``x * 2`` fits, ``x + bias`` does not).
        needs = True
        if a.requires_grad:
            if not (elementwise and same_dtype):
                fits = False
            elif b.requires_grad:
                fits = ad.shape == bd.shape
            else:
                fits = ad.shape == out.shape
        elif b.requires_grad:
            fits = elementwise and same_dtype and bd.shape == out.shape
        else:
            needs = fits = False
        if COUNTS.detours or not needs:  # the constructor decides, its way
            return init_node(_new(cls), out, op, (a, b), saved, None, fits)
        node = _new(cls)  # recorded: init_node's slots, written out
        node.data = out
        node.grad = None
        node.requires_grad = True
        node.op = op
        node.parents = (a, b)
        node.saved = saved
        node.attrs = None
        node.id = next_id()
        node.label = None
        node.origin = None
        node.grads_fit_inputs = fits
        return node

    return run

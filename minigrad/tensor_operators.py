"""``Tensor``'s elementwise operators: ``a * b``, ``x.tanh()`` ..., built from the op registry.

These are ``apply_op`` specialised for one and two inputs, with the op bound in
a closure.  They run for every elementwise op, and each Python call or generic
loop is a visible share of a 4x4 op's cost (``benchmarks/tensor_ops.py``), so
``a * b`` runs one Python function:

* an op that is one numpy ufunc (``ufunc=``: add, mul, tanh ...) runs as that
  ufunc, keeping what the op says it ``saves``, without calling its forward
  (``tests/ops/test_ufunc_ops.py`` compares the two paths for every such op);
* the binary operator is the **one inlined copy** of ``node.init_node``: the
  record-this-op decision and the slot assignments written out
  (``tests/autograd/test_node_constructor.py`` compares its nodes' slots with
  the constructor's for every binary elementwise op).  While something listens
  (``HOOKS``: a recorder, anomaly mode, a dual level), a result that is not
  recorded is made by the constructor itself, which gives it its tangent.

Their ops have no settings: their nodes get ``attrs=None`` and their rules are
called without keywords.  A node's class is its inputs' ``engine_class``
(``Tensor``, also for an ``nn.Parameter``).
"""

from __future__ import annotations

import numpy as np

from .autograd.ids import next_id
from .autograd.node import announce, init_node
from .autograd.registry import SAVES
from .autograd.state import GRAD_OFF, HOOKS, STATE
from .tensor_args import as_array_result, constant, lift, op_error, promote

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
    elementwise = op.elementwise
    float_only = op.float_only
    forward = op.forward  # (ops are frozen records: bind once)
    ufunc = op.ufunc
    keep = _keep(op)
    unary = arity == 1

    def run(a, b=None):  # ``a`` is a Tensor: self, or the lifted operand of a reflected op
        cls = a.engine_class  # (Tensor, also for an nn.Parameter)
        ad = a.data
        if unary:
            # (an input that requires grad is floating: only constants can need the cast)
            if float_only and not a.requires_grad and ad.dtype.kind != "f":
                ad = ad.astype(float32)
            if ufunc is None:
                out, saved = forward(ad)
            else:
                out = ufunc(ad)
            parents = (a,)
            needs = a.requires_grad
            same_dtype = True
        else:
            if type(b) is not cls and not isinstance(b, cls):
                b = lift(cls, b, ad.dtype, op.name)
            bd = b.data
            same_dtype = ad.dtype is bd.dtype
            if not same_dtype:
                ad, bd = promote(ad, bd)
            parents = (a, b)
            try:
                if ufunc is None:
                    out, saved = forward(ad, bd)
                else:
                    out = ufunc(ad, bd)
            except (ValueError, TypeError) as err:
                raise op_error(op, parents, {}, err) from None
            needs = a.requires_grad or b.requires_grad
        if type(out) is not ndarray:  # a 0-d result: numpy gives a scalar
            out, saved = as_array_result(out, saved if ufunc is None else ())
        # Record this op?  (node.init_node's decision, written out)
        if not (needs and (not GRAD_OFF[0] or STATE.grad_enabled)):
            if HOOKS[0]:  # forward mode may need the op: the constructor's way
                if keep >= 0:
                    saved = (((ad,) if unary else (ad, bd)) if keep == 1
                             else (out,) if keep == 2 else ())
                return init_node(_new(cls), out, op, parents, saved, None)
            return constant(cls, out)  # no gradient can flow: a constant, not a graph node
        if keep >= 0:  # the ufunc path: save what the op's own forward saves
            saved = ((ad,) if unary else (ad, bd)) if keep == 1 else (out,) if keep == 2 else ()
        node = _new(cls)
        node.data = out
        node.grad = None
        node.requires_grad = True
        node.op = op
        node.parents = parents
        node.saved = saved
        # An elementwise op's rules return gradients in the output's shape and dtype.
        # They fit as they come if numpy promoted nothing and broadcast no input
        # that gets a gradient (``x * 2`` fits, ``x + bias`` does not).
        if not (elementwise and same_dtype):
            node.grads_fit_inputs = False
        elif unary:
            node.grads_fit_inputs = True
        elif a.requires_grad and b.requires_grad:
            node.grads_fit_inputs = ad.shape == bd.shape
        else:
            node.grads_fit_inputs = (ad if a.requires_grad else bd).shape == out.shape
        node.attrs = None
        node.id = next_id()
        node.label = None
        node.origin = None
        if HOOKS[0]:
            announce(node)
        return node

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

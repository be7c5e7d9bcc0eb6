"""``trace(fn, *inputs)``: run ``fn`` once and keep its op records as a ``Trace``.

Tracing runs ``fn`` eagerly, through the one ``apply_op`` path, on stand-ins for
the inputs that all require grad, so that every op depending on an input is
recorded as a graph node; then it walks that graph (parents first) and turns
each node into an equation.  Values the graph reaches that are not inputs are
what ``fn`` captured: tensors requiring grad are **params** (a model's
weights: read at every call, they get gradients), the rest **consts**.

A trace is the program for *these* shapes and dtypes, with the Python control
flow taken this time.  Control flow that depends on a value cannot be traced
(the branch not taken is not in the trace), so tracing refuses, with a
``TraceError`` naming what happened, everything that reads a traced value
into Python (guards):

* ``bool(t)``, ``t.item()``, ``float(t)``, ``int(t)``, ``t.tolist()``, ``t.numpy()``,
  ``np.asarray(t)`` and comparisons (``t > 0`` makes a mask that the trace would
  freeze) on a traced tensor;
* an op that draws randomness per call (``dropout``'s seed): the trace would
  replay the same mask;
* an array that appears in the graph as a constant made while tracing (from an
  input's ``.data``, say), unless it is an input's own array (``F.cross_entropy``
  reads its integer targets that way) or a number;
* an output that does not depend on the inputs (made under ``no_grad()`` or
  from ``.data``).

The value reads are refused through the tensor package's documented hook
(``minigrad.tensor.value_reads``): while ``fn`` runs, a watcher is active that
raises for a traced tensor; ``Tensor``'s methods stay as they are.

What cannot be seen: ``t.data`` read directly and used in Python.  ``jit``
falls back to running ``fn`` eagerly when tracing raises a ``TraceError``.
"""

from __future__ import annotations

import numpy as np

from ..core.modes import enable_grad
from ..core.node import next_id
from ..core.order import topological_order
from ..tensor import Tensor
from ..tensor.value_reads import VALUE_READS, watching_value_reads
from .ir import Eqn, Trace, Var

__all__ = ["trace", "TraceError", "GUARDED"]


class TraceError(RuntimeError):
    """``fn`` did something a trace cannot replay (see the module doc)."""


#: Tensor methods that read a value into Python; refused on traced tensors while tracing
GUARDED = VALUE_READS


def _refuse_reads(ids: set):
    """A value-read watcher refusing reads of a tensor this trace follows: one requiring
    grad (every tensor computed from a stand-in does) or a stand-in itself."""
    def refuse(t, method):
        if t.requires_grad or id(t) in ids:
            raise TraceError(
                f"jit.trace: {method}() reads a traced tensor's value into Python (e.g. an "
                f"`if` on it, or a mask from a comparison), so the trace would freeze one "
                f"branch. Keep values in tensor ops (minigrad.where, maximum, ...) or leave "
                f"this function eager")

    return refuse


def _stand_in(x, i):
    """A fresh leaf for input ``i`` sharing its array, requiring grad if it is floating."""
    data = x.data if isinstance(x, Tensor) else np.asarray(x)
    t = Tensor(data, dtype=data.dtype, name=getattr(x, "label", None) or f"x{i}")
    if data.dtype.kind == "f":
        t.requires_grad = True
    return t


def trace(fn, *inputs, name: str | None = None) -> Trace:
    """Run ``fn(*inputs)`` once and return its program (see the module doc).

    ``inputs`` are Tensors or arrays; ``fn`` returns a Tensor or a tuple of them.
    """
    stand_ins = [_stand_in(x, i) for i, x in enumerate(inputs)]
    start = next_id()
    with enable_grad(), watching_value_reads(_refuse_reads({id(t) for t in stand_ins})):
        result = fn(*stand_ins)
    outs = result if isinstance(result, (tuple, list)) else (result,)
    for o in outs:
        if not isinstance(o, Tensor):
            raise TraceError(f"jit.trace: {_fn_name(fn)} must return a Tensor or a tuple of "
                             f"Tensors, got {type(o).__name__}")
    return _program(fn, stand_ins, outs, start, name or _fn_name(fn))


def _fn_name(fn) -> str:
    return getattr(fn, "__name__", type(fn).__name__).replace("<lambda>", "f")


def _program(fn, stand_ins, outs, start, name) -> Trace:
    """The graph behind ``outs`` as equations, its leaves sorted into inputs, params, consts."""
    inputs = [Var(t.label or f"x{i}", "input", t.data.shape, t.data.dtype,
                  requires_grad=t.requires_grad) for i, t in enumerate(stand_ins)]
    by_node = {id(t): v for t, v in zip(stand_ins, inputs)}
    by_array = {id(t.data): v for t, v in zip(stand_ins, inputs)}
    params, consts, eqns = [], [], []
    for node in topological_order(outs):
        if id(node) in by_node:
            continue
        if node.op is None:
            by_node[id(node)] = _leaf(node, start, by_array, params, consts)
            continue
        attrs = node.attrs or None
        if attrs and "seed" in attrs:
            raise TraceError(f"jit.trace: op '{node.op.name}' draws new randomness at each "
                             f"call (its seed); a trace would replay the same draw")
        if attrs and "ctx" in attrs:
            raise TraceError(f"jit.trace: custom Function '{node.op.name}' keeps Python state "
                             f"(ctx) per call; jit cannot replay it")
        out = Var(f"%{len(eqns) + 1}", "op", node.data.shape, node.data.dtype)
        by_node[id(node)] = out
        eqns.append(Eqn(node.op, tuple(by_node[id(p)] for p in node.parents), out, attrs))
    outputs = []
    for o in outs:
        v = by_node[id(o)]
        if v.kind == "const" and inputs:
            raise TraceError(f"jit.trace: {name}'s output does not depend on its inputs (made "
                             f"under no_grad(), or from .data?); a trace would return it "
                             f"unchanged for every input")
        outputs.append(v)
    return Trace(inputs, params, consts, eqns, outputs, name)


def _leaf(node, start, by_array, params, consts) -> Var:
    """A leaf the graph reached that is not an input's stand-in."""
    data = node.data
    if node.id >= start and id(data) in by_array:  # an input's array, wrapped again
        return by_array[id(data)]
    if node.requires_grad:
        v = Var(f"p{len(params)}", "param", data.shape, data.dtype, node, True)
        params.append(v)
        return v
    if node.id >= start and data.ndim:
        raise TraceError(
            f"jit.trace: a constant array {data.dtype}{list(data.shape)} was made while "
            f"tracing; it may come from an input's values (e.g. through .data), which the "
            f"trace would freeze. Make it outside the function, or pass it as an input")
    v = Var(f"c{len(consts)}", "const", data.shape, data.dtype, node)
    consts.append(v)
    return v

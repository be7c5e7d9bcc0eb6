"""A trace as graph nodes, so that ``viz.draw(trace)`` draws it like any graph.

Each input, param and const becomes a leaf and each equation a node made by
its op (a fused equation by its fused op: one node), built with the one node
constructor.  Params and consts show their current values; inputs and
equation outputs hold none (a trace is a program, not a run): their ``data`` is
a ``NoValue``, an array of the traced shape and dtype (a broadcast view of one
zero: no memory) that tells renderers, by its ``no_value`` mark, not to show its
elements.
"""

from __future__ import annotations

import numpy as np

from ..core.node import init_node
from ..tensor import Tensor

__all__ = ["picture_nodes", "NoValue"]


class NoValue(np.ndarray):
    """A traced value's shape and dtype with no values: renderers show no ``data``."""

    no_value = True


def _placeholder(v):
    return np.broadcast_to(np.zeros((), v.dtype), v.shape).view(NoValue)


def picture_nodes(trace) -> list:
    """The trace's outputs as graph nodes (see the module doc)."""
    node = {}
    for v in (*trace.inputs, *trace.params, *trace.consts):
        data = _placeholder(v) if v.kind == "input" else v.value
        node[v] = init_node(object.__new__(Tensor), data, requires_grad=True, label=v.name)
    for e in trace.eqns:
        node[e.out] = init_node(object.__new__(Tensor), _placeholder(e.out), e.op,
                                tuple(node[v] for v in e.ins), (), e.attrs)
    return [node[v] for v in trace.outputs]

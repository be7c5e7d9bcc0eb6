"""Ops with several outputs (``split``, ``unbind``, ``max(dim=)``, ``topk``, a custom
``Function`` returning a tuple): one backward record, one node per output.

PyTorch gives every output of such an op the same ``grad_fn`` and an index,
``output_nr``; backward runs that ``grad_fn`` once, with one gradient per output.
minigrad keeps its rule "a node is a value plus how it was made" and spells the
same thing with two kinds of node:

* the **record**: one node for the op call, whose ``data`` is the tuple of
  outputs (``Outputs``), whose ``parents`` are the op's inputs and whose rule
  (the op's ``vjp``) takes *one gradient per output*;
* one **output** node per differentiable output: an ordinary node made by the
  tiny ``OUTPUT`` op, ``attrs={"output_nr": k}``, whose only parent is the record.

Why this shape: every engine loop (reference, fast, ready-queue, ``create_graph``),
every recorder and renderer already handles "a node with parents and a rule", so
they keep working; only *adding up* a record's gradient is new.  An output's rule
sends its gradient to the record as ``OutputGrads``, a tuple with that gradient
in slot ``k`` and ``None`` elsewhere; the engine adds contributions as it adds
any gradient (``+`` merges slot by slot), so when the record runs, its gradient
holds what each output received.  An output nobody used received nothing: its
slot is filled with zeros (``OutputGrads.filled``), PyTorch's semantics.  The
record runs once, after every output it has, because each output is its child.

Outputs that cannot carry a gradient (the integer ``indices`` of ``max``/``topk``)
get no output node: they are constants, as in PyTorch, and their slot stays None.
"""

from __future__ import annotations

from ..core.modes import grad_enabled
from ..core.node import init_node
from ..core.op import define_op
from ..engines.output_grads import OutputGrads, Outputs, differentiable
from . import forward_ad
from .tangents import output_tangent

__all__ = ["Outputs", "OutputGrads", "OUTPUT", "record_outputs", "multi_vjp",
           "is_record", "differentiable"]


def _output_forward(outs, output_nr=0):
    return outs[output_nr], ()


def _output_vjp(g, outs, output_nr=0):
    """∂(record)/∂(output k) is "slot k": the gradient goes to the record, in slot k."""
    return (OutputGrads.one(outs, output_nr, g),)


#: The op of an output node: picks output ``output_nr`` of its record (its one parent).
#: An internal op: it only runs on records, which ``record_outputs`` makes; its example
#: for the table tests (an output of ``split``) is in ``ops/tensor/multi.py``.
OUTPUT = define_op(
    internal=True, name="output", engine="tensor", symbol="→", forward=_output_forward,
    vjp=_output_vjp, linear=True,  # its tangent: slot k of the record's tangent
    formulas=("∂/∂record = the gradient, in output k's slot",),
    label=lambda a: f"[{a['output_nr']}]",
    doc="Output number output_nr of a multi-output op (PyTorch's output_nr).")


def is_record(node) -> bool:
    """Is ``node`` the record of a multi-output op call (its data the tuple of outputs)?"""
    return node.data.__class__ is Outputs


def record_outputs(cls, op, parents, outs, saved=(), attrs=None) -> tuple:
    """The nodes of an op call that produced ``outs``: one per output, in order.

    When the call is recorded (grad mode on, an input requiring grad) they share a
    record node; otherwise each output is a plain constant and no record exists.
    """
    outs = Outputs(outs)
    if not (grad_enabled() and any(p.requires_grad for p in parents)):
        nodes = tuple(init_node(object.__new__(cls), x) for x in outs)
        if forward_ad.active():  # forward mode needs no record
            _unrecorded_tangents(nodes, op, parents, outs, saved, attrs)
        return nodes
    record = init_node(object.__new__(cls), outs, op, tuple(parents), saved, attrs)
    keep = (outs,)
    return tuple(
        init_node(object.__new__(cls), x, OUTPUT, (record,), keep, {"output_nr": k})
        if differentiable(x) else init_node(object.__new__(cls), x)
        for k, x in enumerate(outs))


def _unrecorded_tangents(nodes, op, parents, outs, saved, attrs) -> None:
    """Inside a dual level, the outputs of an unrecorded call get their tangents from
    the op's forward rule (one tangent per output) with no record to hold them."""
    tangents = [forward_ad.tangent_of(p) for p in parents]
    if all(t is None for t in tangents):
        return
    total = output_tangent(op, [p.data for p in parents], outs, saved, attrs, tangents)
    for node, t in zip(nodes, total or ()):
        if t is not None:
            forward_ad.set_tangent(node, t)


def multi_vjp(rule):
    """A multi-output op's ``vjp`` from ``rule(grads, *saved, **attrs)``, where ``grads``
    has one gradient per output, zeros for the outputs that received none."""

    def vjp(g, *saved, **attrs):
        return rule(g.filled(), *saved, **attrs)

    vjp.__name__ = getattr(rule, "__name__", "vjp")
    vjp.__doc__ = rule.__doc__
    vjp.__wrapped__ = rule  # its signature is the rule's: it names the saved values
    return vjp

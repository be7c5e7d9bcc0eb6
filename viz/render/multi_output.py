"""How the renderers show an op with several outputs (``minigrad/autograd/outputs.py``).

Such an op call is one *record* node, whose outputs are nodes made by the tiny
``output`` op, one per output, each knowing its ``output_nr``.  In a picture the
record is the op node: it shows the op and what it produced (``→ (2, 3) · (1, 3)``),
not a value or a gradient of its own, and carries the class ``multi``; the edge from
it to output *k* is labelled ``k``, like PyTorch's ``output_nr``.
"""

from __future__ import annotations

import numpy as np

from minigrad.autograd.outputs import OUTPUT, is_record
from minigrad.engines.output_grads import OutputGrads, Outputs

from .numbers import format_shape

__all__ = ["is_record", "record_summary", "show_record", "output_nr", "edge_output_nr",
           "output_grads_label", "OutputGrads",
           "output_grads_text", "unused_outputs", "Outputs"]


def record_summary(node) -> str:
    """What a record node shows in place of a value: its outputs' shapes, in order."""
    parts = [format_shape(x.shape) if isinstance(x, np.ndarray) else "scalar"
             for x in node.data]
    return f"→ {len(parts)} output{'s' * (len(parts) != 1)}: " + " · ".join(parts)


def show_record(vn, node) -> None:
    """Make view node ``vn`` of record ``node`` an op node: its outputs' shapes where a
    value would be, no gradient field (each output shows its own), the outputs' kind.

    A record whose outputs have no nodes of their own (a PyTorch Node,
    ``viz.stepper.torch_recording``: ``holds_output_grads``) keeps its gradient field,
    one entry per output (``output_grads_label``)."""
    vn.data = record_summary(node)
    vn.shape = vn.dtype = vn.grad_norm = None
    if not getattr(node, "holds_output_grads", False):
        vn.grad = vn.grad_label = None
    vn.kind = "tensor" if any(isinstance(x, np.ndarray) for x in node.data) else "scalar"


def output_grads_label(og, fmt) -> str:
    """The ``grad …`` text of a record holding its outputs' gradients: ``grad (0: norm
    2.1000; 1: —)`` (``fmt`` writes one output's gradient as a node's field would)."""
    return "grad (" + "; ".join(f"{k}: {'—' if g is None else fmt(g)}"
                                for k, g in enumerate(og.grads)) + ")"


def output_nr(node) -> int | None:
    """Which output of its record ``node`` is (``None``: not an output of a multi-output op)."""
    if node.op is OUTPUT:
        return node.attrs["output_nr"]
    return None


def edge_output_nr(node, slot: int) -> int | None:
    """The output number written on the edge into ``node``'s input ``slot``: which output
    of a multi-output op it reads.  A minigrad output node says it itself (``output_nr``);
    a node that reads outputs directly lists them per input (``output_nrs``: a PyTorch
    Node's ``next_functions``, ``viz.stepper.torch_recording``)."""
    nrs = getattr(node, "output_nrs", None)
    if nrs is not None:
        return nrs[slot] if slot < len(nrs) else None
    return output_nr(node)


def output_grads_text(og, fmt) -> str:
    """A record's gradient (or, in forward mode, its tangent: ``Outputs``) in words, one
    entry per output (``fmt`` writes a value): ``(output 0: —; output 1: [[0.7864],
    [0.5966]])``; ``—``: nothing arrived (yet)."""
    parts = og.grads if isinstance(og, OutputGrads) else og
    return "(" + "; ".join(f"output {k}: {'—' if g is None else fmt(g)}"
                           for k, g in enumerate(parts)) + ")"


def unused_outputs(og) -> list[int]:
    """The outputs no gradient reached, whose gradient the op's backward takes as zeros."""
    return [k for k, g in enumerate(og.grads) if g is None]

"""Forward values of a torch computation, captured while it runs (``step_through(f, x)``).

PyTorch keeps no forward value in its autograd Nodes: ``MulBackward0`` knows what it
saved for backward, not what ``x * w`` was.  So the stepper watches the forward call
itself: ``capture_forward()`` is a ``torch.overrides.TorchFunctionMode``, which sees
every torch function ``f`` calls (``torch.mul``, ``Tensor.__mul__``, ``F.linear`` ...)
with its arguments and its result.  Each result tensor that has a ``grad_fn`` is that
Node's output number ``t.output_nr`` (``split``'s pieces: 0, 1, ...), so its value is
copied to numpy under ``(grad_fn, output_nr)``.

Why a function mode and not ``TorchDispatchMode``: a dispatch mode runs below
autograd, where results have no ``grad_fn`` yet to match them with.  What a function
mode cannot see: the Nodes a function makes *inside* one call (``F.linear`` on a 2-D
input makes ``AddmmBackward0`` and the ``TBackward0`` of its weight in one call; only
the call's result, the addmm, is seen).  Such a Node keeps "(no value)", as does every
op of ``step_through(loss)``, which starts from a graph already built.

The call's tensor and number arguments are kept too (no-grad ones as numpy copies):
``input_value(fn, slot)`` gives the value of an input that needs no gradient (the
``2.0`` of ``x * 2.0``), when the arguments line up with ``fn.next_functions`` and
every other input is the tensor that Node reads.

A capture never changes what ``f`` computes: it returns each result as it came, and
a value it cannot copy is skipped.
"""

from __future__ import annotations

import numbers

import numpy as np

from ..render.torch_graph import host_array, is_leaf_node, node_inputs

__all__ = ["capture_forward", "ForwardValues"]


class ForwardValues:
    """What a capture saw: ``values`` ``{(grad_fn, output_nr): numpy array}`` and
    ``calls`` ``{grad_fn: the call's tensor and number arguments, in order}``."""

    def __init__(self):
        self.values: dict = {}
        self.calls: dict = {}

    def value(self, fn, nr: int = 0):
        """Output ``nr`` of Node ``fn`` as computed (``None``: not seen)."""
        return self.values.get((fn, nr))

    def input_value(self, fn, slot: int):
        """The value of ``fn``'s no-grad input ``slot`` (``None``: cannot be told)."""
        args = self.calls.get(fn)
        inputs = node_inputs(fn)
        if args is None or len(args) != len(inputs):
            return None
        for (parent, _), (_, arg) in zip(inputs, args):
            if parent is None:
                continue
            reads = (arg is parent.variable if is_leaf_node(parent)
                     else getattr(arg, "grad_fn", None) is parent)
            if not reads:
                return None  # the arguments are not the Node's inputs in order
        return args[slot][0]

    def see(self, out, args, torch) -> None:
        outs = out if isinstance(out, (tuple, list)) else (out,)
        seen = []
        for o in outs:
            fn = getattr(o, "grad_fn", None) if isinstance(o, torch.Tensor) else None
            if fn is None:
                continue
            try:
                nr = int(o.output_nr)
            except Exception:
                nr = 0
            a = host_array(o)
            if a is not None:
                self.values[(fn, nr)] = np.array(a, copy=True)
            seen.append(fn)
        for fn in dict.fromkeys(seen):
            if fn not in self.calls:
                self.calls[fn] = _arguments(args, torch)


def _arguments(args, torch) -> tuple:
    """``((value, the argument itself), ...)`` for the tensor and number arguments: a
    no-grad tensor's value as a numpy copy (it may change later), a number as itself."""
    out = []
    for a in args:
        if isinstance(a, torch.Tensor):
            out.append((None if a.requires_grad else host_array(a), a))
        elif isinstance(a, numbers.Number) and not isinstance(a, bool):
            out.append((a, a))
    return tuple(out)


def capture_forward(torch):
    """A ``TorchFunctionMode`` that fills a ``ForwardValues`` (its ``.seen``):
    ``with capture_forward(torch) as mode: loss = f(x)``, then ``mode.seen``."""
    from torch.overrides import TorchFunctionMode

    class _Capture(TorchFunctionMode):
        def __init__(self):
            super().__init__()
            self.seen = ForwardValues()

        def __torch_function__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            try:
                self.seen.see(out, args, torch)
            except Exception:  # never let the view break the user's function
                pass
            return out

    return _Capture()

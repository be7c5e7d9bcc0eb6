"""Exercise 12 · custom Functions with ctx.save_for_backward (lesson 6).

A ``minigrad.Function`` subclass is an op you define yourself, PyTorch style:

* ``forward(ctx, *inputs)`` gets the input Tensors (use ``x.data``, a numpy
  array) and returns the output (an array); it runs with grad mode off.
* ``ctx.save_for_backward(...)`` keeps what backward will need.  What you save
  is not the same as the parents: the engine already knows the parents; you
  choose whether the rule needs the inputs, the output, or something else.
  Saved values are released after backward (``retain_graph=False``); anything
  you store as a plain attribute on ``ctx`` stays alive as long as the graph.
* ``backward(ctx, grad_out)`` gets the upstream gradient (a Tensor), reads
  ``ctx.saved_tensors`` (what you saved: Tensors come back as Tensors, numpy
  arrays as arrays; mind that an array's ``.data`` is a raw buffer, not numbers),
  and returns one gradient per input (arrays or Tensors), each of that input's
  shape (or a broadcast shape: the engine sums it down for you).

``MyOp.apply(x)`` runs forward and records one graph node that the renderers
draw with the class name, like any built-in op.

Part 1.  ``Softplus``: ``softplus(x) = log(1 + e^x)``, a smooth ReLU, with
``∂/∂x = e^x / (1 + e^x) = σ(x)``.  Compute it stably (``e^1000`` overflows):
``log(1 + e^x) = max(x, 0) + log(1 + e^−|x|)`` (``np.log1p``).  Keep the dtype
(float32 in, float32 out).  Save what backward needs with ``save_for_backward``.

Part 2.  ``Hypot``: ``hypot(a, b) = √(a² + b²)``, two inputs, with
``∂/∂a = a / out`` and ``∂/∂b = b / out``.  Return both gradients as a tuple.
``a`` and ``b`` may broadcast against each other (``(3, 4)`` with ``(4,)``).

Check it:  python -m exercises ex12   (in a notebook: ``check("ex12")``)
"""

import numpy as np  # noqa: F401  (you will want it)

from minigrad import Function

__all__ = ["Softplus", "Hypot"]


class Softplus(Function):
    """softplus(x) = log(1 + e^x);  ∂/∂x = σ(x)"""

    @staticmethod
    def forward(ctx, x):
        raise NotImplementedError

    @staticmethod
    def backward(ctx, grad_out):
        raise NotImplementedError


class Hypot(Function):
    """hypot(a, b) = √(a² + b²);  ∂/∂a = a/out,  ∂/∂b = b/out"""

    @staticmethod
    def forward(ctx, a, b):
        raise NotImplementedError

    @staticmethod
    def backward(ctx, grad_out):
        raise NotImplementedError

"""Exercise 24 · fuse an elementwise chain by hand, forward and backward (lesson 14).

The chain of lesson 14, on numpy arrays ``x, y, z`` of one shape and dtype:

    b = x·y + z        t = tanh(b)        out = exp(t · 0.5 − x)

Eagerly, each of the 6 ops allocates a fresh array and the graph keeps what each
op saved.  A fused kernel allocates only what it returns, and writes every other
step into a buffer it already has (numpy's ``out=``: ``np.tanh(t, out=t)``).

Part 1.  ``fused_forward(x, y, z)`` returns ``(out, t)``: the result, and ``t``, the
one intermediate the backward needs.  Allocate at most those two arrays (the
check measures the peak memory of a call with ``tracemalloc``; the one-line
``np.exp(np.tanh(x * y + z) * 0.5 - x)`` holds three at its peak).  Keep the
inputs' dtype, and do not write into the inputs.

Part 2.  ``fused_backward(g, x, y, t, out)`` returns ``(gx, gy, gz)``, the gradients
of ``sum(g · out)`` (``g`` is the upstream gradient, an array shaped like ``out``).
Work the chain rule back through the chain, last op first:

    ∂out/∂(t·0.5 − x) = out        ∂t/∂b = 1 − t²        ∂b/∂x = y,  ∂b/∂y = x,  ∂b/∂z = 1

and ``x`` is read twice (by ``x·y`` and by ``− x``): its gradient adds both paths.
Do not write into ``g``, ``t`` or ``out``: the caller still owns them.  The check
compares with eager minigrad's gradients.

Check it:  python -m exercises ex24   (in a notebook: ``check("ex24")``)
"""

import numpy as np  # noqa: F401  (you will want it)

__all__ = ["fused_forward", "fused_backward"]


def fused_forward(x, y, z):
    """``(out, t)``: ``out = exp(tanh(x·y + z)·0.5 − x)`` and ``t = tanh(x·y + z)``."""
    raise NotImplementedError


def fused_backward(g, x, y, t, out):
    """``(gx, gy, gz)``: the gradients of ``sum(g · out)``, from the saved ``t`` and ``out``."""
    raise NotImplementedError

"""Reference solution for exercise 12 (custom Functions with ctx.save_for_backward)."""

import numpy as np

from minigrad import Function

__all__ = ["Softplus", "Hypot"]


class Softplus(Function):
    """softplus(x) = log(1 + e^x);  ∂/∂x = σ(x)"""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        d = x.data
        return np.maximum(d, 0) + np.log1p(np.exp(-np.abs(d)))

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        sigmoid = np.exp(-np.logaddexp(0, -x.data))  # 1 / (1 + e^−x), without overflow
        return grad_out.data * sigmoid


class Hypot(Function):
    """hypot(a, b) = √(a² + b²);  ∂/∂a = a/out,  ∂/∂b = b/out"""

    @staticmethod
    def forward(ctx, a, b):
        out = np.sqrt(a.data * a.data + b.data * b.data)
        ctx.save_for_backward(a, b, out)
        return out

    @staticmethod
    def backward(ctx, grad_out):
        a, b, out = ctx.saved_tensors  # Tensors come back as Tensors, arrays as arrays
        g = grad_out.data / out
        return g * a.data, g * b.data  # in the broadcast shape: the engine sums it down

"""Wrong answers that ``checks/ex12_custom_function.py`` must reject (lesson 6)."""

from __future__ import annotations

import numpy as np

from ._registry import MISTAKES, Mistake


def _softplus(save=True, stable=True, use_g=True, float64=False):
    from minigrad import Function

    class Softplus(Function):
        """softplus(x) = log(1 + e^x);  ∂/∂x = σ(x)"""

        @staticmethod
        def forward(ctx, x):
            d = x.data.astype(np.float64) if float64 else x.data
            if save:
                ctx.save_for_backward(x)
            else:
                ctx.x = x  # the mistake: lives as long as the graph, never released
            if stable:
                return np.maximum(d, 0) + np.log1p(np.exp(-np.abs(d)))
            return np.log(1 + np.exp(d))

        @staticmethod
        def backward(ctx, grad_out):
            (x,) = ctx.saved_tensors if save else (ctx.x,)
            sigmoid = np.exp(-np.logaddexp(0, -x.data))
            return (grad_out.data if use_g else 1.0) * sigmoid

    return Softplus


def _hypot(swap=False, only_a=False, use_g=True):
    from minigrad import Function

    class Hypot(Function):
        """hypot(a, b) = √(a² + b²)"""

        @staticmethod
        def forward(ctx, a, b):
            out = np.sqrt(a.data**2 + b.data**2)
            ctx.save_for_backward(a, b, out)
            return out

        @staticmethod
        def backward(ctx, grad_out):
            a, b, out = ctx.saved_tensors
            g = (grad_out.data if use_g else 1.0) / out
            ga, gb = g * a.data, g * b.data
            if only_a:
                return ga
            return (gb, ga) if swap else (ga, gb)

    return Hypot


def _softplus_backward_exp_ratio():
    from exercises.solutions.ex12_custom_function import Softplus

    class Ratio(Softplus):
        @staticmethod
        def backward(ctx, grad_out):
            (x,) = ctx.saved_tensors
            return grad_out.data * np.exp(x.data) / (1 + np.exp(x.data))  # inf/inf at x ≫ 0

    return Ratio


MISTAKES[("ex12", "Softplus")] = [
    Mistake("keeps x on ctx instead of save_for_backward", _softplus(save=False),
            "save_for_backward"),
    Mistake("log(1 + e^x) overflows", _softplus(stable=False), "not finite"),
    Mistake("forgets grad_out", _softplus(use_g=False), "upstream gradient g"),
    Mistake("float64 output for float32 input", _softplus(float64=True), "float32"),
    Mistake("backward e^x / (1 + e^x): nan for x ≫ 0", _softplus_backward_exp_ratio(),
            "1 / (1 + e^−x) there"),
]
MISTAKES[("ex12", "Hypot")] = [
    Mistake("gradients swapped", _hypot(swap=True), "∂hypot/∂a"),
    Mistake("returns one gradient", _hypot(only_a=True), "returned 1 gradients"),
    Mistake("forgets grad_out", _hypot(use_g=False), "times grad_out"),
]

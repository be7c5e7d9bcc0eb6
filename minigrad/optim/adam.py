"""Adam and AdamW: per-parameter step sizes from running gradient moments.

At step t, with gradient g (PyTorch's formulation, eps outside the square root):

    m = β₁ m + (1 − β₁) g                 running mean of gradients
    v = β₂ v + (1 − β₂) g²                running mean of squared gradients
    m̂ = m / (1 − β₁ᵗ),  v̂ = v / (1 − β₂ᵗ)  bias correction: m, v start at 0
    p = p − lr · m̂ / (√v̂ + ε)

Dividing by √v̂ gives every parameter its own scale, so one learning rate
suits layers whose gradients differ by orders of magnitude.

Weight decay: ``Adam`` adds ``weight_decay · p`` to g (an L2 penalty, which
the √v̂ division then rescales); ``AdamW`` instead shrinks the parameter
directly, ``p = p − lr · weight_decay · p``, decoupled from the gradient
statistics (Loshchilov & Hutter), which usually regularises better.
"""

from __future__ import annotations

import math

import numpy as np

from .optimizer import Optimizer, check_number

__all__ = ["Adam", "AdamW"]


class Adam(Optimizer):
    _decoupled = False

    def __init__(self, params, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0.0, amsgrad: bool = False):
        if isinstance(betas, (list, tuple)):
            betas = tuple(betas)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps,
                                      weight_decay=weight_decay, amsgrad=amsgrad))

    def _check_hyperparameters(self, group: dict) -> None:
        name = type(self).__name__
        for key in ("lr", "eps", "weight_decay"):
            check_number(name, key, group[key], minimum=0)
        betas = group["betas"]
        if not isinstance(betas, (list, tuple)) or len(betas) != 2:
            raise ValueError(f"{name}: betas must be two numbers in [0, 1), got {betas!r}")
        for i, b in enumerate(betas):
            check_number(name, f"betas[{i}]", b)
            if not 0.0 <= b < 1.0:
                raise ValueError(f"{name}: betas must be two numbers in [0, 1), got {betas}")

    def _update(self, p, g, group, state) -> None:
        lr, (b1, b2), eps, wd = group["lr"], group["betas"], group["eps"], group["weight_decay"]
        if wd:
            if self._decoupled:
                p.data *= 1 - lr * wd
            else:
                g = g + wd * p.data
        if not state:
            state["step"] = 0
            state["exp_avg"] = np.zeros_like(p.data)
            state["exp_avg_sq"] = np.zeros_like(p.data)
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = np.zeros_like(p.data)
        state["step"] += 1
        t = state["step"]
        m, v = state["exp_avg"], state["exp_avg_sq"]
        m *= b1
        m += (1 - b1) * g
        v *= b2
        v += (1 - b2) * (g * g)
        if group["amsgrad"]:
            np.maximum(state["max_exp_avg_sq"], v, out=state["max_exp_avg_sq"])
            v = state["max_exp_avg_sq"]
        bias1 = 1 - b1**t
        bias2 = 1 - b2**t
        denom = np.sqrt(v)
        denom /= math.sqrt(bias2)
        denom += eps
        p.data -= (lr / bias1) * (m / denom)


class AdamW(Adam):
    _decoupled = True

    def __init__(self, params, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 1e-2, amsgrad: bool = False):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad)

"""Stochastic gradient descent, with momentum, Nesterov momentum and weight decay.

With gradient g, parameter p, learning rate lr (PyTorch's formulation):

    d = g + weight_decay · p                        (L2 penalty, optional)
    b = momentum · b + (1 − dampening) · d          (b = d at the first step)
    d = d + momentum · b   if nesterov  else  b
    p = p − lr · d

Momentum averages recent gradients, so steps keep going where gradients agree
and cancel where they oscillate; Nesterov evaluates that average one step ahead.
"""

from __future__ import annotations

import numpy as np

from .optimizer import Optimizer, check_number, checked_grad

__all__ = ["SGD"]


class SGD(Optimizer):
    def __init__(self, params, lr: float = 0.01, momentum: float = 0.0, dampening: float = 0.0,
                 weight_decay: float = 0.0, nesterov: bool = False):
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening,
                                      weight_decay=weight_decay, nesterov=nesterov))

    def _check_hyperparameters(self, group: dict) -> None:
        for key in ("lr", "momentum", "weight_decay"):
            check_number("SGD", key, group[key], minimum=0)
        check_number("SGD", "dampening", group["dampening"])
        if group["nesterov"] and (group["momentum"] <= 0 or group["dampening"] != 0):
            raise ValueError("SGD: nesterov momentum needs momentum > 0 and dampening = 0")

    def _step_group(self, group) -> None:
        if group["momentum"] or group["weight_decay"]:
            return super()._step_group(group)
        lr = group["lr"]  # plain SGD, the common case: p -= lr·g, no state
        for p in group["params"]:
            g = p.grad
            if g is not None:
                if g.__class__ is not np.ndarray or g.shape != p.data.shape:
                    g = checked_grad(self, g, p)
                p.data -= lr * g

    def _update(self, p, g, group, state) -> None:
        lr, momentum, wd = group["lr"], group["momentum"], group["weight_decay"]
        d = g + wd * p.data if wd else g
        if momentum:
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = state["momentum_buffer"] = d.astype(p.data.dtype, copy=True)
            else:
                buf *= momentum
                buf += (1 - group["dampening"]) * d
            d = d + momentum * buf if group["nesterov"] else buf
        p.data -= lr * d

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

from .optimizer import Optimizer, _grad_shape_error

__all__ = ["SGD"]


class SGD(Optimizer):
    def __init__(self, params, lr: float = 0.01, momentum: float = 0.0, dampening: float = 0.0,
                 weight_decay: float = 0.0, nesterov: bool = False):
        if lr < 0 or momentum < 0 or weight_decay < 0:
            raise ValueError(f"SGD: lr, momentum and weight_decay must be >= 0, got lr={lr}, "
                             f"momentum={momentum}, weight_decay={weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("SGD: nesterov momentum needs momentum > 0 and dampening = 0")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening,
                                      weight_decay=weight_decay, nesterov=nesterov))

    def _step_group(self, group) -> None:
        if group["momentum"] or group["weight_decay"]:
            return super()._step_group(group)
        lr = group["lr"]  # plain SGD, the common case: p -= lr·g, no state
        for p in group["params"]:
            g = p.grad
            if g is not None:
                if g.shape != p.data.shape:
                    raise _grad_shape_error(self, g, p)
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

"""``train_step(loss_fn, optimizer)``: a whole training step compiled, with no graph built.

    step = jit.train_step(lambda x, y: F.cross_entropy(model(x), y), opt)
    for x, y in batches:
        loss = step(x, y)           # a Tensor with no graph

does what the readable loop does, with the same bits
(``tests/minigrad/jit/test_train_step.py``):

    loss = loss_fn(x, y)
    opt.zero_grad()
    loss.backward()
    opt.step()

``loss_fn`` is traced and compiled as ``jit`` does it (one program per input
signature, the same fallback to eager code).  A call runs the generated
forward, then the generated backward seeded with 1, stores each param's
gradient as its ``.grad`` (the backward returns new arrays: nothing to copy)
and calls ``optimizer.step()``.  What ``jit`` alone still pays per step, the
graph node, the engine's walk and ``zero_grad``'s loop, is gone.  Params the
optimizer does not hold, and inputs that require grad, accumulate their
gradients, as with ``backward()``.
"""

from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from .api import Jitted
from .passes import optimize

__all__ = ["train_step", "TrainStep"]


class TrainStep:
    """``loss_fn`` compiled with its backward, followed by ``optimizer.step()``."""

    def __init__(self, loss_fn, optimizer, passes=optimize, backend: str | None = None):
        self.jitted = Jitted(loss_fn, passes, backend)
        self.optimizer = optimizer
        self.stats = self.jitted.stats

    def __call__(self, *args) -> Tensor:
        compiled, arrays = self.jitted.program(args)
        opt = self.optimizer
        if compiled is None:  # this signature runs eagerly: the readable loop itself
            loss = self.jitted.fn(*args)
            opt.zero_grad()
            loss.backward()
            opt.step()
            return Tensor(loss.data, dtype=loss.data.dtype)
        datas = compiled.trace.check_inputs(args)
        out, saved = compiled.op.forward(*datas, *arrays)
        if out.shape != ():
            raise ValueError(f"train_step: {compiled.trace.name} must return a scalar loss, "
                             f"got shape {out.shape}")
        opt.zero_grad()  # (before the backward: the old gradients' memory is free for it)
        grads = compiled.op.vjp(np.ones_like(out), *saved)
        del saved
        for t, g in zip((*args, *compiled.params), grads):
            if g is not None:  # (a gradient left after zero_grad: not the optimizer's param)
                t.grad = g if t.grad is None else np.asarray(t.grad + g)
        opt.step()
        return Tensor(np.asarray(out), dtype=out.dtype)


def train_step(loss_fn, optimizer, *, passes=optimize, backend: str | None = None) -> TrainStep:
    """``loss_fn`` compiled into one training step with ``optimizer`` (see the module doc)."""
    return TrainStep(loss_fn, optimizer, passes, backend)

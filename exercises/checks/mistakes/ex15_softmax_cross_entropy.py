"""Wrong answers that ``checks/ex15_softmax_cross_entropy.py`` must reject (lesson 9)."""

from __future__ import annotations

import numpy as np

from ._registry import mistake


def _softmax(z):
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@mistake("ex15", "cross_entropy", "no max subtraction", "maximum")
def _naive_loss(logits, targets):
    p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    return float(-np.log(p[np.arange(len(targets)), targets]).mean())


def _per_example_loss(logits, targets):
    return -np.log(_softmax(logits)[np.arange(len(targets)), targets])


mistake("ex15", "cross_entropy", "per-example losses (no mean)", "mean over the batch")(
    _per_example_loss)
mistake("ex15", "cross_entropy", "no return", "returned None")(lambda logits, targets: None)
mistake("ex15", "cross_entropy", "sum, not mean", "*mean*")(
    lambda logits, targets: float(_per_example_loss(logits, targets).sum()))


def _ce_grad(g, z, y, n=True, sign=-1.0, stable=True, use_g=True):
    p = _softmax(z) if stable else np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    p[np.arange(len(y)), y] += sign
    return p * (g if use_g else 1.0) / (len(y) if n else 1)


mistake("ex15", "cross_entropy_backward", "forgets 1/N", "divide by N")(
    lambda g, logits, targets: _ce_grad(g, logits, targets, n=False))
mistake("ex15", "cross_entropy_backward", "forgets g", "upstream gradient g")(
    lambda g, logits, targets: _ce_grad(g, logits, targets, use_g=False))
mistake("ex15", "cross_entropy_backward", "adds the one-hot", "onehot")(
    lambda g, logits, targets: _ce_grad(g, logits, targets, sign=1.0))
mistake("ex15", "cross_entropy_backward", "overflows", "maximum")(
    lambda g, logits, targets: _ce_grad(g, logits, targets, stable=False))

"""A 2-D classifier's decision on a grid of points: the boundary a live view draws.

The model is asked for its class at ``size × size`` points covering the data (with a
margin). A ``Tensor`` model takes the whole grid as one batch under ``no_grad``. A scalar
engine ``MLP`` of ``Value`` s would build a graph per point (hundreds of nodes each,
thousands of points per frame), so its grid is computed with numpy from the neurons'
current weights: the same sums ``act(w · x + b)`` the ``Neuron`` computes, with no graph.
Any other callable is asked point by point.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

__all__ = ["Grid", "decision_grid", "classes_of", "eval_mode"]


@contextmanager
def eval_mode(model):
    """The model in eval mode for a look that must leave no trace (no dropout, and batch
    norm's running statistics untouched), then back in the mode it was in."""
    was_training = getattr(model, "training", None)
    if was_training and hasattr(model, "eval"):
        model.eval()
    try:
        yield model
    finally:
        if was_training and hasattr(model, "train"):
            model.train()


@dataclass
class Grid:
    """``classes[i, j]`` is the class at ``(xs[j], ys[i])``."""

    xs: np.ndarray
    ys: np.ndarray
    classes: np.ndarray


def classes_of(scores: np.ndarray) -> np.ndarray:
    """Scores ``(M, C)`` to classes: argmax, or ``score > 0`` for one score (a logit or a
    ±1 margin) per point."""
    scores = np.asarray(scores, dtype=np.float64).reshape(len(scores), -1)
    if scores.shape[1] == 1:
        return (scores[:, 0] > 0).astype(np.int64)
    return scores.argmax(axis=1)


def decision_grid(model, X, size: int = 40, padding: float = 0.5) -> Grid:
    """The model's class on a ``size × size`` grid around ``X`` (shape ``(N, 2)``)."""
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(f"decision_grid: X must have shape (N, 2), got {X.shape}")
    lo, hi = X.min(axis=0) - padding, X.max(axis=0) + padding
    xs, ys = np.linspace(lo[0], hi[0], size), np.linspace(lo[1], hi[1], size)
    xx, yy = np.meshgrid(xs, ys)
    points = np.column_stack([xx.ravel(), yy.ravel()])
    with eval_mode(model):
        scores = _scores(model, points)
    return Grid(xs, ys, classes_of(scores).reshape(size, size))


def _scores(model, points: np.ndarray) -> np.ndarray:
    from minigrad import Tensor, Value, no_grad

    params = list(model.parameters()) if hasattr(model, "parameters") else []
    if params and isinstance(params[0], Value) and _is_neuron_mlp(model):
        return _neuron_mlp_scores(model, points)
    with no_grad():
        if params and isinstance(params[0], Tensor):
            dtype = params[0].data.dtype
            return np.asarray(model(Tensor(points.astype(dtype))).data)
        rows = [model([float(a), float(b)]) for a, b in points]
    return np.array([[getattr(v, "data", v) for v in np.atleast_1d(np.asarray(r, dtype=object))]
                     for r in rows], dtype=np.float64)


def _is_neuron_mlp(model) -> bool:
    layers = getattr(model, "layers", None)
    return bool(layers) and all(
        hasattr(layer, "neurons")
        and all(hasattr(n, "w") and hasattr(n, "b") for n in layer.neurons)
        for layer in layers)


def _neuron_mlp_scores(model, points: np.ndarray) -> np.ndarray:
    h = points
    for layer in model.layers:
        W = np.array([[w.data for w in n.w] for n in layer.neurons])  # (out, in)
        b = np.array([n.b.data for n in layer.neurons])
        h = h @ W.T + b
        nonlin = [bool(getattr(n, "nonlin", False)) for n in layer.neurons]
        h = np.where(np.array(nonlin)[None, :], np.maximum(h, 0.0), h)
    return h

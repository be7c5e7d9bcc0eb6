"""Reference solution for exercise 27 (diagnose a training run from its live view)."""

import numpy as np

__all__ = ["diagnose"]


def diagnose(summary: dict) -> str:
    """``"dead relu"``, ``"vanishing gradients"``, ``"lr too high"`` or ``"fine"``."""
    layers = summary["layers"]
    if any(all(d == 1.0 for d in summary["dead"][name][-3:]) for name in layers):
        return "dead relu"
    grads = summary["grad_abs_mean"]
    if np.median(grads[layers[0]]) < np.median(grads[layers[-1]]) / 100:
        return "vanishing gradients"
    per_layer = [np.nanmedian(summary["ratio"][name]) for name in layers]
    if np.median(per_layer) > 3e-2:
        return "lr too high"
    return "fine"

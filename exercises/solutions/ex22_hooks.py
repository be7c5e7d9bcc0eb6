"""Reference solution for exercise 22 (saved values in half precision, clipped gradients)."""

import numpy as np

__all__ = ["half_precision_hooks", "clip_gradients"]


def half_precision_hooks() -> tuple:
    """``(pack, unpack)``: float32 saved values stored as float16, the rest as they are."""

    def pack(x):
        if isinstance(x, np.ndarray) and x.dtype == np.float32:
            return x.astype(np.float16)
        return x

    def unpack(p):
        if isinstance(p, np.ndarray) and p.dtype == np.float16:
            return p.astype(np.float32)
        return p

    return pack, unpack


def clip_gradients(params, max_norm: float) -> list:
    """Register a hook on each of ``params`` that scales its gradient to norm at most
    ``max_norm``; return the handles."""

    def clip(g):
        norm = float(np.sqrt(np.sum(g * g)))
        if norm <= max_norm:
            return None
        return g * (max_norm / norm)  # (a Python float keeps g's dtype)

    return [p.register_hook(clip) for p in params]

"""Loss modules: ``loss_fn = CrossEntropyLoss(); loss = loss_fn(logits, targets)``.

Each is a parameter-free ``Module`` around the fused op in
``minigrad.nn.functional.losses`` (see there for the math and its stability).
"""

from __future__ import annotations

from . import functional as F
from .module import Module

__all__ = ["MSELoss", "CrossEntropyLoss", "NLLLoss", "BCELoss", "BCEWithLogitsLoss"]


class _Loss(Module):
    _fn = None

    def __init__(self, reduction: str = "mean"):
        super().__init__()
        if reduction not in ("mean", "sum", "none"):
            raise ValueError(f"{type(self).__name__}: reduction must be 'mean', 'sum' or "
                             f"'none', got {reduction!r}")
        self.reduction = reduction

    def forward(self, input, target):
        return type(self)._fn(input, target, reduction=self.reduction)

    def extra_repr(self) -> str:
        return "" if self.reduction == "mean" else f"reduction={self.reduction!r}"


class MSELoss(_Loss):
    """mean((input − target)²)."""

    _fn = staticmethod(F.mse_loss)


class CrossEntropyLoss(_Loss):
    """Softmax cross-entropy of (N, C) logits against integer targets (N,)."""

    _fn = staticmethod(F.cross_entropy)


class NLLLoss(_Loss):
    """Negative log-likelihood of (N, C) log-probabilities against integer targets."""

    _fn = staticmethod(F.nll_loss)


class BCELoss(_Loss):
    """Binary cross-entropy of probabilities in [0, 1]."""

    _fn = staticmethod(F.binary_cross_entropy)


class BCEWithLogitsLoss(_Loss):
    """Sigmoid + binary cross-entropy, fused and stable for any logit."""

    _fn = staticmethod(F.binary_cross_entropy_with_logits)

"""Utilities under PyTorch's names: ``minigrad.utils.checkpoint`` (also ``minigrad.checkpoint``)."""

from . import checkpoint

__all__ = ["checkpoint"]

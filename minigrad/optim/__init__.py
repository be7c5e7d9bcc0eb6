"""Optimizers and learning-rate schedules, with PyTorch's names and update rules."""

from .adam import Adam, AdamW
from .lr_scheduler import CosineAnnealingLR, LRScheduler, StepLR
from .optimizer import Optimizer
from .sgd import SGD

__all__ = ["Adam", "AdamW", "CosineAnnealingLR", "LRScheduler", "Optimizer", "SGD", "StepLR"]

"""Learning-rate schedules: call ``scheduler.step()`` once per epoch, after ``optimizer.step()``.

``StepLR`` multiplies the rate by ``gamma`` every ``step_size`` epochs;
``CosineAnnealingLR`` follows half a cosine from the initial rate down to
``eta_min`` over ``T_max`` epochs:

    lr(t) = η_min + (lr₀ − η_min) · (1 + cos(π t / T_max)) / 2

Both are closed forms of the epoch counter, so ``state_dict()`` is just that
counter and resuming a run gives the same rates.
"""

from __future__ import annotations

import math

from .optimizer import check_number

__all__ = ["LRScheduler", "StepLR", "CosineAnnealingLR"]


def _epochs(owner: str, name: str, value) -> int:
    """A positive whole number of epochs; ``10.0`` is accepted, ``2.5`` is not silently cut to 2."""
    check_number(owner, name, value, minimum=1)
    if value != int(value):
        raise ValueError(f"{owner}: {name} must be a whole number of epochs, got {value}")
    return int(value)


class LRScheduler:
    def __init__(self, optimizer, last_epoch: int = -1):
        if not hasattr(optimizer, "param_groups"):
            raise TypeError(f"{type(self).__name__} expects an Optimizer, got "
                            f"{type(optimizer).__name__}")
        check_number(type(self).__name__, "last_epoch", last_epoch, minimum=-1, integer=True)
        self.optimizer = optimizer
        self.base_lrs = [g["initial_lr"] for g in optimizer.param_groups]
        self.last_epoch = last_epoch
        self.step()

    def lr_at(self, base_lr: float, epoch: int) -> float:  # pragma: no cover - abstract
        raise NotImplementedError

    def step(self) -> None:
        self.last_epoch += 1
        for group, base in zip(self.optimizer.param_groups, self.base_lrs):
            group["lr"] = self.lr_at(base, self.last_epoch)

    def get_last_lr(self) -> list[float]:
        return [g["lr"] for g in self.optimizer.param_groups]

    def state_dict(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state: dict) -> None:
        self.__dict__.update(state)
        for group, base in zip(self.optimizer.param_groups, self.base_lrs):
            group["lr"] = self.lr_at(base, self.last_epoch)


class StepLR(LRScheduler):
    """lr = lr₀ · gamma ** (epoch // step_size)."""

    def __init__(self, optimizer, step_size: int, gamma: float = 0.1, last_epoch: int = -1):
        self.step_size = _epochs("StepLR", "step_size", step_size)
        self.gamma = float(check_number("StepLR", "gamma", gamma))
        super().__init__(optimizer, last_epoch)

    def lr_at(self, base_lr, epoch):
        return base_lr * self.gamma ** (epoch // self.step_size)


class CosineAnnealingLR(LRScheduler):
    """Half a cosine from lr₀ to eta_min over T_max epochs (then back up, like PyTorch)."""

    def __init__(self, optimizer, T_max: int, eta_min: float = 0.0, last_epoch: int = -1):
        self.T_max = _epochs("CosineAnnealingLR", "T_max", T_max)
        self.eta_min = float(check_number("CosineAnnealingLR", "eta_min", eta_min))
        super().__init__(optimizer, last_epoch)

    def lr_at(self, base_lr, epoch):
        return self.eta_min + (base_lr - self.eta_min) * (
            1 + math.cos(math.pi * epoch / self.T_max)) / 2

"""PyTorch stays optional: torch is imported only inside the functions that need it.

``import minigrad`` must not import torch (it takes a second or more and is not a
dependency), so nothing here imports it at module level.  A torch tensor or module is
recognised by its class's module name (``type(x).__mro__``), which needs no import: if
the caller holds a torch tensor, torch is loaded already; if not, the answer is "no".
"""

from __future__ import annotations

import importlib

__all__ = ["EXTRA", "import_torch", "is_torch_module", "is_torch_tensor"]

#: how to get torch: the extra pins the CPU build the course is tested with
EXTRA = 'pip install "minigrad-kit[torch]"  (PyTorch 2.13.0, torch==2.13.0)'


def import_torch(what: str = "this function"):
    """``torch``, imported now; without it a ``ModuleNotFoundError`` naming the extra."""
    try:
        return importlib.import_module("torch")
    except ImportError as e:
        raise ModuleNotFoundError(f"{what} needs PyTorch, which is not installed: {EXTRA}",
                                  name="torch") from e


def _has_base(x, module: str, name: str) -> bool:
    return any(c.__module__ == module and c.__name__ == name for c in type(x).__mro__)


def is_torch_tensor(x) -> bool:
    """Whether ``x`` is a ``torch.Tensor`` (or a subclass such as ``nn.Parameter``),
    decided without importing torch."""
    return _has_base(x, "torch", "Tensor")


def is_torch_module(x) -> bool:
    """Whether ``x`` is a ``torch.nn.Module``, decided without importing torch."""
    return _has_base(x, "torch.nn.modules.module", "Module")

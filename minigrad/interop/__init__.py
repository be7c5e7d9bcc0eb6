"""Tensors and models across to PyTorch and back: ``to_torch`` and ``from_torch``.

What crosses:

* a ``Tensor`` <-> a ``torch.Tensor``: values, dtype and ``requires_grad``, as a leaf.
  A graph does not cross: a tensor made by ops (minigrad's, or torch's with a
  ``grad_fn``) arrives as a leaf holding its values; ``.grad`` stays behind.
* a model <-> a ``torch.nn.Module``: Linear, Conv2d, MaxPool2d, AvgPool2d, BatchNorm1d/2d,
  LayerNorm, Dropout, Flatten, Identity, the activations (ReLU, LeakyReLU, Tanh,
  Sigmoid, GELU, Softmax), Sequential and ModuleList, and so the kit's MLP and CNN
  (``minigrad.train.build_model``, lesson 10's CNN), and the scalar engine's ``MLP``
  (``scalar_mlp``: a float64 ``Sequential``; back with ``from_torch(seq,
  engine="scalar")``); parameters and buffers (batch-norm
  running statistics) under the same ``state_dict`` keys (``torch_state_dict_keys``),
  each module's train/eval mode and each parameter's ``requires_grad``.  Anything else
  is a ``TypeError`` naming the layer and where it sits; ``register`` adds a class of
  your own.

Everything that crosses is a **copy**, never shared memory.  Sharing would let
minigrad's in-place updates (optimiser steps, ``load_state_dict``) change a torch tensor
without bumping PyTorch's version counter, which is how torch detects that a value saved
for backward was overwritten, and let torch's in-place ops change arrays behind
minigrad's own in-place checks.  Each side sees only its own writes; to follow a model
trained on one side, convert it again.

torch is optional (``pip install "minigrad-kit[torch]"``): it is imported only when a
function here runs, so ``import minigrad`` never loads it, and without it these
functions raise a ``ModuleNotFoundError`` naming the extra.
"""

from __future__ import annotations

from ..nn import Module
from ..nn.neurons import MLP
from ..tensor import Tensor
from .modules import (
    module_from_torch,
    module_to_torch,
    register,
    supported,
    torch_state_dict_keys,
    unregister,
)
from .optional import EXTRA, import_torch, is_torch_module, is_torch_tensor
from .scalar_mlp import scalar_mlp_from_torch, scalar_mlp_keys, scalar_mlp_to_torch
from .tensors import numpy_dtype, tensor_from_torch, tensor_to_torch, torch_dtype

__all__ = ["EXTRA", "from_torch", "import_torch", "is_torch_module", "is_torch_tensor",
           "module_from_torch", "module_to_torch", "numpy_dtype", "register",
           "scalar_mlp_from_torch", "scalar_mlp_keys", "scalar_mlp_to_torch", "supported",
           "tensor_from_torch", "tensor_to_torch", "to_torch", "torch_dtype",
           "torch_state_dict_keys", "unregister"]


def to_torch(x):
    """A minigrad ``Tensor`` or ``Module`` as a new torch one (a copy: see above); the
    scalar engine's ``MLP`` becomes a float64 ``Sequential`` of ``Linear`` and ``ReLU``
    (``minigrad.interop.scalar_mlp``)."""
    if isinstance(x, Tensor):
        return tensor_to_torch(x)
    if type(x) is MLP:
        return scalar_mlp_to_torch(x)
    if isinstance(x, Module):
        return module_to_torch(x)
    raise TypeError(f"to_torch takes a minigrad Tensor or nn.Module, got {type(x).__name__}")


def from_torch(x, *, engine: str = "tensor"):
    """A ``torch.Tensor`` or ``torch.nn.Module`` as a new minigrad one (a copy).

    ``engine="scalar"``: a ``Sequential`` of ``Linear`` and ``ReLU`` as the scalar
    engine's ``MLP`` (one ``Value`` per weight; ``minigrad.interop.scalar_mlp``)."""
    if engine not in ("tensor", "scalar"):
        raise ValueError(f"from_torch: engine must be 'tensor' or 'scalar', got {engine!r}")
    if engine == "scalar":
        if not is_torch_module(x):
            raise TypeError(f"from_torch(engine='scalar') takes a torch.nn.Sequential, got "
                            f"{type(x).__name__}")
        return scalar_mlp_from_torch(x)
    if is_torch_tensor(x):
        return tensor_from_torch(x)
    if is_torch_module(x):
        return module_from_torch(x)
    raise TypeError(f"from_torch takes a torch.Tensor or torch.nn.Module, got "
                    f"{type(x).__name__}")

"""Tensors across: a minigrad ``Tensor`` to a ``torch.Tensor`` and back, always as a copy.

What crosses is the values, the dtype and the ``requires_grad`` flag, as a *leaf*: a
graph does not cross (a minigrad tensor made by ops, or a torch tensor with a
``grad_fn``, arrives as a leaf holding its values), and neither does ``.grad``.

Why a copy, never shared memory: ``torch.from_numpy`` would share the buffer, and then
minigrad's in-place updates (optimisers, ``load_state_dict``) would change a torch
tensor behind the back of PyTorch's version counter, which is how torch notices that a
tensor saved for backward was overwritten, and a torch in-place op would change values
minigrad's in-place checks never saw.  Each side must see only its own writes.
"""

from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from .optional import import_torch, is_torch_tensor

__all__ = ["numpy_dtype", "tensor_from_torch", "tensor_to_torch", "torch_dtype"]


def torch_dtype(dtype):
    """The ``torch.dtype`` holding numpy ``dtype`` (``float64`` -> ``torch.float64``)."""
    torch = import_torch("minigrad.interop.torch_dtype")
    return torch.from_numpy(np.empty(0, np.dtype(dtype))).dtype


def numpy_dtype(dtype) -> np.dtype:
    """The numpy dtype holding ``torch.dtype`` ``dtype``; a ``TypeError`` for one numpy has
    no equivalent of (``bfloat16``, the quantised types)."""
    torch = import_torch("minigrad.interop.numpy_dtype")
    try:
        return torch.empty(0, dtype=dtype).numpy().dtype
    except TypeError:
        raise TypeError(f"torch dtype {dtype} has no numpy equivalent, so no minigrad one: "
                        "convert it first, e.g. x.float()") from None


def tensor_to_torch(t: Tensor):
    """A new leaf ``torch.Tensor`` with ``t``'s values, dtype and ``requires_grad``."""
    if not isinstance(t, Tensor):
        raise TypeError(f"tensor_to_torch expects a minigrad Tensor, got {type(t).__name__}")
    torch = import_torch("minigrad.interop.to_torch")
    out = torch.from_numpy(np.array(t.data, copy=True, order="C"))  # our own buffer
    return out.requires_grad_(True) if t.requires_grad else out


def tensor_from_torch(x) -> Tensor:
    """A new leaf ``Tensor`` with ``x``'s values, dtype and ``requires_grad`` (a tensor
    with a ``grad_fn`` crosses as a leaf of its values; a GPU tensor is copied to the CPU
    with ``.cpu()`` first: numpy cannot read device memory).  The GPU path is untested on
    real CUDA (no GPU here); the tests run it with a tensor subclass that reports a
    ``cuda:0`` device and refuses ``.numpy()`` until ``.cpu()``, as a CUDA tensor does."""
    if not is_torch_tensor(x):
        raise TypeError(f"tensor_from_torch expects a torch.Tensor, got {type(x).__name__}")
    numpy_dtype(x.dtype)  # the clear error for bfloat16 and friends
    values = x.detach().cpu().resolve_conj().resolve_neg().numpy()
    return Tensor(np.array(values, copy=True), requires_grad=bool(x.requires_grad))

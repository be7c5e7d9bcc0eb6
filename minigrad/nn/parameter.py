"""``Parameter``: a Tensor that a Module learns.

It is an ordinary leaf ``Tensor`` with ``requires_grad=True``.  Being a
distinct class is what lets a ``Module`` notice ``self.weight = Parameter(...)``
and list it in ``parameters()``; the optimizer then updates it in place.
"""

from __future__ import annotations

import numpy as np

from ..tensor import Tensor

__all__ = ["Parameter"]


class Parameter(Tensor):
    """A learnable leaf tensor; float32 unless ``dtype`` says otherwise (``dtype=None`` keeps it).

    >>> w = Parameter(np.zeros((3, 2)))
    >>> w.requires_grad, w.dtype, w.is_leaf
    (True, dtype('float32'), True)
    """

    __slots__ = ()

    def __init__(self, data, requires_grad: bool = True, dtype=np.float32, name: str | None = None):
        if isinstance(data, Tensor):
            data = data.data
        super().__init__(data, requires_grad=requires_grad, dtype=dtype, name=name)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__

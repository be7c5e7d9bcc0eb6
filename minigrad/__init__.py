"""minigrad: a teaching kit for reverse-mode automatic differentiation.

Two engines share one graph record and one backward engine: ``Value`` (a float
per node, for seeing every step) and ``Tensor`` (numpy arrays, for training).
"""

import sys as _sys

# The sub-packages, importable as attributes like torch.nn / torch.optim; importing
# nn (and so nn.functional) here also registers its ops, so the registry is complete
# after ``import minigrad`` (the registry-wide gradient test relies on that).
from . import data, func, jit, nn, optim, utils
from .autograd import (
    AnomalyError,
    GradcheckError,
    GraphReleasedError,
    Tape,
    detect_anomaly,
    enable_grad,
    gradcheck,
    is_grad_enabled,
    no_grad,
    record,
    set_grad_enabled,
    topological_order,
)
from .custom_function import Function, once_differentiable
from .memory import GraphMemory, graph_memory
from .nn import functional
from .random import manual_seed
from .tensor import Tensor, apply_op
from .tensor.combining import (
    cat,
    chunk,
    concatenate,
    maximum,
    minimum,
    split,
    stack,
    topk,
    unbind,
    where,
)
from .tensor.creation import (
    arange,
    full,
    ones,
    ones_like,
    rand,
    randn,
    tensor,
    zeros,
    zeros_like,
)
from .utils.checkpoint import checkpoint, checkpoint_sequential
from .value import Value

# ``F`` is ``minigrad.nn.functional``, where PyTorch keeps it (``torch.nn.functional``).
# Earlier lessons said ``import minigrad.functional as F``; that name is the same
# module, so a student's saved notebook keeps working.
for _name, _module in list(_sys.modules.items()):  # (its modules too: ...functional.conv)
    if _name == functional.__name__ or _name.startswith(functional.__name__ + "."):
        _sys.modules[__name__ + ".functional" + _name[len(functional.__name__):]] = _module

__version__ = "0.1.0"

__all__ = [
    "AnomalyError", "Function", "GradcheckError", "GraphMemory", "GraphReleasedError", "Tape",
    "once_differentiable", "checkpoint", "checkpoint_sequential",
    "Tensor", "Value", "apply_op", "arange", "cat", "concatenate", "detect_anomaly",
    "enable_grad", "full", "gradcheck", "graph_memory", "is_grad_enabled", "manual_seed",
    "maximum", "minimum", "no_grad", "ones", "ones_like", "rand", "randn", "record",
    "set_grad_enabled", "split", "chunk", "stack", "tensor", "topk", "topological_order", "unbind",
    "where", "zeros", "zeros_like",
    "data", "func", "functional", "jit", "nn", "optim", "utils",
]

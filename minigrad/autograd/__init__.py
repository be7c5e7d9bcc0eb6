"""``minigrad.autograd``: PyTorch's ``torch.autograd``, for both engines.

The engine itself is ``minigrad/core`` (the afternoon's read) and the loops
that run are ``minigrad/engines``; this package holds what is built on them
under PyTorch's names: ``grad``, ``gradcheck``, anomaly mode, forward mode
(``forward_ad``), ``saved_tensors_hooks`` (``graph``), recording tapes
(``record``, ``Tape``), multi-output records, and the user's verbs on a node
(``differentiable.py``).
"""

from ..core.accumulate import unbroadcast
from ..core.backward import GraphReleasedError
from ..core.modes import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from ..core.node import Node
from ..core.op import Op, define_op, get_op, register, registered_ops
from ..core.order import topological_order
from ..engines.choose import SCHEDULERS, backward
from ..engines.higher_order import NotTwiceDifferentiableError
from ..engines.hooked import RemovableHandle
from . import forward_ad
from .anomaly import AnomalyError, detect_anomaly
from .forward_ad import UnpackedDualTensor, dual_level, make_dual, unpack_dual
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .gradients import grad
from .graph import saved_tensors_hooks
from .saved import SavedTensorHookError
from .tangents import NoForwardRuleError
from .tape import (
    Contribute,
    Created,
    Dual,
    Freed,
    Hooked,
    Ready,
    Scheduled,
    Seeded,
    Tangent,
    Tape,
    Visit,
    record,
)

__all__ = [
    "AnomalyError", "Contribute", "Created", "Dual", "Freed", "GradcheckError",
    "GraphReleasedError", "Hooked", "NoForwardRuleError", "Node", "NotTwiceDifferentiableError",
    "Op", "Ready", "RemovableHandle", "SCHEDULERS", "SavedTensorHookError", "Scheduled",
    "Seeded", "Tangent", "Tape",
    "UnpackedDualTensor", "Visit", "backward", "define_op", "detect_anomaly", "dual_level",
    "enable_grad", "forward_ad", "get_op", "grad", "gradcheck", "gradgradcheck",
    "is_grad_enabled", "make_dual", "no_grad", "record", "register", "registered_ops",
    "saved_tensors_hooks",
    "set_grad_enabled", "topological_order", "unbroadcast", "unpack_dual",
]

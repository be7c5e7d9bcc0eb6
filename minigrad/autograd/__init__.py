"""The autograd core shared by both engines: graph records, the op registry,
the backward engine and its two schedulers, grad mode, trace events, gradient
hooks, anomaly detection, gradcheck, forward mode (``forward_ad``)."""

from . import forward_ad
from .anomaly import AnomalyError, detect_anomaly
from .engine import SCHEDULERS, GraphReleasedError, backward, unbroadcast
from .forward_ad import UnpackedDualTensor, dual_level, make_dual, unpack_dual
from .grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .gradients import grad
from .graph import topological_order
from .higher import NotTwiceDifferentiableError
from .hooks import RemovableHandle
from .node import Node
from .registry import Op, define_op, get_op, register, registered_ops
from .tangents import NoForwardRuleError
from .trace import (
    Contribute,
    Created,
    Dual,
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
    "AnomalyError", "Contribute", "Created", "Dual", "GradcheckError", "GraphReleasedError",
    "Hooked", "NoForwardRuleError", "Node", "NotTwiceDifferentiableError", "Op", "Ready",
    "RemovableHandle", "SCHEDULERS", "Scheduled", "Seeded", "Tangent", "Tape",
    "UnpackedDualTensor", "Visit", "backward", "define_op", "detect_anomaly", "dual_level",
    "enable_grad", "forward_ad", "get_op", "grad", "gradcheck", "gradgradcheck",
    "is_grad_enabled", "make_dual", "no_grad", "record", "register", "registered_ops",
    "set_grad_enabled", "topological_order", "unbroadcast", "unpack_dual",
]

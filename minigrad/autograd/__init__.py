"""The autograd core shared by both engines: graph records, the op registry,
the backward engine and its two schedulers, grad mode, trace events, gradient
hooks, anomaly detection, gradcheck."""

from .anomaly import AnomalyError, detect_anomaly
from .engine import SCHEDULERS, GraphReleasedError, backward, unbroadcast
from .grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .gradients import grad
from .graph import saved_tensors_hooks, topological_order
from .higher import NotTwiceDifferentiableError
from .hooks import RemovableHandle
from .node import Node
from .registry import Op, define_op, get_op, register, registered_ops
from .saved import SavedTensorHookError
from .trace import Contribute, Created, Freed, Hooked, Ready, Scheduled, Seeded, Tape, Visit, record

__all__ = [
    "AnomalyError", "Contribute", "Created", "Freed", "GradcheckError", "GraphReleasedError",
    "Hooked", "Node", "Op", "Ready", "RemovableHandle", "SCHEDULERS", "SavedTensorHookError",
    "Scheduled", "Seeded", "Tape", "Visit", "backward", "define_op", "detect_anomaly",
    "enable_grad", "get_op", "grad", "gradcheck", "gradgradcheck", "NotTwiceDifferentiableError",
    "is_grad_enabled", "no_grad", "record", "register",
    "registered_ops", "saved_tensors_hooks", "set_grad_enabled", "topological_order",
    "unbroadcast",
]

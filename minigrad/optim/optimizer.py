"""The ``Optimizer`` base class: parameter groups, per-parameter state, ``zero_grad``.

An optimizer changes parameters *in place* (``p.data -= ...``): the model, the
optimizer and any other code holding the same ``Parameter`` all see the new
values, and the parameter stays the same leaf with the same dtype.  Updates run
under ``no_grad()`` so they never become part of the next step's graph.  They
never modify ``p.grad`` in place either: the engine may share a gradient array
between nodes, so a gradient is read, never written.

As in PyTorch, ``params`` is either an iterable of parameters or a list of
*parameter groups*, dicts like ``{"params": [...], "lr": 0.01}`` whose keys
override the optimizer's defaults for those parameters (e.g. no weight decay on
biases).  A learning-rate scheduler changes ``group["lr"]``.

Parameters must be Tensors: the updates are numpy array operations.  The scalar
engine's ``Value`` parameters are updated by hand, ``v.data -= lr * v.grad``.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from ..core.modes import no_grad
from ..engines.inplace import mark_modified
from ..tensor import Tensor

__all__ = ["Optimizer"]


def _grad_shape_error(opt, g, p) -> ValueError:
    return ValueError(f"{type(opt).__name__}: gradient of shape {g.shape} for a parameter of "
                      f"shape {p.data.shape}")


def checked_grad(opt, g, p):
    """``p.grad`` as an array, or a clear error for a misassigned one.

    Called only when ``g`` is not already an ``ndarray``, so the common path
    pays one type check per parameter.  Without it, ``p.grad = Tensor(...)``
    fails deep in the update with "operand 'Tensor' does not support ufuncs".
    """
    if isinstance(g, np.generic):  # a numpy scalar for a 0-d parameter
        g = np.asarray(g)
    if not isinstance(g, np.ndarray):
        hint = " (use t.data)" if isinstance(g, Tensor) else ""
        raise TypeError(f"{type(opt).__name__}.step(): the .grad of a parameter of shape "
                        f"{p.data.shape} must be a numpy array{hint}, got {type(g).__name__}")
    if g.shape != p.data.shape:
        raise _grad_shape_error(opt, g, p)
    return g


def check_number(owner: str, name: str, value, minimum=None, integer: bool = False):
    """Raise a clear error unless ``value`` is a finite real number (an int if ``integer``).

    Without it ``SGD(params, lr="0.1")`` fails with "'<' not supported between
    'str' and 'int'", and ``lr=float("nan")`` passes every ``< 0`` test.
    """
    kind = numbers.Integral if integer else numbers.Real
    if isinstance(value, bool) or not isinstance(value, kind):
        what = "an integer" if integer else "a real number"
        raise TypeError(f"{owner}: {name} must be {what}, got {value!r} "
                        f"({type(value).__name__})")
    if not math.isfinite(value):
        raise ValueError(f"{owner}: {name} must be finite, got {value}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{owner}: {name} must be >= {minimum}, got {value}")
    return value


class Optimizer:
    def __init__(self, params, defaults: dict):
        self._check_hyperparameters(defaults)
        if hasattr(params, "data") and hasattr(params, "grad"):
            raise TypeError(
                f"{type(self).__name__} expects an iterable of parameters, got a single "
                f"{type(params).__name__}; wrap it in a list: [p]"
            )
        params = list(params)
        if not params:
            raise ValueError(f"{type(self).__name__} got an empty parameter list "
                             "(did the model register its Parameters?)")
        self.defaults = dict(defaults)
        self.param_groups: list[dict] = []
        self.state: dict[int, dict] = {}  # keyed by id(param); groups keep the params alive
        groups = params if isinstance(params[0], dict) else [{"params": params}]
        for group in groups:
            self.add_param_group(group)

    def _check_hyperparameters(self, group: dict) -> None:
        """Validate a group's settings (the defaults, then each group): subclasses override."""

    def add_param_group(self, group: dict) -> None:
        if not isinstance(group, dict) or "params" not in group:
            raise TypeError("a parameter group must be a dict with a 'params' key")
        group = {**self.defaults, **group}
        self._check_hyperparameters(group)
        params = group["params"]
        params = [params] if hasattr(params, "grad") else list(params)
        name = type(self).__name__
        other_groups = {id(p) for g in self.param_groups for p in g["params"]}
        seen = {}  # id -> position
        for i, p in enumerate(params):
            if not isinstance(p, Tensor):
                if hasattr(p, "data") and hasattr(p, "grad"):  # a scalar-engine Value
                    raise TypeError(
                        f"{name} works on Tensors (e.g. nn.Parameter), got a "
                        f"{type(p).__name__} at position {i}; update scalar-engine values "
                        "by hand: `for v in params: v.data -= lr * v.grad`")
                raise TypeError(f"{name} can only optimize Tensors/Parameters, "
                                f"got {type(p).__name__} at position {i}")
            if p.op is not None:
                raise ValueError(f"{name} can only optimize leaf tensors; got the "
                                 f"output of a {p.op.name} op (use a Parameter)")
            if id(p) in seen:
                label = f" '{p.label}'" if p.label else ""
                raise ValueError(f"{name}: the same parameter{label} (shape {p.data.shape}) "
                                 f"appears twice in the parameter list (positions {seen[id(p)]} "
                                 f"and {i}); pass each parameter once")
            if id(p) in other_groups:
                raise ValueError("some parameters appear in more than one parameter group")
            seen[id(p)] = i
        group["params"] = params
        group.setdefault("initial_lr", group.get("lr"))
        self.param_groups.append(group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget the gradients before the next backward (leaves accumulate otherwise).

        ``set_to_none=True`` (the default, as in PyTorch) drops the arrays, which
        also lets the next backward store its first contribution without a copy.
        """
        for group in self.param_groups:
            for p in group["params"]:
                if set_to_none or p.grad is None:
                    p.grad = None
                else:
                    p.grad = np.zeros_like(p.data)

    def step(self) -> None:
        """Update every parameter that has a gradient; parameters without one are skipped."""
        try:
            with no_grad():
                for group in self.param_groups:
                    self._step_group(group)
        finally:  # also after an error part-way: the earlier parameters did change
            # A graph built before this step saved the old values: backward through it
            # now raises instead of mixing old activations with new weights.
            mark_modified([p for group in self.param_groups for p in group["params"]
                           if p.grad is not None])

    def _step_group(self, group) -> None:
        """One group's update: calls ``_update`` per parameter (subclasses may fuse the loop)."""
        state, update = self.state, self._update
        for p in group["params"]:
            g = p.grad
            if g is None:
                continue
            if g.__class__ is not np.ndarray or g.shape != p.data.shape:
                g = checked_grad(self, g, p)
            s = state.get(id(p))
            if s is None:
                s = state[id(p)] = {}
            update(p, g, group, s)

    def _update(self, p, g, group, state) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    # --- saving ------------------------------------------------------------------------
    def state_dict(self) -> dict:
        """Hyper-parameters and per-parameter state, parameters named by position."""
        index = {}
        groups = []
        for group in self.param_groups:
            ids = []
            for p in group["params"]:
                index[id(p)] = len(index)
                ids.append(index[id(p)])
            groups.append({**{k: v for k, v in group.items() if k != "params"}, "params": ids})
        state = {index[k]: {n: (v.copy() if isinstance(v, np.ndarray) else v)
                            for n, v in s.items()}
                 for k, s in self.state.items() if k in index}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict) -> None:
        groups = state_dict["param_groups"]
        if len(groups) != len(self.param_groups) or any(
                len(a["params"]) != len(b["params"]) for a, b in zip(groups, self.param_groups)):
            raise ValueError("loaded optimizer state does not match this optimizer's parameter "
                             "groups (different number of groups or parameters)")
        params = [p for g in self.param_groups for p in g["params"]]
        for mine, saved in zip(self.param_groups, groups):
            mine.update({k: v for k, v in saved.items() if k != "params"})
        self.state = {id(params[int(i)]): {n: (v.copy() if isinstance(v, np.ndarray) else v)
                                           for n, v in s.items()}
                      for i, s in state_dict["state"].items()}

    def __repr__(self) -> str:
        lines = [f"{type(self).__name__} ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for k in sorted(group):
                if k not in ("params", "initial_lr"):
                    lines.append(f"    {k}: {group[k]}")
        return "\n".join(lines + [")"])

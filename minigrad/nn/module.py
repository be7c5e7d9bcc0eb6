"""``Module``: the base class of every layer and model (PyTorch's protocol).

A module keeps three ordered registries, filled automatically by attribute
assignment in ``__init__``:

* parameters: ``self.weight = Parameter(...)`` (what the optimizer updates);
* buffers:    ``self.register_buffer("running_mean", array)`` (saved state that is
  not learned, e.g. batch-norm statistics; plain numpy arrays);
* children:   ``self.fc1 = Linear(...)`` (sub-modules, searched recursively).

From these come ``parameters()``, ``named_parameters()`` (``"fc1.weight"``),
``state_dict()``, ``train()``/``eval()``, ``zero_grad()`` and the ``repr``.
Calling a module runs ``forward``; while a graph recorder is listening it also
pushes the module's name as the current *scope*, so a renderer can draw each
layer as one box (see ``minigrad.nn.scope``).
"""

from __future__ import annotations

import os
import zipfile
import zlib
from collections import OrderedDict
from typing import NamedTuple

import numpy as np

from ..core.modes import COUNTS
from ..core.node import Node
from ..engines.inplace import mark_modified
from ..files import atomic_write
from . import scope as _scope

__all__ = ["Module", "Sequential", "ModuleList", "LoadResult", "StateDictError", "ModelFileError"]


class StateDictError(RuntimeError):
    """``load_state_dict`` found missing or unexpected keys, or a shape mismatch."""


class ModelFileError(ValueError):
    """``Module.load`` was given a file that is not (or no longer) a model saved by ``save``."""


_NPY_MAGIC = b"\x93NUMPY"
_ZIP_MAGIC = b"PK"


def _read_state_file(path: str) -> dict:
    """Every array of the ``.npz`` file ``path``, read whole before anything is loaded.

    Why not just ``np.load``: on a damaged file numpy raises ``zipfile``'s bare
    ``BadZipFile`` (a truncated copy loses the archive's index, which sits at the
    end), and on anything that is not an archive it guesses *pickle* and advises
    ``allow_pickle=True``, which would run code stored in the file.  A model file
    holds plain numeric arrays, so pickles are never read (``allow_pickle=False``).
    """
    expected = "expected a .npz archive of named arrays, as written by Module.save"
    with open(path, "rb") as fh:  # a missing file: Python's own FileNotFoundError names it
        head = fh.read(len(_NPY_MAGIC))
    if head.startswith(_NPY_MAGIC):
        raise ModelFileError(f"Module.load: {path!r} holds one numpy array (a .npy file), "
                             f"not a model; {expected}. The model's weights are unchanged.")
    if not head.startswith(_ZIP_MAGIC):
        what = ("is empty" if not head
                else "is damaged or not a model file (it is not a .npz archive)")
        raise ModelFileError(f"Module.load: {path!r} {what}; {expected}. "
                             "The model's weights are unchanged.")
    try:
        with np.load(path, allow_pickle=False) as data:
            return {key: data[key] for key in data.files}
    except ValueError as exc:
        if "allow_pickle" in str(exc) or "pickle" in str(exc):
            raise ModelFileError(f"Module.load: {path!r} holds Python objects, not numeric arrays; "
                                 f"{expected}. Such files are never unpickled (that could run code "
                                 "stored in them). The model's weights are unchanged.") from None
        cause = exc
    except (zipfile.BadZipFile, EOFError, OSError, KeyError, zlib.error) as exc:
        cause = exc
    raise ModelFileError(f"Module.load: {path!r} is damaged (truncated or overwritten?): "
                         f"{expected}; "
                         f"reading it failed with {type(cause).__name__}: {cause}. "
                         "The model's weights are unchanged.") from None


class LoadResult(NamedTuple):
    missing_keys: list
    unexpected_keys: list


def _is_parameter(value) -> bool:
    from .parameter import Parameter

    return isinstance(value, Parameter)


class Module:
    """Base class: subclass it, call ``super().__init__()``, assign layers, write ``forward``."""

    training: bool

    def __init__(self):
        d = self.__dict__
        d["_parameters"] = OrderedDict()
        d["_buffers"] = OrderedDict()
        d["_modules"] = OrderedDict()
        d["_scope_name"] = None
        d["training"] = True

    # --- registration ---------------------------------------------------------------
    def _registries(self):
        try:
            d = self.__dict__
            return d["_parameters"], d["_buffers"], d["_modules"]
        except KeyError:
            raise RuntimeError(
                f"{type(self).__name__}: call super().__init__() at the top of __init__, "
                "before assigning parameters or sub-modules") from None

    def __setattr__(self, name: str, value) -> None:
        if isinstance(value, Module) or _is_parameter(value):
            params, buffers, modules = self._registries()
            for registry in (params, buffers, modules):
                registry.pop(name, None)
            if isinstance(value, Module):
                modules[name] = value
                value.__dict__["_scope_name"] = name
            else:
                params[name] = value
                if value.label is None:
                    value.label = name
        elif "_parameters" in self.__dict__:
            params, buffers, modules = self._registries()
            if name in params:
                if value is not None:
                    raise TypeError(f"cannot assign {type(value).__name__} to parameter "
                                    f"'{name}' of {type(self).__name__} (expected a Parameter "
                                    "or None); to change its values assign to .data")
                params[name] = None
            elif name in buffers:
                buffers[name] = None if value is None else np.asarray(value)
                value = buffers[name]
            elif name in modules:
                if value is not None:
                    raise TypeError(f"cannot assign {type(value).__name__} to sub-module "
                                    f"'{name}' of {type(self).__name__} (expected a Module)")
                modules[name] = None
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        for registry in self._registries():
            registry.pop(name, None)
        object.__delattr__(self, name)

    def register_parameter(self, name: str, param) -> None:
        """Register ``param`` (a Parameter, any leaf graph node, or None) under ``name``.

        Names may contain dots (the scalar ``Neuron`` registers ``"w.0"``, ``"w.1"``…);
        only dot-free names also become attributes.
        """
        if param is not None and not isinstance(param, Node):
            raise TypeError(f"register_parameter: {name!r} must be a Parameter, a leaf node "
                            f"or None, got {type(param).__name__}")
        params, _, _ = self._registries()
        params[name] = param
        if param is not None and param.label is None:
            param.label = name
        if "." not in name:
            object.__setattr__(self, name, param)

    def register_buffer(self, name: str, value) -> None:
        """State saved in ``state_dict`` but not learned (e.g. batch-norm running statistics)."""
        _, buffers, _ = self._registries()
        buffers[name] = None if value is None else np.asarray(value)
        object.__setattr__(self, name, buffers[name])

    def add_module(self, name: str, module) -> None:
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"add_module: {name!r} must be a Module, got {type(module).__name__}")
        _, _, modules = self._registries()
        modules[name] = module
        if module is not None:
            module.__dict__["_scope_name"] = name
        if "." not in name:
            object.__setattr__(self, name, module)

    # --- calling ------------------------------------------------------------------
    def forward(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} has no forward() method")

    def __call__(self, *args, **kwargs):
        if COUNTS.watchers:  # someone is recording: tag the nodes built inside with our name
            return self._call_in_scope(args, kwargs)
        return self.forward(*args, **kwargs)

    def _call_in_scope(self, args, kwargs):
        maps = _scope.listening_scope_maps()
        if not maps:  # a recorder that does not ask for scopes
            return self.forward(*args, **kwargs)
        caller = _scope.calling_module()
        name = maps[0].relative_name(caller, self) if caller is not None else None
        if name is None:
            name = self.__dict__.get("_scope_name")
        if name is None:  # the root model: its nodes stay at the top level
            for m in maps:
                m.entered(self, _scope.current_scope() or "")
            _scope.push("", self)  # marks the calling module without adding a name
        else:
            qualified = _scope.push(name, self)
            for m in maps:
                m.entered(self, qualified)
        try:
            return self.forward(*args, **kwargs)
        finally:
            _scope.pop()

    # --- walking the tree ---------------------------------------------------------------
    def named_children(self):
        return [(n, m) for n, m in self._registries()[2].items() if m is not None]

    def children(self) -> list:
        return [m for _, m in self.named_children()]

    def named_modules(self, prefix: str = "") -> list:
        """``(qualified name, module)`` for this module (name ``""``) and every descendant."""
        out, seen, stack = [], set(), [(prefix, self)]
        while stack:  # iterative pre-order walk
            name, module = stack.pop()
            if id(module) in seen:
                continue
            seen.add(id(module))
            out.append((name, module))
            children = module.named_children()
            for child_name, child in reversed(children):
                stack.append((f"{name}.{child_name}" if name else child_name, child))
        return out

    def modules(self) -> list:
        return [m for _, m in self.named_modules()]

    def named_parameters(self, prefix: str = "", recurse: bool = True) -> list:
        """``(qualified name, parameter)`` pairs, each parameter once even if shared."""
        out, seen = [], set()
        modules = self.named_modules(prefix) if recurse else [(prefix, self)]
        for mod_name, module in modules:
            for name, p in module._registries()[0].items():
                if p is None or id(p) in seen:
                    continue
                seen.add(id(p))
                out.append((f"{mod_name}.{name}" if mod_name else name, p))
        return out

    def parameters(self, recurse: bool = True) -> list:
        """Every learnable parameter, as a list (safe to iterate more than once)."""
        return [p for _, p in self.named_parameters(recurse=recurse)]

    def named_buffers(self, prefix: str = "") -> list:
        out = []
        for mod_name, module in self.named_modules(prefix):
            for name, b in module._registries()[1].items():
                if b is not None:
                    out.append((f"{mod_name}.{name}" if mod_name else name, b))
        return out

    def buffers(self) -> list:
        return [b for _, b in self.named_buffers()]

    def num_parameters(self) -> int:
        """Number of learnable scalars."""
        return int(sum(np.size(p.data) for p in self.parameters()))

    def apply(self, fn):
        """Call ``fn(module)`` on every descendant and then on this module; returns self."""
        for module in reversed(self.modules()):
            fn(module)
        return self

    # --- modes and gradients -------------------------------------------------------------
    def train(self, mode: bool = True):
        """Training mode (dropout active, batch norm uses batch statistics); returns self."""
        if not isinstance(mode, bool):
            raise TypeError(f"train(mode) expects a bool, got {type(mode).__name__}")
        for module in self.modules():
            module.__dict__["training"] = mode
        return self

    def eval(self):
        """Evaluation mode: ``train(False)``; returns self."""
        return self.train(False)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget every parameter's gradient (``None``, or zeros with ``set_to_none=False``)."""
        for p in self.parameters():
            if set_to_none or p.grad is None:
                p.grad = None
            else:
                p.grad = np.zeros_like(p.data)

    def requires_grad_(self, requires_grad: bool = True):
        """Freeze (``False``) or unfreeze every parameter; returns self."""
        for p in self.parameters():
            p.requires_grad = bool(requires_grad)
        return self

    def to(self, dtype):
        """Cast floating parameters and buffers to ``dtype`` in place (grads are dropped)."""
        dtype = np.dtype(dtype)
        for p in self.parameters():
            if isinstance(p.data, np.ndarray) and p.data.dtype.kind == "f":
                p.data = p.data.astype(dtype)
                p.grad = None
        for module in self.modules():
            buffers = module._registries()[1]
            for name, b in buffers.items():
                if b is not None and b.dtype.kind == "f":
                    buffers[name] = b.astype(dtype)
                    object.__setattr__(module, name, buffers[name])
        return self

    def float(self):
        return self.to(np.float32)

    def double(self):
        return self.to(np.float64)

    # --- saving and loading ---------------------------------------------------------------
    def _state_entries(self) -> list:
        """``(qualified name, kind, module, local name, value)`` for every parameter and
        buffer (``value``: the Parameter, or the buffer array).

        PyTorch's order: module by module (pre-order), each module's own
        parameters and then its buffers, so ``1.weight, 1.bias, 1.running_mean``
        come together.  A shared parameter is listed once, under its first name.
        """
        out, seen = [], set()
        for mod_name, module in self.named_modules():
            prefix = f"{mod_name}." if mod_name else ""
            params, buffers, _ = module._registries()
            for name, p in params.items():
                if p is not None and id(p) not in seen:
                    seen.add(id(p))
                    out.append((prefix + name, "param", module, name, p))
            for name, b in buffers.items():
                if b is not None:
                    out.append((prefix + name, "buffer", module, name, b))
        return out

    def state_dict(self) -> OrderedDict:
        """Every parameter and buffer by qualified name, as numpy array copies."""
        state = OrderedDict()
        for key, kind, _, _, value in self._state_entries():
            state[key] = np.array(value.data if kind == "param" else value, copy=True)
        return state

    def load_state_dict(self, state_dict, strict: bool = True) -> LoadResult:
        """Copy values into this module's parameters and buffers, in place.

        Everything is checked before anything is written: with ``strict=True``
        (the default) missing or unexpected keys are an error; a shape mismatch
        always is.  Values are cast to each parameter's dtype.  The keys may come
        in any order.  Parameters written in place are marked modified, so
        backward through a graph built before the load raises instead of mixing
        old activations with the loaded weights.
        """
        targets = OrderedDict()
        for key, kind, module, name, value in self._state_entries():
            targets[key] = ("param", value) if kind == "param" else ("buffer", (module, name))
        given = list(state_dict.keys())
        missing = [k for k in targets if k not in state_dict]
        unexpected = [k for k in given if k not in targets]
        mismatched = []
        for key, (kind, target) in targets.items():
            if key not in state_dict:
                continue
            current = target.data if kind == "param" else target[0]._registries()[1][target[1]]
            value = np.asarray(state_dict[key])
            if np.shape(current) != value.shape:
                mismatched.append(f"  size mismatch for {key}: the checkpoint has shape "
                                  f"{value.shape}, the model has {np.shape(current)}")
        if mismatched or (strict and (missing or unexpected)):  # every problem, in one message
            parts = [f"Error(s) in loading state_dict for {type(self).__name__}:"]
            if strict and missing:
                parts.append("  missing key(s): " + ", ".join(missing))
            if strict and unexpected:
                parts.append("  unexpected key(s): " + ", ".join(unexpected))
            raise StateDictError("\n".join(parts + mismatched))
        changed = []
        for key, (kind, target) in targets.items():
            if key not in state_dict:
                continue
            value = np.asarray(state_dict[key])
            if kind == "param":
                if isinstance(target.data, np.ndarray):
                    np.copyto(target.data, value, casting="unsafe")
                    changed.append(target)
                else:  # a scalar-engine Value: a new float, nothing saved is overwritten
                    target.data = float(value)
            else:
                module, name = target
                np.copyto(module._registries()[1][name], value, casting="unsafe")
        if changed:
            mark_modified(changed)
        return LoadResult(missing, unexpected)

    def save(self, path) -> str:
        """Write ``state_dict()`` to a ``.npz`` file (the suffix is added if missing).

        The file is written whole or not at all (``minigrad.files.atomic_write``): an
        interrupted save leaves the previous file, never a truncated model.
        """
        path = os.fspath(path)
        if not path.endswith(".npz"):
            path += ".npz"
        with atomic_write(path) as fh:
            np.savez(fh, **self.state_dict())
        return path

    def load(self, path, strict: bool = True):
        """Load a file written by ``save`` into this module (in place); returns self.

        The whole file is read and checked against the model before any weight is
        written, so a damaged file (``ModelFileError``) or one saved from a different
        architecture (``StateDictError``: missing or unexpected keys, shapes) leaves
        the model as it was; both errors name the file.
        """
        path = os.fspath(path)
        if not os.path.exists(path) and os.path.exists(path + ".npz"):
            path += ".npz"
        state = _read_state_file(path)
        try:
            self.load_state_dict(state, strict=strict)
        except StateDictError as exc:
            raise StateDictError(f"Module.load: {path!r} was saved from a different model.\n{exc}"
                                 "\nThe model's weights are unchanged.") from None
        return self

    # --- printing ---------------------------------------------------------------------------
    def extra_repr(self) -> str:
        """The settings shown inside the parentheses, e.g. ``in_features=784, out_features=10``."""
        return ""

    def __repr__(self) -> str:
        extra = self.extra_repr()
        children = self.named_children()
        if not children:
            return f"{type(self).__name__}({extra})"
        lines = extra.split("\n") if extra else []  # settings first, then one line per child
        for name, child in children:
            lines.append(f"({name}): " + repr(child).replace("\n", "\n  "))
        return f"{type(self).__name__}(\n  " + "\n  ".join(lines) + "\n)"


class Sequential(Module):
    """Modules applied one after the other; indexable (``net[0]``, ``net[1:]``) and sized."""

    def __init__(self, *modules):
        super().__init__()
        if len(modules) == 1 and isinstance(modules[0], (dict, OrderedDict)):
            for name, module in modules[0].items():
                self.add_module(str(name), module)
        else:
            for i, module in enumerate(modules):
                if not isinstance(module, Module):
                    raise TypeError(f"Sequential: argument {i} is a {type(module).__name__}, "
                                    "not a Module (did you forget to instantiate it?)")
                self.add_module(str(i), module)

    def forward(self, x):
        for module in self._modules.values():
            x = module(x)
        return x

    def __getitem__(self, index):
        items = list(self._modules.items())
        if isinstance(index, slice):
            return Sequential(OrderedDict(items[index]))
        try:
            return items[index][1]
        except IndexError:
            raise IndexError(f"Sequential index {index} is out of range for "
                             f"{len(items)} modules") from None

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, module):
        self.add_module(str(len(self._modules)), module)
        return self


class ModuleList(Module):
    """A list of modules whose parameters the parent can see (a plain list hides them)."""

    def __init__(self, modules=()):
        super().__init__()
        for module in modules:
            self.append(module)

    def append(self, module):
        self.add_module(str(len(self._modules)), module)
        return self

    def __getitem__(self, index):
        items = list(self._modules.values())
        if isinstance(index, slice):
            return ModuleList(items[index])
        return items[index]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def forward(self, *args, **kwargs):
        raise NotImplementedError("ModuleList is a container; call its items instead")

"""Modules across: each supported layer to its ``torch.nn`` counterpart and back.

A conversion does three things, in this order:

1. **structure**: every module becomes its counterpart (``BUILTIN``: the class of the
   same name with the same settings), its children added under the same names, so a
   ``Sequential`` stays a ``Sequential`` with the same indices and a module used twice
   is converted once and stays shared;
2. **state**: the source's ``state_dict()`` is loaded into the target under the keys
   ``torch_state_dict_keys`` gives, every value copied (never shared memory: see
   ``minigrad.interop.tensors``); parameters and buffers, batch-norm running statistics
   and ``num_batches_tracked`` included;
3. **flags**: every module's ``training`` flag and every parameter's ``requires_grad``.

The keys map one to one because minigrad's layers use PyTorch's parameter and buffer
names and its ``state_dict`` lists them in PyTorch's order; the tests hold
``torch_state_dict_keys`` to torch's own ``state_dict()`` for every supported layer.

Classes match exactly, never by subclass: a subclass of ``Sequential`` with a forward
of its own is not a ``Sequential``, and a model's ``forward`` is code that cannot be
translated.  A class of your own (a lesson's ``MLP`` with ``fc1``/``fc2``) crosses once
``register``-ed with a torch class that has the same attribute names.  A setting one
side lacks (``Conv2d(groups=2)``, a fused ``activation="relu"``) is an error, never a
silently different model.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .. import nn as ours
from ..nn import neurons
from .optional import import_torch
from .tensors import numpy_dtype, torch_dtype

__all__ = ["BUILTIN", "REGISTERED", "Counterpart", "module_from_torch", "module_to_torch",
           "register", "supported", "torch_state_dict_keys", "unregister"]


@dataclass(frozen=True)
class Counterpart:
    """A minigrad class, its torch class, and how to build each from the other.

    ``to_torch(module, children)`` returns the torch module, ``from_torch(module,
    children)`` the minigrad one; ``children`` maps each child's name to its converted
    module.  Builders make the structure only: the weights are copied afterwards.
    """

    ours: type
    theirs: str | type  # a name in torch.nn, or (registered) the torch class itself
    to_torch: Callable
    from_torch: Callable

    def torch_class(self, torch):
        return getattr(torch.nn, self.theirs) if isinstance(self.theirs, str) else self.theirs

    def torch_name(self) -> str:
        return self.theirs if isinstance(self.theirs, str) else self.theirs.__qualname__


class _Refused(Exception):
    """A supported class with a setting the other side has no equivalent of."""


# --- dtypes and settings -----------------------------------------------------------------
def _our_dtype(module) -> np.dtype:
    """The dtype of the module's own parameters (or floating buffers); float32 if none."""
    for p in module.parameters(recurse=False):
        return p.data.dtype
    for _, b in module.named_buffers():
        if b.dtype.kind == "f":
            return b.dtype
    return np.dtype(np.float32)


def _their_dtype(t) -> np.dtype:
    for p in list(t.parameters(recurse=False)) + list(t.buffers(recurse=False)):
        if p.dtype.is_floating_point:
            return numpy_dtype(p.dtype)
    return np.dtype(np.float32)


def _kw(module) -> dict:
    """torch's factory keywords giving a new layer the module's dtype."""
    return {"dtype": torch_dtype(_our_dtype(module))}


def _no_activation(m) -> None:
    if getattr(m, "activation", None) is not None:
        raise _Refused(f"activation={m.activation!r} fuses the layer with a ReLU, which has no "
                       f"single torch layer: write {type(m).__name__}(...) followed by ReLU()")


def _only(t, **wanted) -> None:
    """Refuse a torch layer whose settings minigrad's layer does not have."""
    for name, want in wanted.items():
        value = getattr(t, name)
        if value != want and value != (want, want):
            raise _Refused(f"{name}={value!r} has no minigrad equivalent (minigrad's "
                           f"{type(t).__name__} has {name}={want!r} only)")


def _bias(m) -> bool:
    return m.bias is not None


# --- the built-in counterparts ---------------------------------------------------------------
def _linear_to(m, torch):
    _no_activation(m)
    return torch.nn.Linear(m.in_features, m.out_features, bias=_bias(m), **_kw(m))


def _linear_from(t):
    return ours.Linear(t.in_features, t.out_features, bias=_bias(t), seed=0,
                       dtype=_their_dtype(t))


def _conv_to(m, torch):
    _no_activation(m)
    return torch.nn.Conv2d(m.in_channels, m.out_channels, m.kernel_size, stride=m.stride,
                           padding=m.padding, bias=_bias(m), **_kw(m))


def _conv_from(t):
    _only(t, groups=1, dilation=1, padding_mode="zeros")
    if isinstance(t.padding, str):
        raise _Refused(f"padding={t.padding!r}: minigrad's Conv2d takes numbers of pixels")
    return ours.Conv2d(t.in_channels, t.out_channels, t.kernel_size, t.stride, t.padding,
                       bias=_bias(t), seed=0, dtype=_their_dtype(t))


def _pool_from(cls, **wanted):
    def build(t):
        _only(t, **wanted)
        return cls(t.kernel_size, t.stride, t.padding)
    return build


def _norm_to(name):
    def build(m, torch):
        _no_activation(m)
        return getattr(torch.nn, name)(m.num_features, eps=m.eps, momentum=m.momentum,
                                       affine=m.affine,
                                       track_running_stats=m.track_running_stats, **_kw(m))
    return build


def _norm_from(cls):
    def build(t):
        return cls(t.num_features, eps=t.eps, momentum=t.momentum, affine=t.affine,
                   track_running_stats=t.track_running_stats, dtype=_their_dtype(t))
    return build


def _layer_norm_from(t):
    if t.elementwise_affine and t.bias is None:
        raise _Refused("bias=False: minigrad's LayerNorm has a bias whenever it has a weight")
    return ours.LayerNorm(t.normalized_shape, t.eps, t.elementwise_affine,
                          dtype=_their_dtype(t))


def _softmax_from(t):
    if t.dim is None:
        raise _Refused("dim=None (torch guesses the axis): give Softmax(dim=...)")
    return ours.Softmax(t.dim)


def _simple(cls, *attrs, theirs=None):
    """A layer whose settings are the same attributes on both sides (``theirs`` renames)."""
    names = theirs or attrs
    return (cls, cls.__name__,
            lambda m, torch: getattr(torch.nn, cls.__name__)(
                **{n: getattr(m, a) for a, n in zip(attrs, names)}),
            lambda t: cls(*(getattr(t, n) for n in names)))


def _builtin() -> list[Counterpart]:
    rows = [
        (ours.Linear, "Linear", _linear_to, _linear_from),
        (ours.Conv2d, "Conv2d", _conv_to, _conv_from),
        (ours.MaxPool2d, "MaxPool2d",
         lambda m, torch: torch.nn.MaxPool2d(m.kernel_size, m.stride, m.padding),
         _pool_from(ours.MaxPool2d, dilation=1, ceil_mode=False, return_indices=False)),
        (ours.AvgPool2d, "AvgPool2d",
         lambda m, torch: torch.nn.AvgPool2d(m.kernel_size, m.stride, m.padding),
         _pool_from(ours.AvgPool2d, ceil_mode=False, count_include_pad=True,
                    divisor_override=None)),
        (ours.BatchNorm1d, "BatchNorm1d", _norm_to("BatchNorm1d"), _norm_from(ours.BatchNorm1d)),
        (ours.BatchNorm2d, "BatchNorm2d", _norm_to("BatchNorm2d"), _norm_from(ours.BatchNorm2d)),
        (ours.LayerNorm, "LayerNorm",
         lambda m, torch: torch.nn.LayerNorm(m.normalized_shape, m.eps, m.elementwise_affine,
                                             **_kw(m)),
         _layer_norm_from),
        (ours.Softmax, "Softmax", lambda m, torch: torch.nn.Softmax(dim=m.axis), _softmax_from),
        _simple(ours.Dropout, "p"),
        _simple(ours.Flatten, "start_dim", "end_dim"),
        _simple(ours.LeakyReLU, "negative_slope"),
        _simple(ours.GELU, "approximate"),
        _simple(ours.Identity), _simple(ours.ReLU), _simple(ours.Tanh), _simple(ours.Sigmoid),
    ]
    table = [Counterpart(cls, name, lambda m, ch, f=to: f(m, import_torch()),
                         lambda t, ch, f=back: f(t))
             for cls, name, to, back in rows]
    table.append(Counterpart(
        ours.Sequential, "Sequential",
        lambda m, ch: import_torch().nn.Sequential(OrderedDict(ch)),
        lambda t, ch: ours.Sequential(OrderedDict(ch))))
    table.append(Counterpart(
        ours.ModuleList, "ModuleList",
        lambda m, ch: import_torch().nn.ModuleList(list(ch.values())),
        lambda t, ch: ours.ModuleList(list(ch.values()))))
    return table


#: the layers and containers that cross as they are
BUILTIN: tuple[Counterpart, ...] = tuple(_builtin())
#: classes of one's own, added by ``register`` (minigrad class -> Counterpart)
REGISTERED: dict[type, Counterpart] = {}


def register(ours_class: type, torch_class: type, to_torch: Callable,
             from_torch: Callable) -> Counterpart:
    """Let a model class of your own cross, paired with ``torch_class``.

    ``to_torch(module, children)`` builds the torch module and ``from_torch(module,
    children)`` the minigrad one (``children``: name -> converted child; use them or
    build fresh ones).  Both classes must use the same attribute names (``fc1``,
    ``fc2``), so the ``state_dict`` keys agree: the weights are copied by key afterwards.
    """
    entry = Counterpart(ours_class, torch_class, to_torch, from_torch)
    REGISTERED[ours_class] = entry
    return entry


def unregister(ours_class: type) -> None:
    REGISTERED.pop(ours_class, None)


def _table() -> list[Counterpart]:
    return list(REGISTERED.values()) + [c for c in BUILTIN if c.ours not in REGISTERED]


def supported() -> list[str]:
    """The minigrad classes that convert, by name (registered ones first)."""
    return [c.ours.__name__ for c in _table()]


# --- walking a model ---------------------------------------------------------------------
def _where(path: str) -> str:
    return f"{path!r}" if path else "the model itself"


def _unsupported(module, path: str, to_torch: bool) -> TypeError:
    cls = type(module).__name__
    names = ([c.ours.__name__ for c in _table()] if to_torch
             else [f"torch.nn.{c.torch_name()}" for c in _table()])
    hint = ""
    if type(module).__module__ == neurons.__name__:
        hint = (" The scalar engine's MLP converts on its own (to_torch(mlp): a Sequential of "
                "Linear and ReLU); a Neuron or Layer alone, or inside another model, does "
                "not: build the network from nn.Linear and nn.ReLU to cross.")
    direction = "to torch" if to_torch else "from torch"
    return TypeError(
        f"cannot convert {_where(path)} (a {cls}) {direction}: minigrad.interop converts "
        + ", ".join(names) + " (these exact classes, not subclasses); "
        "minigrad.interop.register(...) adds a class of your own." + hint)


def _lookup(module, to_torch: bool, torch=None) -> Counterpart | None:
    for entry in _table():
        cls = entry.ours if to_torch else entry.torch_class(torch)
        if type(module) is cls:
            return entry
    return None


def _children(module, ours_side: bool) -> list:
    """``(name, child)`` pairs, a child used twice listed twice (torch's
    ``named_children`` lists it once, which would drop ``Sequential(a, b, a)``'s third)."""
    if ours_side:
        return module.named_children()
    return [(n, m) for n, m in vars(module).get("_modules", {}).items() if m is not None]


def _build(root, to_torch: bool, torch):
    """The converted structure (no weights yet); a shared module is converted once."""
    done: dict[int, object] = {}

    def build(module, path):
        if id(module) in done:
            return done[id(module)]
        entry = _lookup(module, to_torch, torch)
        if entry is None:
            raise _unsupported(module, path, to_torch)
        children = {name: build(child, f"{path}.{name}" if path else name)
                    for name, child in _children(module, to_torch)}
        try:
            out = (entry.to_torch if to_torch else entry.from_torch)(module, children)
        except _Refused as e:
            raise TypeError(f"cannot convert {_where(path)} (a {type(module).__name__}) "
                            f"{'to' if to_torch else 'from'} torch: {e}") from None
        done[id(module)] = out
        return out

    return build(root, "")


def torch_state_dict_keys(module) -> OrderedDict:
    """``{minigrad state_dict key: torch state_dict key}`` for a minigrad model, in order.

    Raises the unsupported-layer ``TypeError`` if some module of it does not convert.
    The names are the same on both sides (see the module docstring); this is the
    mapping ``to_torch``/``from_torch`` copy weights by, and the tests compare it with
    torch's own ``state_dict().keys()``.
    """
    for path, m in module.named_modules():
        if _lookup(m, True) is None:
            raise _unsupported(m, path, True)
    return OrderedDict((key, key) for key in module.state_dict())


def _check_keys(ours_keys, theirs_keys, root) -> None:
    """A registered builder whose module's keys differ would copy weights to nowhere."""
    missing, extra = set(ours_keys) - set(theirs_keys), set(theirs_keys) - set(ours_keys)
    if missing or extra:
        raise TypeError(f"converting a {type(root).__name__}: the two models' state_dict keys "
                        f"differ (only minigrad's: {sorted(missing)}; only torch's: "
                        f"{sorted(extra)}); a registered pair must use the same attribute "
                        "names")


def _torch_keys(t) -> list[str]:
    """torch's state_dict keys, each shared tensor once (as minigrad lists them)."""
    return [n for n, _ in t.named_parameters()] + [n for n, _ in t.named_buffers()]


def module_to_torch(module):
    """A new ``torch.nn.Module`` equal to ``module``: same structure, copied weights,
    buffers, train/eval flags and ``requires_grad`` flags.  torch's random stream is left
    as it was (the throwaway initial weights are drawn in a forked stream)."""
    torch = import_torch("minigrad.interop.to_torch")
    keys = torch_state_dict_keys(module)
    with torch.random.fork_rng(devices=[]):
        target = _build(module, True, torch)
    _check_keys(keys.values(), _torch_keys(target), module)
    state = {keys[k]: torch.from_numpy(v) for k, v in module.state_dict().items()}
    target.load_state_dict(state, strict=False)  # (strict would want shared tensors twice)
    theirs = dict(target.named_modules())
    for name, m in module.named_modules():
        theirs[name].training = bool(m.training)
    params = dict(target.named_parameters())
    for name, p in module.named_parameters():
        params[keys[name]].requires_grad_(bool(p.requires_grad))
    return target


def module_from_torch(module):
    """A new minigrad ``Module`` equal to the torch ``module`` (the reverse of
    ``module_to_torch``, with the same copies)."""
    torch = import_torch("minigrad.interop.from_torch")
    target = _build(module, False, torch)
    keys = torch_state_dict_keys(target)
    _check_keys(keys.values(), _torch_keys(module), target)
    state = module.state_dict()
    target.load_state_dict({k: np.array(state[t].detach().cpu().numpy(), copy=True)
                            for k, t in keys.items()})
    mine = dict(target.named_modules())
    for name, t in module.named_modules():
        mine[name].__dict__["training"] = bool(t.training)  # this module only, as train() does
    params = dict(module.named_parameters())
    for name, p in target.named_parameters():
        p.requires_grad = bool(params[keys[name]].requires_grad)
    return target

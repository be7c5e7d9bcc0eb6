"""Forward-mode automatic differentiation: a tangent rides along with every value.

Reverse mode (``backward``) records a graph on the way forward and walks it
back once, giving the derivative of *one output* with respect to *every
input*.  Forward mode does the opposite: it pushes the derivative along a
chosen *input direction* ``v`` through the computation as it runs, with no
graph and no second pass, and gets the derivative of *every output* in that
direction, the Jacobian-vector product ``J·v``.

**Dual numbers.**  Write each value as ``a + ȧε``, where ε is a number with
``ε² = 0`` (a "nilpotent" infinitesimal).  Then arithmetic carries derivatives
by itself::

    (a + ȧε)(b + ḃε) = ab + (ȧb + aḃ)ε          (the product rule)
    f(a + ȧε)       = f(a) + f'(a)·ȧ ε          (Taylor: the ε² terms vanish)

The ε part of the result is the derivative.  So ``make_dual(x, v)`` gives ``x``
a tangent ``v`` (the ε part), every op computes its result's tangent from its
inputs' (``ṫ_out = Σᵢ ∂out/∂xᵢ · ṫᵢ``, ``tangents.output_tangent``), and
``unpack_dual(y)`` reads the ε part of any result.

**Cost.**  One forward pass gives ``J·v`` for one direction ``v``: about the
price of the function itself, two or three times.  The full Jacobian of
``f: ℝⁿ → ℝᵐ`` takes ``n`` passes (one per input direction) in forward mode,
``m`` in reverse mode: forward wins for few inputs and many outputs, reverse
for the usual many-parameters-one-loss of training.

The API and its semantics are PyTorch's ``torch.autograd.forward_ad``::

    with dual_level():
        x = make_dual(x0, v)           # x0 with tangent v
        y = f(x)
        y_primal, jvp = unpack_dual(y)  # f(x0) and J·v

Tangents live only inside their ``dual_level``: when it exits every tangent
it made is forgotten.  Levels do not nest here.  Forward mode needs no graph
and ignores grad mode; it combines with backward: tangents also flow through
the nodes a ``create_graph=True`` backward builds, so the tangent of a
gradient is a Hessian-vector product (forward-over-reverse).  Works for
``Tensor`` and for ``Value`` (``make_dual(Value(2.0), 1.0)``: dual numbers).
"""

from __future__ import annotations

import numbers
import threading
import weakref
from collections import namedtuple

import numpy as np

from ..core.modes import DERIVE, STATE, unwatch, watch
from ..core.node import Node, origin_of
from ..core.op import OpExample, define_op, op_example, passthrough
from ..core.standin import ARRAYS
from .tangents import NoForwardRuleError, forward_rules, output_tangent

__all__ = ["dual_level", "make_dual", "unpack_dual", "UnpackedDualTensor", "forward_mode_paused",
           "refuse_stale_inplace", "NoForwardRuleError", "active", "tangent_of", "set_tangent",
           "flow_tangent"]

#: what ``unpack_dual`` returns (PyTorch's name): the value and its tangent
UnpackedDualTensor = namedtuple("UnpackedDualTensor", ["primal", "tangent"])


class _Level:
    """One active dual level: which origins hold its tangents (cleared on exit)."""

    __slots__ = ("index", "carriers")

    def __init__(self, index: int):
        self.index = index
        self.carriers = weakref.WeakSet()


_LEVELS = [0]  # how many levels were entered so far (each gets a fresh index)


class _Dual(threading.local):
    #: the active level in this thread, or ``None``
    level = None
    #: its watcher's token (``core.modes.watch``)
    entry = None


_DUAL = _Dual()


def active() -> bool:
    """True inside a dual level in this thread."""
    return _DUAL.level is not None


def _set_level(level) -> object:
    """Enter (a level) or leave (``None``) forward mode in this thread; returns the previous
    level.  While one is active every new node is shown to ``_flow``, which computes its
    tangent."""
    prev = _DUAL.level
    if prev is not None:
        unwatch(_DUAL.entry)
        _DUAL.entry = None
    _DUAL.level = level
    if level is not None:
        _DUAL.entry = watch(DERIVE, _flow)
    return prev


class dual_level:
    """``with dual_level():`` forward mode is on inside the block (``as`` gives its index).

    On exit every tangent made inside is dropped, as in PyTorch: a dual tensor kept
    past the block is a plain value again.  Nesting is not supported.
    """

    def __enter__(self) -> int:
        if _DUAL.level is not None:
            raise RuntimeError(
                "dual_level: nested forward-mode levels are not supported (one is already "
                "active in this thread); leave it first, or compute both directions in one "
                "level")
        _LEVELS[0] += 1
        self._level = _Level(_LEVELS[0])
        _set_level(self._level)
        return self._level.index

    def __exit__(self, *exc) -> bool:
        level = self._level
        _set_level(None)
        for origin in list(level.carriers):
            origin.tangent = None
        level.carriers.clear()
        return False


def _dual_forward(x):
    return x, ()


def _no_tangent(tangents, *saved):
    return None


def _ops(engine: str):
    """The two bookkeeping ops of forward mode for an engine (internal ops: they are not
    math a student defines, but they draw and step like any op)."""
    cases = ({"cases": lambda rng: [((rng.uniform(-2, 2, s),), {}) for s in ((), (3, 4))]}
             if engine == "tensor" else {"domain": ((-2.0, 2.0),)})
    dual = define_op(
        internal=True, name="make_dual", engine=engine, symbol="dual", forward=_dual_forward,
        grads=(passthrough,), jvp=_no_tangent, formulas=("∂/∂primal = 1",), **cases,
        doc="The primal's value with a tangent attached; gradients pass through.")
    primal = define_op(
        internal=True, name="primal", engine=engine, symbol="primal", forward=_dual_forward,
        grads=(passthrough,), jvp=_no_tangent, formulas=("∂/∂x = 1",), **cases,
        doc="A dual value's primal part, with no tangent; gradients pass through.")
    return dual, primal


_OPS = {"tensor": _ops("tensor"), "scalar": _ops("scalar")}

_BOOKKEEPING = ("its tangent is not derived from its input's: make_dual attaches the tangent "
                "it is given, primal drops it "
                "(tests/minigrad/autograd/test_forward_ad.py checks both)")


@op_example("make_dual, primal")
def _dual_examples() -> list:
    """The table tests' inputs for ``make_dual`` and ``primal``: each op itself (the
    identity, gradients passing through) on each engine."""
    return [OpExample(op=op, cases=op.cases, skip={"forward_mode": _BOOKKEEPING})
            for pair in _OPS.values() for op in pair]


def _engine(x) -> str:
    return "tensor" if isinstance(x.data, ARRAYS) else "scalar"


def make_dual(primal, tangent):
    """A new node with ``primal``'s value (sharing its data) carrying ``tangent``.

    ``tangent`` must have the primal's shape and dtype: a Tensor, an array, or, for
    a Value (or a 0-d tensor), a number.  Gradients flow through to ``primal``.
    Only inside ``dual_level()``.
    """
    if not isinstance(primal, Node):
        raise TypeError(f"make_dual: the primal must be a Tensor or a Value, got "
                        f"{type(primal).__name__}")
    if _DUAL.level is None:
        raise RuntimeError("make_dual: forward mode is off; call it inside "
                           "`with minigrad.autograd.forward_ad.dual_level():`")
    engine = _engine(primal)
    t = _checked_tangent(primal, tangent, engine)
    node = primal.engine_class.apply(_OPS[engine][0], primal)
    set_tangent(node, t)
    for recorder in STATE.recorders:
        tell = getattr(recorder, "dual", None)
        if callable(tell):
            tell(node, t)
    return node


def _checked_tangent(primal, tangent, engine):
    if isinstance(tangent, Node):
        if primal.engine_class is not tangent.engine_class:
            raise TypeError(f"make_dual: a {type(primal).__name__} primal takes a "
                            f"{type(primal).__name__} tangent, got a {type(tangent).__name__}")
        tangent = tangent.data
    if engine == "scalar":
        if isinstance(tangent, bool) or not isinstance(tangent, numbers.Real):
            raise TypeError(f"make_dual: a Value's tangent is a real number, got "
                            f"{type(tangent).__name__}")
        return float(tangent)
    data = primal.data
    if data.dtype.kind != "f":
        raise TypeError(f"make_dual: only floating tensors have tangents; the primal is "
                        f"{data.dtype}")
    if isinstance(tangent, ARRAYS):  # (an array, or a batch of them inside vmap)
        if tangent.dtype != data.dtype or tangent.shape != data.shape:
            raise ValueError(_mismatch(data, tangent))
        return tangent
    if isinstance(tangent, bool) or not isinstance(tangent, (numbers.Real, list, tuple)):
        raise TypeError(f"make_dual: a tangent is a Tensor, an array or a number, got "
                        f"{type(tangent).__name__}")
    arr = np.asarray(tangent, dtype=data.dtype)
    if arr.shape != data.shape:
        raise ValueError(_mismatch(data, arr))
    return arr


def _mismatch(data, tangent) -> str:
    return (f"make_dual: the tangent must have the primal's shape and dtype: primal "
            f"{data.shape} {data.dtype}, tangent {tangent.shape} {tangent.dtype}")


def unpack_dual(x) -> UnpackedDualTensor:
    """``(primal, tangent)`` of ``x`` at the active level: the primal a node with ``x``'s
    value and no tangent (gradients flow through it to ``x``), the tangent a constant of
    the same engine, or ``None`` when ``x`` has none (and ``x`` itself as the primal)."""
    if not isinstance(x, Node):
        raise TypeError(f"unpack_dual: expected a Tensor or a Value, got {type(x).__name__}")
    t = tangent_of(x) if _DUAL.level is not None else None
    if t is None:
        return UnpackedDualTensor(x, None)
    cls = x.engine_class
    primal = cls.apply(_OPS[_engine(x)][1], x)
    return UnpackedDualTensor(primal, cls.constant(t))


class forward_mode_paused:
    """``with forward_mode_paused():`` no tangents are computed inside (a custom
    Function's ``forward`` and ``jvp`` run so: the Function's own rule gives its
    tangent).  Costs one check when forward mode is off."""

    def __enter__(self):
        self._level = _DUAL.level
        if self._level is not None:
            _set_level(None)
        return self

    def __exit__(self, *exc) -> bool:
        if self._level is not None:
            _set_level(self._level)
        return False


def refuse_stale_inplace(target, other, symbol: str) -> None:
    """``target <symbol>= other`` in place, inside a dual level, where either side has a
    tangent: refused, since the tangent cannot follow a change made behind the op
    record (``target`` would keep its old tangent).  ``x = x + y`` works."""
    if _DUAL.level is None:
        return
    if tangent_of(target) is None and (not isinstance(other, Node) or tangent_of(other) is None):
        return
    which = "it" if tangent_of(target) is not None else "the operand"
    raise RuntimeError(
        f"in-place '{symbol}=' on a tensor of shape {target.data.shape} inside a dual level, "
        f"with a forward-mode tangent on {which}: "
        f"the tangent would go stale; write x = x {symbol} y (a new node, with its tangent)")


# --- forward mode: the tangent of each new node ----------------------------------------
def tangent_of(node):
    """``node``'s forward-mode tangent (raw data, like ``node.data``), or ``None``."""
    origin = node.origin
    return None if origin is None else origin.tangent


def set_tangent(node, tangent) -> None:
    """Give ``node`` a tangent at the active dual level, which forgets it on exit."""
    origin = origin_of(node)
    origin.tangent = tangent
    _DUAL.level.carriers.add(origin)


def _flow(node) -> None:
    """The watcher of an active dual level (stage ``DERIVE``): each new node gets its
    tangent from its op and its inputs' tangents, recorded by a graph or not."""
    if node.op is not None:
        flow_tangent(node, node.op, node.parents, node.saved, node.attrs)
        return
    made = STATE.unrecorded  # a constant leaf an op made with no graph to record it in
    if made is not None:
        STATE.unrecorded = None
        flow_tangent(node, made.op, made.parents, made.saved, made.attrs)


def flow_tangent(node, op, parents, saved, attrs) -> None:
    """Forward mode for one op: ``ṫ_node = Σᵢ ∂node/∂parentᵢ · ṫᵢ`` from the parents'
    tangents (``tangents.output_tangent``), attached to ``node`` as it is made.

    Nothing here needs a graph: the parents are at hand while the op runs, so a
    result that no graph records gets its tangent too.  Recorders with a
    ``tangent`` method hear each edge's share (see ``tape.py``).
    """
    tangents = [tangent_of(p) for p in parents]
    if all(t is None for t in tangents):
        return
    parts = [] if STATE.recorders else None
    total = output_tangent(op, [p.data for p in parents], node.data, saved, attrs,
                           tangents, parts)
    if total is None:
        return
    set_tangent(node, total)
    if parts is not None:
        _announce_tangent(node, op, parents, saved, attrs, tangents, parts, total)


def _announce_tangent(node, op, parents, saved, attrs, tangents, parts, total) -> None:
    """Each edge's share of ``node``'s tangent, to recorders that listen for it: the
    parts of an op with one rule per input, else (one ``jvp``, ``linear``) each edge
    that brought a tangent, with slot and share ``None``: the rule took them at once.
    A scalar op's edge also tells its bare derivative, the rule at ṫ = 1."""
    listeners = [r.tangent for r in STATE.recorders if callable(getattr(r, "tangent", None))]
    if not listeners:
        return
    if not parts:
        parts = [(None, None, parent, t) for parent, t in zip(parents, tangents) if t is not None]
    else:
        parts = [(slot, part, parents[slot], tangents[slot]) for slot, part in parts]
    rules = forward_rules(op) if op.engine == "scalar" else ()
    for slot, part, parent, incoming in parts:
        derivative = (None if slot is None or not rules
                      else rules[slot](1.0, *saved, **(attrs or {})))
        for tell in listeners:
            tell(node, op, parent, slot, incoming, part, total, derivative)

"""Custom ops: subclass ``Function`` with a forward and a backward.

The PyTorch pattern, on the same graph record as every built-in op::

    class Cube(minigrad.Function):
        '''∂(x³)/∂x = 3x²'''

        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.data ** 3

        @staticmethod
        def backward(ctx, grad_out):
            (x,) = ctx.saved_tensors
            return grad_out * 3 * x * x

    y = Cube.apply(t)

``forward`` receives the inputs as given (Tensors, or Values) and runs with
grad mode off; it may return a Tensor, a numpy array or a number, or a tuple
of them: several outputs sharing one backward (``autograd/outputs.py``), each
knowing its ``output_nr``; ``backward(ctx, *grads)`` then gets one gradient per
output, zeros for an output nobody used (``None`` for an integer one), as in
PyTorch.
``backward`` receives the upstream gradient (a Tensor, or a float for
Values) and returns one gradient per ``forward`` input: ``None`` for an input
that needs none (check ``ctx.needs_input_grad``).  A gradient in a broadcast
shape is summed down to its input's shape by the engine.

Each subclass gets one ``Op`` (name and symbol = the class name, formula = the
docstring's first line or a ``formula`` class attribute), so renderers, trace
recorders and the step-through widgets show custom ops with no extra code.
Arguments that are not graph nodes (``Clamp.apply(x, 0.0, hi=1.0)``) are
the node's settings: kept in its ``attrs`` under ``forward``'s parameter
names (``lo=0.0, hi=1.0``), where the renderers show them as they show a
built-in op's ``axis``.  Numbers, strings and short tuples of them are kept
as they are; an array or a tensor only as a description (``<array (1000,
1000) float64>``), since ``attrs`` live as long as the graph.
Forward mode (``autograd.forward_ad``): a ``jvp(ctx, *tangents)`` staticmethod,
PyTorch's name, is the Function's forward-mode rule.  It gets the same ``ctx``
``forward`` saw (``saved_tensors`` works), one tangent per ``forward`` argument
(zeros for an input with no tangent, ``None`` for a setting) and returns the
output's tangent, ``Σᵢ ∂out/∂xᵢ · ṫᵢ``.  ``forward`` itself runs with forward
mode paused, as it runs with grad mode off.  A Function without ``jvp`` in a
forward-mode pass raises ``NoForwardRuleError`` naming it.

Custom ops are not put in the global registry: the registry-wide gradient
test covers the built-in ops only; check yours with ``minigrad.gradcheck``.

Derivatives of derivatives: in a ``create_graph`` backward pass, ``backward``
runs with grad mode on, gets the upstream gradient as a graph node, and
``saved_tensors`` gives back the very inputs and output that were saved, as
nodes; so a ``backward`` written with Tensor (or Value) operations is itself
recorded, and the Function is twice differentiable for free.  A ``backward``
that computes on raw numpy arrays cannot be recorded: decorate it with
``@once_differentiable`` and a ``create_graph`` pass through it stops with an
error naming the Function, instead of a silently wrong second derivative.

Memory: ``save_for_backward`` data lives in the node's ``saved`` and is
released after backward; other attributes you set on ``ctx`` live as long as
the graph does, so keep large arrays in ``save_for_backward``.
"""

from __future__ import annotations

import inspect
import numbers
from functools import partial

import numpy as np

from .autograd.forward_ad import forward_mode_paused
from .autograd.outputs import record_outputs
from .core.accumulate import unbroadcastable
from .core.modes import grad_enabled, no_grad
from .core.node import Node, init_node
from .core.op import Op
from .engines.higher_order import NotTwiceDifferentiableError
from .engines.output_grads import OutputGrads
from .tensor import Tensor
from .tensor.arguments import constant
from .value import Value

__all__ = ["Function", "FunctionCtx", "once_differentiable"]


def once_differentiable(backward):
    """Mark a ``Function.backward`` that computes on raw arrays (numpy, not Tensor ops):
    its result cannot be differentiated again, so a ``create_graph`` backward through
    the Function raises ``NotTwiceDifferentiableError`` naming it."""
    fn = backward.__func__ if isinstance(backward, staticmethod) else backward
    fn.once_differentiable = True
    return backward


class FunctionCtx:
    """What a ``Function`` keeps between its forward and backward."""

    def __init__(self, fn_name: str, needs_input_grad: tuple):
        self._fn = fn_name
        self.needs_input_grad = needs_input_grad
        self._to_save = ()
        self._saved = None  # set while backward runs
        self._kinds = ()

    def save_for_backward(self, *values) -> None:
        """Keep tensors (or arrays, numbers, None) for backward; read them via ``saved_tensors``."""
        self._to_save = values

    @property
    def saved_tensors(self) -> tuple:
        if self._saved is None:
            return self._to_save  # still inside forward
        out = []
        for kind, v in zip(self._kinds, self._saved):
            if isinstance(v, Node):  # a create_graph pass: the saved input or output itself
                out.append(v)
            elif kind == "tensor":
                out.append(constant(Tensor, v))
            elif kind == "value":
                out.append(Value(v, requires_grad=False))
            else:
                out.append(v)
        return tuple(out)

    def __repr__(self) -> str:
        return f"<{self._fn} ctx>"


def _saved_entry(v):
    """(kind, raw data) for a value passed to save_for_backward."""
    if isinstance(v, Tensor):
        return "tensor", v.data
    if isinstance(v, Value):
        return "value", v.data
    return "raw", v


class Function:
    """Base class of user-defined differentiable ops (see the module doc)."""

    formula: str | None = None
    symbol: str | None = None
    _op: Op | None = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        doc = (cls.__doc__ or "").strip()
        formula = cls.formula or (doc.splitlines()[0].strip() if doc else "custom backward")
        name = cls.__name__

        def forward(*xs, **attrs):
            raise TypeError(f"{name} is a custom Function: call {name}.apply(...)")

        jvp = partial(_jvp, cls) if callable(getattr(cls, "jvp", None)) else None
        cls._op = Op(name=name, engine="custom", symbol=cls.symbol or name,
                     forward=forward, vjp=partial(_vjp, cls), jvp=jvp, formulas=(formula,),
                     variadic=True, doc=doc, function=cls)
        cls._arg_names = _argument_names(cls.forward)

    @staticmethod
    def forward(ctx, *inputs):
        raise NotImplementedError("a Function subclass must define forward(ctx, *inputs)")

    @staticmethod
    def backward(ctx, grad_out):
        raise NotImplementedError("a Function subclass must define backward(ctx, grad_out)")

    @classmethod
    def apply(cls, *args, **kwargs):
        """Run ``forward`` and record one graph node whose op is this class's ``Op``."""
        if cls._op is None:
            raise TypeError("call apply() on a subclass of Function, not on Function itself")
        nodes = [a for a in args if isinstance(a, Node)]
        if not nodes:
            raise TypeError(f"{cls.__name__}.apply: give at least one Tensor or Value input")
        for key, v in kwargs.items():
            if isinstance(v, Node) and v.requires_grad:
                raise TypeError(
                    f"{cls.__name__}.apply: keyword argument {key!r} requires grad, but only "
                    f"positional inputs become parents and get gradients; pass it "
                    f"positionally (keyword arguments are constant settings)")
        scalar = isinstance(nodes[0], Value)
        if any(isinstance(n, Value) != scalar for n in nodes):
            raise TypeError(f"{cls.__name__}.apply: inputs mix Tensors and Values; "
                            "the scalar and tensor engines do not mix")
        recording = grad_enabled()
        needs = tuple(isinstance(a, Node) and a.requires_grad and recording for a in args)
        ctx = FunctionCtx(cls.__name__, needs)
        with no_grad(), forward_mode_paused():
            out = cls.forward(ctx, *args, **kwargs)
        several = isinstance(out, tuple)
        out = (tuple(_output_data(cls, o, scalar, nodes) for o in out) if several
               else _output_data(cls, out, scalar, nodes))
        entries = [_saved_entry(v) for v in ctx._to_save]
        ctx._to_save = ()  # the node's ``saved`` owns them now (released after backward)
        ctx._kinds = tuple(k for k, _ in entries)
        saved = tuple(v for _, v in entries)
        # parent slot -> position in args, so backward's results can be routed
        ctx._positions = tuple(i for i, a in enumerate(args) if isinstance(a, Node))
        ctx._nargs = len(args)
        ctx._shapes = tuple(np.shape(n.data) for n in nodes)  # to check backward's results
        ctx._out_shape = np.shape(out)  # and jvp's
        ctx._scalar = scalar
        ctx._dtypes = tuple(getattr(n.data, "dtype", None) for n in nodes)  # (jvp's zeros)
        # ctx is the node's bookkeeping for backward, kept with its settings on both engines
        attrs = {**_settings(cls, args, kwargs), "ctx": ctx}
        if several:
            return record_outputs(Value if scalar else Tensor, cls._op, nodes, out, saved, attrs)
        node = object.__new__(Value if scalar else Tensor)
        return init_node(node, out, cls._op, tuple(nodes), saved, attrs, scalar)


def _argument_names(forward) -> tuple:
    """The names of ``forward``'s positional parameters after ``ctx`` (empty for *args)."""
    try:
        params = list(inspect.signature(forward).parameters.values())[1:]
    except (TypeError, ValueError):
        return ()
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return tuple(p.name for p in params if p.kind in positional)


def _settings(cls, args, kwargs) -> dict:
    """The arguments that are not graph nodes, by parameter name (``arg2`` where
    ``forward`` has no name for the position): what the node shows as its settings."""
    names = cls._arg_names
    settings = {}
    for i, a in enumerate(args):
        if not isinstance(a, Node):
            settings[names[i] if i < len(names) else f"arg{i}"] = _shown(a)
    for key, a in kwargs.items():
        settings[key] = _shown(a)
    settings.pop("ctx", None)  # the name the node's own bookkeeping uses
    return settings


_PLAIN = (bool, int, float, complex, str, bytes, np.generic, type(None))


def _shown(value):
    """What a node keeps of a setting: a plain value as it is, anything that may hold
    memory (an array, a tensor, a model) as a description, so that it is freed when
    the caller lets it go, as the module doc promises for what is not saved."""
    if isinstance(value, _PLAIN):
        return value
    if isinstance(value, tuple) and len(value) <= 8 and all(isinstance(v, _PLAIN) for v in value):
        return value
    data = value.data if isinstance(value, Node) else value
    if isinstance(data, np.ndarray):
        kind = type(value).__name__ if isinstance(value, Node) else "array"
        return Described(f"<{kind} {data.shape} {data.dtype}>")
    return Described(f"<{type(value).__name__}>")


class Described:
    """A setting shown by its description (its ``repr``), not kept."""

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return self.text


def _output_data(cls, out, scalar, nodes):
    name = cls.__name__
    if scalar:
        if isinstance(out, Value):
            return out.data
        if isinstance(out, numbers.Real) and not isinstance(out, bool):
            return float(out)
        raise TypeError(f"{name}.forward must return a Value or a number for Value inputs, "
                        f"got {type(out).__name__}")
    if isinstance(out, Tensor):
        return out.data
    if isinstance(out, np.ndarray):
        return out
    if isinstance(out, (numbers.Real, np.generic)) and not isinstance(out, bool):
        like = next((n.data.dtype for n in nodes if n.data.dtype.kind == "f"), np.float32)
        return np.asarray(out, dtype=like)
    raise TypeError(f"{name}.forward must return a Tensor, an array or a number, "
                    f"got {type(out).__name__}")


def _vjp(cls, g, /, *saved, ctx, **settings):
    """The op's vjp: run the Function's ``backward`` once, one gradient per parent."""
    return _run_backward(cls, ctx, g, saved)


def _jvp(cls, tangents, /, *saved, ctx, **settings):
    """The op's forward-mode rule: the Function's ``jvp``, given one tangent per argument
    (a zero tangent for an input that has none, ``None`` for a setting, as in PyTorch)."""
    name = cls.__name__
    per_arg = [None] * ctx._nargs
    for slot, position in enumerate(ctx._positions):
        t = tangents[slot]
        if ctx._scalar:
            per_arg[position] = 0.0 if t is None else t
        else:
            zero = t is None
            t = np.zeros(ctx._shapes[slot], ctx._dtypes[slot]) if zero else t
            per_arg[position] = constant(Tensor, t)
    ctx._saved = saved
    try:
        with no_grad(), forward_mode_paused():
            result = cls.jvp(ctx, *per_arg)
    finally:
        ctx._saved = None
    if isinstance(result, Node):
        result = result.data
    if result is None or isinstance(result, (tuple, list)):
        raise TypeError(f"{name}.jvp must return the output's tangent (one Tensor, array "
                        f"or number), got {type(result).__name__}")
    if ctx._scalar:
        return float(result)
    result = np.asarray(result)
    out_shape = ctx._out_shape
    if result.shape != out_shape and not unbroadcastable(out_shape, result.shape):
        raise ValueError(f"{name}.jvp returned a tangent of shape {result.shape} for an "
                         f"output of shape {out_shape}")
    return result


def _run_backward(cls, ctx, g, saved):
    name = cls.__name__
    # one gradient per output (zeros for an unused one), or the one output's gradient
    grads = g.filled() if g.__class__ is OutputGrads else (g,)
    if any(isinstance(x, Node) for x in grads):  # create_graph: backward is recorded too
        return _run_backward_recorded(cls, ctx, grads, saved)
    scalar = not any(isinstance(x, np.ndarray) for x in grads)
    ctx._saved = saved
    try:
        with no_grad():
            result = cls.backward(ctx, *(x if scalar or x is None else constant(Tensor, x)
                                         for x in grads))
    finally:
        ctx._saved = None
    per_parent = _per_parent(cls, ctx, result)
    positions = ctx._positions
    out = []
    for slot, gr in enumerate(per_parent):
        if gr is None:
            if ctx.needs_input_grad[positions[slot]]:
                raise ValueError(f"{name}.backward returned None for input {positions[slot]}, "
                                 "which needs a gradient")
            out.append(None)
            continue
        if isinstance(gr, Node):
            gr = gr.data
        if scalar:
            out.append(float(gr))
            continue
        gr = np.asarray(gr)
        shape = ctx._shapes[slot]
        if gr.shape != shape and not unbroadcastable(gr.shape, shape):
            raise ValueError(
                f"{name}.backward returned a gradient of shape {gr.shape} for input "
                f"{positions[slot]}, which has shape {shape}: each gradient must have its "
                f"input's shape (or a shape that broadcasting made from it)")
        # The engine may keep a result as a leaf's .grad: never let two inputs share one
        # array, or a gradient be an array that was saved (e.g. an input's own data).
        if any(gr is other for other in out) or any(gr is s for s in saved):
            gr = gr.copy()
        out.append(gr)
    return out


def _per_parent(cls, ctx, result) -> list:
    """backward's results, one per parent (it may return one per forward argument)."""
    if not isinstance(result, tuple):
        result = (result,)
    positions = ctx._positions
    if len(result) == ctx._nargs:
        return [result[i] for i in positions]
    if len(result) == len(positions):
        return list(result)
    raise ValueError(f"{cls.__name__}.backward returned {len(result)} gradients, but forward "
                     f"took {ctx._nargs} inputs ({len(positions)} of them tensors)")


def _run_backward_recorded(cls, ctx, grads, saved):
    """``backward`` in a ``create_graph`` pass: grad mode on, nodes in and out."""
    if getattr(cls.backward, "once_differentiable", False):
        raise NotTwiceDifferentiableError(
            f"{cls.__name__}.backward is marked @once_differentiable (it computes on raw "
            f"arrays), so a backward pass through {cls.__name__} cannot build a graph "
            f"(create_graph=True); rewrite backward with Tensor operations to lift that")
    ctx._saved = saved
    like = next(x for x in grads if isinstance(x, Node)).engine_class
    try:  # (an unused output's zeros as a constant of the engine, like the others' nodes)
        result = cls.backward(ctx, *(x if x is None or isinstance(x, Node) else
                                     like.constant(np.asarray(x) if like is Tensor else x)
                                     for x in grads))
    finally:
        ctx._saved = None
    out = []
    for slot, gr in enumerate(_per_parent(cls, ctx, result)):
        if gr is None and ctx.needs_input_grad[ctx._positions[slot]]:
            raise ValueError(f"{cls.__name__}.backward returned None for input "
                             f"{ctx._positions[slot]}, which needs a gradient")
        out.append(gr)
    return out

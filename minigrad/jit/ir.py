"""A traced program: the op records of one run of a function, as a list of equations.

minigrad's graph nodes already are an IR: each says which registry op made it,
from which inputs, with which settings.  A ``Trace`` keeps that and drops the
values, so it can be printed, rewritten by passes and run again on new inputs:

* ``Var``: a value of the program, with its shape and dtype.  Its ``kind`` says
  where it comes from: an ``input`` of the function, a ``param`` (a tensor the
  function captured that requires grad: read afresh at each call, gets a
  gradient), a ``const`` (anything else captured: a Python number, a buffer) or
  ``op`` (made by an equation).
* ``Eqn``: ``out = op(*ins, **attrs)``, one registry op.  A fused equation
  (``passes.fuse_elementwise``) also keeps the equations it replaced, in ``body``.
* ``Trace``: inputs, params, consts, equations in order, outputs.  It prints as
  a tape, one line per op, and ``trace(*inputs)`` runs it (an interpreter over
  the equations, no graph recorded; ``jit.compile`` makes a differentiable one).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ..tensor import Tensor
from ..tensor.arguments import as_array_result, prepare_dtypes
from .picture import picture_nodes

__all__ = ["Var", "Eqn", "Trace", "short_dtype", "type_text", "COMPILER"]

#: ``compiled.compile_trace``, set when that module loads (it imports this one, so this
#: one cannot import it): what ``Trace.source()`` calls
COMPILER: list = [None]

KINDS = ("input", "param", "const", "op")
_SHORT = {"float32": "f32", "float64": "f64", "float16": "f16", "int64": "i64",
          "int32": "i32", "bool": "bool", "uint8": "u8", "int8": "i8"}


def short_dtype(dtype) -> str:
    """``f32`` for float32 ...: the tape's type notation (JAX's jaxprs print the same)."""
    return _SHORT.get(np.dtype(dtype).name, np.dtype(dtype).name)


def type_text(shape, dtype) -> str:
    """``f32[4,4]``: a value's dtype and shape, as the tape prints them."""
    return f"{short_dtype(dtype)}[{','.join(map(str, shape))}]"


@dataclass(eq=False)
class Var:
    """One value of a traced program (identity is what matters: vars are never equal)."""

    name: str
    kind: str
    shape: tuple
    dtype: np.dtype
    #: what a param or const is read from: the captured Tensor (read at each call, so an
    #: optimizer's in-place update is seen), or a raw array for a folded constant
    source: Any = None
    requires_grad: bool = False

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"Var {self.name}: kind must be one of {KINDS}, got {self.kind!r}")

    @property
    def value(self):
        """A param's or const's current value (raw array)."""
        src = self.source
        return src.data if isinstance(src, Tensor) else src

    def __repr__(self) -> str:
        return f"{self.name}:{type_text(self.shape, self.dtype)}"


@dataclass(eq=False)
class Eqn:
    """``out = op(*ins, **attrs)``; a fused equation keeps what it replaced in ``body``."""

    op: Any
    ins: tuple
    out: Var
    attrs: dict | None = None
    body: tuple | None = None

    def line(self) -> str:
        """This equation as one line of the tape."""
        args = ", ".join(v.name for v in self.ins)
        attrs = "".join(f" {k}={_attr_text(v)}" for k, v in (self.attrs or {}).items())
        name = self.op.name if self.body is None else self.op.symbol
        return f"{self.out.name} = {name} {args}{attrs}"


def _attr_text(v) -> str:
    if isinstance(v, np.ndarray):
        return f"<array {type_text(v.shape, v.dtype)}>"
    return repr(v)


@dataclass(eq=False)
class Trace:
    """A traced program (see the module doc); passes return new traces."""

    inputs: list
    params: list
    consts: list
    eqns: list
    outputs: list
    name: str = "f"
    #: what the passes did, one line each (``passes.py``), for the lesson's printouts
    history: list = field(default_factory=list)

    # --- facts -----------------------------------------------------------------------
    @property
    def vars(self) -> list:
        return [*self.inputs, *self.params, *self.consts, *(e.out for e in self.eqns)]

    def users(self) -> dict:
        """``{var: number of uses}`` by equations and outputs (a var used twice counts twice)."""
        count: dict = {}
        for e in self.eqns:
            for v in e.ins:
                count[v] = count.get(v, 0) + 1
        for v in self.outputs:
            count[v] = count.get(v, 0) + 1
        return count

    def counts(self) -> dict:
        """How many equations, fused equations and ops inside them: what a pass changed."""
        fused = [e for e in self.eqns if e.body is not None]
        return {"eqns": len(self.eqns), "fused": len(fused),
                "ops": sum(len(e.body) if e.body is not None else 1 for e in self.eqns)}

    def signature(self) -> tuple:
        """``((shape, dtype), ...)`` of the inputs: what a new call must match."""
        return tuple((v.shape, v.dtype) for v in self.inputs)

    def copy(self, **changes) -> Trace:
        return replace(self, **{"history": list(self.history), **changes})

    # --- printing ----------------------------------------------------------------------
    def __str__(self) -> str:
        head = ", ".join(map(repr, self.inputs))
        outs = ", ".join(v.name for v in self.outputs)
        lines = [f"trace {self.name}({head}) -> {outs}"]
        for v in self.params:
            lines.append(f"  {v!r} = param{_label(v)}")
        for v in self.consts:
            lines.append(f"  {v!r} = const {_const_text(v)}")
        width = max([len(e.line()) for e in self.eqns] + [0])
        for e in self.eqns:
            lines.append(f"  {e.line():<{width}}   # {type_text(e.out.shape, e.out.dtype)}")
            for inner in e.body or ():
                lines.append(f"  {'':4}| {inner.line()}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        c = self.counts()
        return (f"<Trace {self.name}: {len(self.inputs)} inputs, {len(self.params)} params, "
                f"{c['eqns']} eqns ({c['fused']} fused, {c['ops']} ops)>")

    # --- running ---------------------------------------------------------------------
    def check_inputs(self, args) -> list:
        """The raw arrays of ``args``, checked against the traced shapes and dtypes."""
        if len(args) != len(self.inputs):
            raise TypeError(f"trace {self.name} takes {len(self.inputs)} inputs, got {len(args)}")
        datas = []
        for v, a in zip(self.inputs, args):
            d = a.data if isinstance(a, Tensor) else np.asarray(a)
            if d.shape != v.shape or d.dtype != v.dtype:
                raise ValueError(
                    f"trace {self.name}: input {v.name} was traced as "
                    f"{type_text(v.shape, v.dtype)}, got {type_text(d.shape, d.dtype)}; a trace "
                    f"runs on the shapes and dtypes it was traced with (jit retraces for you)")
            datas.append(d)
        return datas

    def run(self, *args) -> list:
        """Run every equation's forward on raw arrays, in order; returns the outputs' arrays."""
        env = {v: d for v, d in zip(self.inputs, self.check_inputs(args))}
        for v in (*self.params, *self.consts):
            env[v] = v.value
        for e in self.eqns:
            env[e.out] = run_eqn(e, [env[v] for v in e.ins])[0]
        return [env[v] for v in self.outputs]

    def __call__(self, *args):
        """Run on new inputs of the traced shapes and dtypes: Tensors with no graph."""
        outs = [Tensor(o, dtype=o.dtype) for o in self.run(*args)]
        return outs[0] if len(outs) == 1 else tuple(outs)

    def source(self) -> str:
        """The Python source ``jit.compile`` generates for this trace (forward and backward)."""
        if COMPILER[0] is None:
            raise RuntimeError("import minigrad.jit to compile a trace")
        return COMPILER[0](self).source()

    # (``viz.draw(trace)`` walks these: the outputs as graph nodes, see ``picture.py``)
    def __iter__(self):
        return iter(picture_nodes(self))


def _label(v) -> str:
    src = v.source
    label = getattr(src, "label", None)
    return f"  # {label}" if label else ""


def _const_text(v) -> str:
    value = v.value
    if isinstance(value, np.ndarray) and value.size == 1:
        return repr(value.reshape(()).item())
    return f"<array {type_text(v.shape, v.dtype)}>"


def run_eqn(e: Eqn, datas: list):
    """``(out, saved)`` of one equation on raw arrays, as ``apply_op`` computes it."""
    op = e.op
    if op.float_only or op.promote:
        datas = list(datas)
        prepare_dtypes(op, datas)
    out, saved = op.forward(*datas, **(e.attrs or {}))
    if out.__class__ is not np.ndarray:
        out, saved = as_array_result(out, saved)
    return out, saved

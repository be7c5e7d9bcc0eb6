"""A trace compiled to Python: one generated forward, one generated backward, one graph node.

``compile_trace(trace)`` writes the trace out as straight-line Python source:

* the **forward** calls each equation's op in order: a one-ufunc op as its
  ufunc (``np.multiply(x0, p0)``), any other op through its forward, a fused
  equation through its kernel (``kernels.py``); it returns the output and what
  the backward will read;
* the **backward** is the reverse-mode walk unrolled: for each equation, last
  first, the registry's gradient rule of each input that needs a gradient,
  called with the equation's saved values; contributions to a value used twice
  are added (``g5 = g5 + c``), and summed down to the input's shape
  (``unbroadcast``) where the op broadcast it.  Rules that pass ``g`` on
  (``passthrough``) are not called.  Gradients of inputs that need none are
  never computed (the trace knows which do: ``needs``).

The compiled trace runs as ONE registry op per trace (``Compiled.op``, not
registered globally), applied through ``apply_op``: eager code around it
backpropagates through it, and ``viz.draw`` shows it as one node.  Its backward
runs on raw arrays, so ``create_graph=True`` through it is a clear error.
``Compiled.source()`` is the generated text, to read.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from ..autograd.accumulate import unbroadcast
from ..autograd.registry import Op, passthrough
from ..tensor import Tensor, apply_op
from .ir import COMPILER, Eqn, Trace, run_eqn
from .passes import op_kernel

__all__ = ["Compiled", "compile_trace"]


def _fit(c, shape, dtype):
    """A non-elementwise rule's result in its input's shape and dtype (None stays None)."""
    if c is None:
        return None
    c = np.asarray(c)
    if c.shape != shape:
        c = unbroadcast(c, shape)
    return c if c.dtype == dtype else c.astype(dtype)


def _run(op, attrs, *datas):
    """An equation through ``run_eqn``: dtype preparation and 0-d results, as apply_op does."""
    return run_eqn(Eqn(op, (), None, attrs), list(datas))


class Compiled:
    """A compiled trace: call it like the traced function (see the module doc)."""

    def __init__(self, trace: Trace, needs: tuple | None = None, backend: str | None = None):
        if len(trace.outputs) != 1:
            raise NotImplementedError(
                f"jit.compile: {trace.name} returns {len(trace.outputs)} values; a compiled "
                f"trace is one graph node with one output (return them stacked, or call "
                f"the trace itself, which runs without gradients)")
        self.trace = trace
        self.backend = backend
        parents = [*trace.inputs, *trace.params]
        if needs is None:
            needs = tuple(v.dtype.kind == "f" for v in parents)
        self.needs = tuple(needs)
        self._source, namespace = _generate(trace, parents, self.needs)
        exec(compile(self._source, f"<minigrad.jit {trace.name}>", "exec"), namespace)  # noqa: S102
        self.op = Op(name=f"jit_{trace.name}", engine="tensor", symbol=f"jit[{trace.name}]",
                     forward=namespace["forward"], vjp=namespace["backward"], variadic=True,
                     formulas=(f"the backward of {trace.name}'s trace, unrolled",),
                     twice_differentiable=False, doc=self._source)
        self.params = [v.source for v in trace.params]

    def __call__(self, *args):
        """Run on inputs of the traced shapes and dtypes: one recorded graph node."""
        return apply_op(self.op, *args, *self.params)

    def source(self) -> str:
        """The generated Python: the fused kernels, then the forward and the backward."""
        kernels = [op_kernel[e.op].source for e in self.trace.eqns if e.op in op_kernel]
        return "\n".join([*kernels, self._source])

    def __repr__(self) -> str:
        return f"<Compiled {self.trace!r}>"


def compile_trace(trace: Trace, needs: tuple | None = None,
                  backend: str | None = None) -> Compiled:
    """``trace`` as a ``Compiled`` function (``needs``: per input then param, whether it
    needs a gradient; by default every floating one)."""
    return Compiled(trace, needs, backend)


def _generate(trace, parents, needs):
    """The source of ``forward`` and ``backward``, and the names it refers to."""
    ns = {"np": np, "unbroadcast": unbroadcast, "fit": _fit, "run": _run}
    name = {}
    for i, v in enumerate(parents):
        name[v] = f"x{i}" if v.kind == "input" else f"p{i - len(trace.inputs)}"
    fwd = [f"def forward({', '.join(name[v] for v in parents)}):"]
    for i, v in enumerate(trace.consts):
        ns[f"C{i}"] = v.source
        name[v] = f"c{i}"
        fwd.append(f"    c{i} = C{i}{'.data' if isinstance(v.source, Tensor) else ''}")
    # which values need a gradient: those that depend on a parent that needs one
    need = {v for v, n in zip(parents, needs) if n}
    for e in trace.eqns:
        if any(v in need for v in e.ins) and e.out.dtype.kind == "f":
            need.add(e.out)
    saved_names: dict = {}  # eqn -> text of its saved values, for the backward's calls
    for k, e in enumerate(trace.eqns):
        out = name[e.out] = f"v{k}"
        ins = [name[v] for v in e.ins]
        fwd.append(f"    # {e.line()}")
        fwd.append(f"    {_forward_call(e, k, out, ins, ns, saved_names)}")
    bwd, used = _backward(trace, parents, needs, need, name, ns, saved_names)
    keep = [n for n in dict.fromkeys(used)]
    fwd.append(f"    return {name[trace.outputs[0]]}, ({''.join(n + ', ' for n in keep)})")
    head = f"def backward(g, {''.join(n + ', ' for n in keep)}):"
    return "\n".join(fwd + ["", head] + bwd) + "\n", ns


def _forward_call(e, k, out, ins, ns, saved_names) -> str:
    op = e.op
    dtypes = {v.dtype for v in e.ins}
    plain = (len(dtypes) <= 1 and not (op.float_only and e.ins and e.ins[0].dtype.kind != "f")
             and e.out.shape != ())
    if op.ufunc is not None and not e.attrs and plain:
        ns[op.ufunc.__name__] = op.ufunc
        saved_names[e] = {"nothing": [], "inputs": ins, "output": [out]}[op.saves]
        return f"{out} = {op.ufunc.__name__}({', '.join(ins)})"
    saved_names[e] = [f"*s{k}"]
    if plain and e.attrs is None:
        ns[f"F{k}"] = op.forward
        return f"{out}, s{k} = F{k}({', '.join(ins)})"
    if plain:
        ns[f"F{k}"] = partial(op.forward, **e.attrs)
        return f"{out}, s{k} = F{k}({', '.join(ins)})  # attrs {_attrs(e.attrs)}"
    ns[f"OP{k}"] = op
    ns[f"A{k}"] = e.attrs
    return f"{out}, s{k} = run(OP{k}, A{k}, {', '.join(ins)})"


def _attrs(attrs) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in attrs.items() if not isinstance(v, np.ndarray))


def _backward(trace, parents, needs, need, name, ns, saved_names):
    """The backward's lines, and the forward names it reads (its arguments)."""
    lines, used = [], []
    grad = {trace.outputs[0]: "g"}
    for k in range(len(trace.eqns) - 1, -1, -1):
        e = trace.eqns[k]
        g = grad.get(e.out)
        if g is None or not any(v in need for v in e.ins):
            continue
        op = e.op
        saved = saved_names[e]
        used.extend(s.lstrip("*") for s in saved)
        args = ", ".join([g, *saved])
        lines.append(f"    # {e.line()}")
        if op.vjp is not None:
            ns[f"V{k}"] = partial(op.vjp, **e.attrs) if e.attrs else op.vjp
            lines.append(f"    r{k} = V{k}({args})")
            parts = [f"r{k}[{slot}]" for slot in range(len(e.ins))]
        else:
            parts = []
            for slot, rule in enumerate(op.grads):
                if rule is passthrough:
                    parts.append(g)
                    continue
                ns[f"R{k}_{slot}"] = partial(rule, **e.attrs) if e.attrs else rule
                parts.append(f"R{k}_{slot}({args})")
        for slot, (v, part) in enumerate(zip(e.ins, parts)):
            if v not in need:
                continue
            c = f"c{k}_{slot}"
            lines.append(f"    {c} = {_fitted(e, v, part)}")
            if v in grad:
                lines.append(f"    {grad[v]} = {grad[v]} + {c}")
            else:
                grad[v] = f"g{name[v]}"
                lines.append(f"    {grad[v]} = {c}")
    results = [grad.get(v, "None") if n else "None" for v, n in zip(parents, needs)]
    lines.append(f"    return ({''.join(r + ', ' for r in results)})")
    return lines, used


def _fitted(e, v, part) -> str:
    """A contribution to input ``v`` of ``e`` in ``v``'s shape and dtype."""
    if e.body is not None:  # a kernel's backward already fits its inputs
        return part
    if not e.op.elementwise:
        return f"fit({part}, {v.shape!r}, np.{v.dtype.name})"
    text = part
    if v.shape != e.out.shape:
        text = f"unbroadcast({text}, {v.shape!r})"
    elif v.shape == ():
        text = f"np.asarray({text})"
    if v.dtype != e.out.dtype:
        text = f"{text}.astype(np.{v.dtype.name})"
    return text


COMPILER[0] = compile_trace

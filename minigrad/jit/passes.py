"""Passes: small functions from a ``Trace`` to a new ``Trace``, each doing one thing.

Print a trace before and after a pass to see what it did; each pass also
appends one line to ``trace.history``.

* ``dce``: dead-code elimination, drop equations no output depends on.
* ``cse``: common-subexpression elimination, one equation per distinct
  ``(op, inputs, attrs)``: ``x*y + x*y`` computes ``x*y`` once.
* ``freeze(trace, name=value, ...)``: make inputs constants with those values,
  so that ``fold_constants`` can precompute what depends only on them.
* ``fold_constants``: run equations whose inputs are all constants once, now,
  and keep their results as constants.
* ``fuse_elementwise``: each maximal chain of elementwise ops, every link used
  only by the next and of the chain's shape, becomes one fused equation with a
  generated kernel (``kernels.py``).  Ops whose code needs values to run
  (``relu``'s, ``where``'s, ``clip``'s and ``maximum``'s NaN-safe masks, ``abs``,
  ``erf``/``gelu``: see ``symbolic.py``) end a chain and stay as they are.
* ``optimize``: all of them, in that order (what ``jit`` runs).
"""

from __future__ import annotations

import weakref

import numpy as np

from ..core.op import OpExample, internal_op, op_example
from ..tensor import Tensor
from . import tracing
from .ir import Eqn, Trace, Var, run_eqn
from .kernels import build_kernel
from .symbolic import Unsymbolic

__all__ = ["dce", "cse", "freeze", "fold_constants", "fuse_elementwise", "optimize",
           "PASSES"]


def _noted(trace: Trace, before: Trace, what: str) -> Trace:
    a, b = before.counts(), trace.counts()
    trace.history.append(f"{what}: {a['eqns']} -> {b['eqns']} eqns")
    return trace


def dce(trace: Trace) -> Trace:
    """Keep only equations some output depends on (walking back from the outputs)."""
    live = set(trace.outputs)
    kept = []
    for e in reversed(trace.eqns):
        if e.out in live:
            kept.append(e)
            live.update(e.ins)
    consts = [v for v in trace.consts if v in live]
    params = [v for v in trace.params if v in live]
    return _noted(trace.copy(eqns=kept[::-1], consts=consts, params=params), trace, "dce")


def _attr_key(attrs) -> tuple:
    def key(v):
        if isinstance(v, np.ndarray):
            return ("array", id(v))
        if isinstance(v, (list, tuple)):
            return tuple(key(x) for x in v)
        return v

    return tuple(sorted((k, key(v)) for k, v in (attrs or {}).items()))


def cse(trace: Trace) -> Trace:
    """Compute each distinct ``(op, inputs, attrs)`` once; later copies reuse the first."""
    seen, rename, eqns = {}, {}, []
    for e in trace.eqns:
        ins = tuple(rename.get(v, v) for v in e.ins)
        key = (id(e.op), tuple(id(v) for v in ins), _attr_key(e.attrs))
        if key in seen:
            rename[e.out] = seen[key]
            continue
        seen[key] = e.out
        eqns.append(Eqn(e.op, ins, e.out, e.attrs, e.body))
    outputs = [rename.get(v, v) for v in trace.outputs]
    return _noted(trace.copy(eqns=eqns, outputs=outputs), trace, "cse")


def freeze(trace: Trace, **values) -> Trace:
    """Inputs named in ``values`` become constants with those values (arrays or Tensors):
    a trace specialised to them, for ``fold_constants`` to precompute what they decide."""
    known = {v.name for v in trace.inputs}
    values = {n: getattr(x, "data", x) for n, x in values.items()}
    for n in values:
        if n not in known:
            raise ValueError(f"freeze: {trace.name} has no input {n!r}; inputs: "
                             f"{', '.join(sorted(known))}")
    rename, inputs, consts = {}, [], list(trace.consts)
    for v in trace.inputs:
        if v.name in values:
            value = np.asarray(values[v.name])
            if value.shape != v.shape or value.dtype != v.dtype:
                raise ValueError(f"freeze: {v.name} was traced as {v!r}, got "
                                 f"{value.dtype}{list(value.shape)}")
            c = Var(v.name, "const", v.shape, v.dtype, value)
            rename[v] = c
            consts.append(c)
        else:
            inputs.append(v)
    eqns = [Eqn(e.op, tuple(rename.get(v, v) for v in e.ins), e.out, e.attrs, e.body)
            for e in trace.eqns]
    outputs = [rename.get(v, v) for v in trace.outputs]
    out = trace.copy(inputs=inputs, consts=consts, eqns=eqns, outputs=outputs)
    out.history.append(f"freeze {', '.join(values)}")
    return out


def fold_constants(trace: Trace) -> Trace:
    """Equations whose inputs are all constants run now; their outputs become constants."""
    consts, eqns, rename = list(trace.consts), [], {}
    for e in trace.eqns:
        ins = tuple(rename.get(v, v) for v in e.ins)
        if ins and all(v.kind == "const" for v in ins):
            value, _ = run_eqn(e, [v.value for v in ins])
            c = Var(e.out.name, "const", value.shape, value.dtype, value)
            rename[e.out] = c
            consts.append(c)
            continue
        eqns.append(Eqn(e.op, ins, e.out, e.attrs, e.body))
    outputs = [rename.get(v, v) for v in trace.outputs]
    return _noted(trace.copy(consts=consts, eqns=eqns, outputs=outputs), trace,
                  "fold_constants")


def _fusable(e: Eqn) -> bool:
    """An elementwise op on floats whose forward and rules run on symbols."""
    if not (e.body is None and e.op.elementwise and e.op.grads
            and all(v.dtype.kind == "f" for v in e.ins) and e.out.dtype.kind == "f"):
        return False
    try:
        build_kernel([e], list(dict.fromkeys(e.ins)), "numpy", check_only=True)
    except Unsymbolic:
        return False
    return True


def fuse_elementwise(trace: Trace, backend: str | None = None) -> Trace:
    """Each maximal chain of elementwise ops becomes one fused equation (module doc)."""
    users = trace.users()
    chains: list[list] = []
    current: list = []
    for e in trace.eqns:
        if _fusable(e) and current and _extends(current, e, users):
            current.append(e)
            continue
        if current:
            chains.append(current)
        current = [e] if _fusable(e) else []
        if not current:
            chains.append([e])
    if current:
        chains.append(current)
    eqns = []
    for chain in chains:
        eqns.extend(_fused(chain, backend, len(eqns)) if len(chain) > 1 else chain)
    return _noted(trace.copy(eqns=eqns), trace, "fuse_elementwise")


def _extends(chain, e, users) -> bool:
    """``e`` continues ``chain``: it reads the chain's last value, which nothing else reads,
    reads no earlier value of the chain, and keeps the chain's shape."""
    last = chain[-1].out
    inside = {x.out for x in chain[:-1]}
    return (last in e.ins and users[last] == sum(v is last for v in e.ins)
            and not inside.intersection(e.ins) and e.out.shape == last.shape)


def _fused(chain, backend, index) -> list:
    """The chain as one equation; as it was, cut short, if some op needs values to run."""
    ins = []
    inside = {e.out for e in chain}
    for e in chain:
        for v in e.ins:
            if v not in inside and v not in ins:
                ins.append(v)
    try:
        kernel = build_kernel(chain, ins, backend, name=f"fused{index}")
    except Unsymbolic:  # (each op alone runs on symbols; together, they may not)
        return chain
    names = [e.op.name for e in chain]
    op = internal_op(
        "fused", name="fused", engine="tensor", symbol=f"fused[{' '.join(names)}]",
        forward=kernel.forward, vjp=kernel.backward, variadic=True,
        formulas=(f"the chain {' → '.join(names)}, its rules run in reverse",),
        twice_differentiable=False, doc=kernel.source)
    op_kernel[op] = kernel
    return [Eqn(op, tuple(ins), chain[-1].out, None, tuple(chain))]


#: each fused op's kernel (its generated source, its backend)
op_kernel: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

PASSES = {"dce": dce, "cse": cse, "fold_constants": fold_constants,
          "fuse_elementwise": fuse_elementwise}


def optimize(trace: Trace, backend: str | None = None) -> Trace:
    """``dce``, ``cse``, ``fold_constants``, ``dce`` again, then ``fuse_elementwise``."""
    t = dce(fold_constants(cse(dce(trace))))
    return fuse_elementwise(t, backend)


def _example_chain(x, y):
    """The example chain: ``exp(tanh(x·y))``, three elementwise ops, y broadcast."""
    return (x * y).tanh().exp()


@op_example("fused")
def _fused_examples() -> list:
    """The table tests' inputs for the ops ``fuse_elementwise`` makes (one per chain): the
    chain of ``_example_chain``, traced on float64 (3, 4) and (4,) inputs and fused."""
    x, y = Tensor(np.ones((3, 4)), requires_grad=True), Tensor(np.ones(4), requires_grad=True)
    fused = [e.op for e in fuse_elementwise(tracing.trace(_example_chain, x, y)).eqns]
    assert len(fused) == 1 and fused[0].name == "fused", fused
    return [OpExample(
        op=fused[0], plain=_example_chain,
        cases=lambda rng: [((rng.uniform(-2, 2, (3, 4)), rng.uniform(-2, 2, (4,))), {})])]

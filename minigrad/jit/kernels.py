"""Fused kernels: a chain of elementwise equations as one generated forward and backward.

The chain's forward is read from its ops' own code (``symbolic.py``) as one
expression graph, and so is its backward: each op's gradient rules are run on
symbols in reverse order, the adjoints summed where a value is used twice
(``adjoint[v] += rule(adjoint[out], *saved)``), the classic reverse-mode walk
done once, at compile time.  Gradients for the chain's inputs are summed down
to their shapes (``unbroadcast``) and cast to their dtypes at the end, the only
place a chain can broadcast or promote.  The forward keeps the values the
backward reads, as the eager ops' ``saved`` would.

The graph becomes Python source (``Kernel.source``) through a writer
(``writers.py``): numpy calls, by blocks for large arrays (the default), or
``numexpr`` expressions (``backend="numexpr"``, when installed).
"""

from __future__ import annotations

import types

import numpy as np

from ..core.accumulate import unbroadcast
from ..ops.tensor import masked
from .symbolic import Expr, Sym, leaf, symbolic_forward, symbolic_rule
from .writers import (
    BLOCK_MIN,
    NE_BINARY,
    NE_UNARY,
    NUMPY_CALLS,
    REUSE_MIN,
    BlockedWriter,
    NumexprWriter,
    NumpyWriter,
    in_parts,
    one_value,
    size_of,
    walk,
)

__all__ = ["Kernel", "build_kernel", "numexpr_module", "fast_numpy", "NUMEXPR_MIN",
           "DEFAULT_BACKEND"]

#: the backend ``jit`` uses unless told: numpy, measured faster than numexpr on the
#: machines this was written on (numexpr's float32 exp and tanh, without Intel's VML,
#: are several times slower than numpy's SIMD ones; see benchmarks/jit.py)
DEFAULT_BACKEND = ["numpy"]
#: below this many elements numexpr's per-call cost outweighs its one pass over memory
NUMEXPR_MIN = 1 << 15

def fast_numpy():
    """numpy's names in a module whose attributes Python reads quickly: the ``np`` of
    generated code.

    Generated code says ``np.multiply(a, b)``, hundreds of times per call for a long
    chain of small arrays.  numpy's module defines ``__getattr__`` (for its deprecated
    names), and CPython does not specialise attribute reads on such a module, so
    each ``np.x`` is a full lookup: 7% of the tiny 4x4 chain's kernel, counted with
    callgrind.  This copy of numpy's namespace, minus ``__getattr__``, runs the same
    functions.
    """
    if not _FAST_NP:
        module = types.ModuleType("numpy", np.__doc__)
        module.__dict__.update((k, v) for k, v in vars(np).items() if k != "__getattr__")
        _FAST_NP.append(module)
    return _FAST_NP[0]


_FAST_NP: list = []


def numexpr_module():
    """``numexpr`` if installed (``pip install minigrad-kit[jit]``), else ``None``."""
    try:
        import numexpr
    except ImportError:
        return None
    return numexpr


class Kernel:
    """A fused chain's generated ``forward(*ins) -> (out, saved)`` and ``backward(g, *saved)``.

    ``fresh``: per input, whether the gradient ``backward`` returns for it is a new
    array that nothing else holds (not ``g``, not an input or saved value, not
    returned twice), so that the engine may keep it as a ``.grad`` without a copy.
    """

    def __init__(self, source: str, namespace: dict, backend: str, n_inputs: int,
                 fresh: tuple = ()):
        self.source = source
        self.fresh = fresh
        self.backend = backend
        code = compile(source, f"<minigrad.jit kernel ({backend})>", "exec")
        exec(code, namespace)  # noqa: S102  (our own generated source, shown by .source)
        self.forward = namespace["forward"]
        self.backward = namespace["backward"]
        self.n_inputs = n_inputs


def build_kernel(eqns, ins, backend: str | None = None, name: str = "kernel",
                 check_only: bool = False) -> Kernel | None:
    """The kernel of the chain ``eqns`` whose outside inputs are ``ins`` (Vars, in order).

    Raises ``symbolic.Unsymbolic`` when some op of the chain needs values to run.
    """
    syms = {v: leaf(f"a{i}", v.shape, v.dtype) for i, v in enumerate(ins)}
    saved_of = {}
    for e in eqns:
        out, saved = symbolic_forward(e.op, [syms[v] for v in e.ins], e.attrs)
        syms[e.out] = Sym(out.expr)
        saved_of[e] = saved
    last = eqns[-1].out
    adjoint = {last: leaf("g", last.shape, last.dtype)}
    parts: dict = {}
    for e in reversed(eqns):
        g = adjoint.get(e.out)
        if g is None:
            continue
        if not e.op.grads:
            raise_unsymbolic(f"{e.op.name} has one vjp, not rules per input")
        for v, rule in zip(e.ins, e.op.grads):
            if v.dtype.kind != "f" or v.kind == "const":
                continue
            c = symbolic_rule(rule, g, saved_of[e], e.attrs)
            if c is None:
                continue
            if v not in ins and (c.shape != v.shape):
                raise_unsymbolic("a value inside the chain was broadcast")
            if v not in ins and c.dtype != v.dtype:
                c = c.astype(v.dtype)
            if v in ins and (c.shape != v.shape or c.dtype != v.dtype):
                # summed down and cast one edge at a time, then added, as the engine does
                parts.setdefault(v, []).append(c.expr)
                continue
            adjoint[v] = c if v not in adjoint else adjoint[v] + c
    per_input = [parts.get(v) or ([adjoint[v].expr] if v in adjoint else []) for v in ins]
    grads = [e for exprs in per_input for e in exprs]
    if check_only:
        return None
    out_expr = syms[last].expr
    size = int(np.prod(last.shape, dtype=np.int64))
    if backend is None:
        backend = DEFAULT_BACKEND[0]
    if backend not in ("numpy", "numexpr"):
        raise ValueError(f"jit: backend must be 'numpy' or 'numexpr', got {backend!r}")
    if backend == "numexpr":
        if numexpr_module() is None:
            raise ImportError("jit: backend='numexpr' needs numexpr (pip install "
                              "minigrad-kit[jit]); the default backend is 'numpy'")
        if size < NUMEXPR_MIN or not _numexpr_can(out_expr, grads):
            backend = "numpy"  # (small arrays: numexpr's per-call cost outweighs its pass)
    if backend == "numexpr":
        writer = NumexprWriter()
    elif size >= BLOCK_MIN and all(e.shape == last.shape or size_of(e.shape) == 1
                                   for e in _leaf_names(out_expr, grads)):
        writer = BlockedWriter(last.shape, size)
    else:
        writer = NumpyWriter(size >= REUSE_MIN)
    source, fresh = _source(writer, out_expr, grads, per_input, ins, last, name, eqns)
    namespace = {"np": fast_numpy(), "unbroadcast": unbroadcast, "one_value": one_value,
                 "in_parts": in_parts, "masked": masked}
    if backend == "numexpr":
        namespace["evaluate"] = numexpr_module().evaluate
    return Kernel(source, namespace, writer.backend, len(ins), fresh)


def raise_unsymbolic(why: str):
    from .symbolic import Unsymbolic

    raise Unsymbolic(why)


def _numexpr_can(*roots) -> bool:
    flat = [r for x in roots for r in (x if isinstance(x, list) else [x])]
    for e in walk(flat, set()):
        if e.fn not in NUMPY_CALLS and e.fn not in NE_BINARY and e.fn not in NE_UNARY and (
                e.fn != "where"):
            return False
        if e.dtype.kind not in "fb":
            return False
    return True


def _source(writer, out_expr, grads, per_input, ins, last, name, eqns):
    """Both functions of one kernel (see the module doc for what each backend keeps), and
    which of its gradients are fresh arrays (``Kernel.fresh``)."""
    args = ", ".join(f"a{i}" for i in range(len(ins)))
    ops = " ".join(e.op.name for e in eqns)
    lines = [f"# {name}: fused {ops}  ({writer.backend})", f"def forward({args}):"]
    leaves = _leaf_names(out_expr, grads)
    # what the backward reads of the forward: inputs, and (numpy) the values it computed
    fwd_nodes = set(walk([out_expr], set()))
    shared = [e for e in walk(grads, set()) if e in fwd_nodes
              and _used_by_backward(e, grads, fwd_nodes)]
    fwd_body, fwd_names = writer.emit([out_expr, *shared], leaves, "t")
    lines += [f"    {s}" for s in fwd_body]
    out_name = fwd_names[out_expr]
    if last.shape == ():
        out_name = f"np.asarray({out_name})"
    used_leaves = sorted({n for g in grads if g is not None for n in _leaf_names_of(g)}
                         - {"g"})
    keep = used_leaves + [fwd_names[e] for e in shared]
    lines.append(f"    return {out_name}, ({''.join(k + ', ' for k in keep)})")
    lines.append("")
    lines.append(f"def backward(g, {''.join(k + ', ' for k in keep)}):")
    if writer.backend != "numpy" and not any(r is not None and r.fn == "leaf" for r in grads):
        lines.append("    g = one_value(g)  # (a broadcast array is read slowly, or not by blocks)")
    given = dict(leaves)
    for e in shared:
        given[e] = fwd_names[e]
    bwd_body, bwd_names = writer.emit(grads, given, "b")
    lines += [f"    {s}" for s in bwd_body]
    results, fresh = [], []
    inputs = set(given.values())  # names of arrays the backward was given: never fresh
    returned = [bwd_names[exprs[0]] for exprs in per_input if len(exprs) == 1]
    for v, exprs in zip(ins, per_input):
        texts, new = [], len(exprs) > 1  # a sum of parts is a new array
        for gexpr in exprs:
            text = bwd_names[gexpr]
            new = new or (text not in inputs and returned.count(text) == 1)
            if gexpr.shape != v.shape:
                text = f"unbroadcast({text}, {v.shape!r})"  # (a sum: new)
                new = True
            elif v.shape == ():
                text = f"np.asarray({text})"
            if gexpr.dtype != v.dtype:
                text = f"{text}.astype(np.{v.dtype.name})"  # (a copy: new)
                new = True
            texts.append(text)
        results.append(" + ".join(texts) or "None")
        fresh.append(bool(exprs) and new)
    lines.append(f"    return ({''.join(r + ', ' for r in results)})")
    return "\n".join(lines) + "\n", tuple(fresh)


def _leaf_names(*roots) -> dict:
    found = {}
    flat = [r for x in roots for r in (x if isinstance(x, list) else [x]) if r is not None]
    stack, seen = list(flat), set()
    while stack:
        e = stack.pop()
        if e in seen:
            continue
        seen.add(e)
        if e.fn == "leaf":
            found[e] = e.args[0]
        for a in e.args:
            if isinstance(a, Expr):
                stack.append(a)
    return found


def _leaf_names_of(root) -> set:
    return set(_leaf_names(root).values())


def _used_by_backward(e, grads, fwd_nodes) -> bool:
    """Whether a backward-only node (or a gradient itself) reads forward node ``e``."""
    if any(g is e for g in grads):
        return True
    return any(e in b.args for b in walk(grads, set()) if b not in fwd_nodes)


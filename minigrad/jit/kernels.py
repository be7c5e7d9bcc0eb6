"""Fused kernels: a chain of elementwise equations as one generated forward and backward.

The chain's forward is read from its ops' own code (``symbolic.py``) as one
expression graph, and so is its backward: each op's gradient rules are run on
symbols in reverse order, the adjoints summed where a value is used twice
(``adjoint[v] += rule(adjoint[out], *saved)``), the classic reverse-mode walk
done once, at compile time.  Gradients for the chain's inputs are summed down
to their shapes (``unbroadcast``) and cast to their dtypes at the end, the only
place a chain can broadcast or promote.

Two ways to run the graph, one generated source each (``Kernel.source``):

* ``numexpr`` (when installed, for arrays of at least ``NUMEXPR_MIN`` elements,
  and when every call is one numexpr knows): each value used once is inlined
  into its user, so the forward is one pass over memory, in cache-sized blocks,
  on all cores.  The backward recomputes the forward values it needs from the
  inputs instead of keeping them (rematerialisation: memory for arithmetic).
* ``numpy``: one ufunc call per expression node.  For large arrays each call
  writes into a buffer that an earlier value of the kernel no longer needs
  (``out=``), instead of allocating a temporary per op.  The forward keeps the
  values the backward reads, as the eager ops' ``saved`` would.
"""

from __future__ import annotations

import numpy as np

from ..autograd.accumulate import unbroadcast
from .symbolic import UFUNCS, Expr, Sym, leaf, symbolic_forward, symbolic_rule

__all__ = ["Kernel", "build_kernel", "numexpr_module", "NUMEXPR_MIN"]

#: below this many elements numexpr's per-call cost outweighs its one pass over memory
NUMEXPR_MIN = 1 << 15
#: below this many elements numpy's ``out=`` keyword costs more than a fresh small array
REUSE_MIN = 1 << 12

_NE_BINARY = {"add": "+", "subtract": "-", "multiply": "*", "true_divide": "/", "divide": "/",
              "power": "**", "greater": ">", "greater_equal": ">=", "less": "<",
              "less_equal": "<=", "equal": "==", "not_equal": "!=", "logical_and": "&",
              "logical_or": "|"}
_NE_CALL = {"exp": "exp", "log": "log", "sqrt": "sqrt", "tanh": "tanh", "absolute": "abs",
            "where": "where"}
_NE_UNARY = {"negative": "-", "logical_not": "~"}


def numexpr_module():
    """``numexpr`` if installed (``pip install minigrad-kit[jit]``), else ``None``."""
    try:
        import numexpr
    except ImportError:
        return None
    return numexpr


class Kernel:
    """A fused chain's generated ``forward(*ins) -> (out, saved)`` and ``backward(g, *saved)``."""

    def __init__(self, source: str, namespace: dict, backend: str, n_inputs: int):
        self.source = source
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
            adjoint[v] = c if v not in adjoint else adjoint[v] + c
    grads = [adjoint[v].expr if v in adjoint else None for v in ins]
    if check_only:
        return None
    out_expr = syms[last].expr
    size = int(np.prod(last.shape, dtype=np.int64))
    if backend is None:
        backend = ("numexpr" if numexpr_module() is not None and size >= NUMEXPR_MIN
                   and _numexpr_can(out_expr, grads) else "numpy")
    elif backend == "numexpr" and not _numexpr_can(out_expr, grads):
        backend = "numpy"
    writer = _NumexprWriter() if backend == "numexpr" else _NumpyWriter(size >= REUSE_MIN)
    source = _source(writer, out_expr, grads, ins, last, name, eqns)
    namespace = {"np": np, "unbroadcast": unbroadcast}
    if backend == "numexpr":
        namespace["evaluate"] = numexpr_module().evaluate
    return Kernel(source, namespace, backend, len(ins))


def raise_unsymbolic(why: str):
    from .symbolic import Unsymbolic

    raise Unsymbolic(why)


def _walk(roots, stop) -> list:
    """Non-leaf, non-constant nodes reachable from ``roots`` (stopping at ``stop``),
    each after its arguments; iterative."""
    order, seen, stack = [], set(), [(r, False) for r in reversed(roots) if r is not None]
    while stack:
        e, done = stack.pop()
        if e.fn in ("leaf", "const") or e in stop:
            continue
        if done:
            order.append(e)
            continue
        if e in seen:
            continue
        seen.add(e)
        stack.append((e, True))
        for a in reversed(e.args):
            if isinstance(a, Expr) and a not in seen:
                stack.append((a, False))
    return order


def _uses(order, roots) -> dict:
    count: dict = {}
    for e in order:
        for a in e.args:
            if isinstance(a, Expr):
                count[a] = count.get(a, 0) + 1
    for r in roots:
        if r is not None:
            count[r] = count.get(r, 0) + 1
    return count


def _numexpr_can(*roots) -> bool:
    flat = [r for x in roots for r in (x if isinstance(x, list) else [x])]
    for e in _walk(flat, set()):
        if e.fn not in _NE_BINARY and e.fn not in _NE_CALL and e.fn not in _NE_UNARY:
            return False
        if e.dtype.kind not in "fb":
            return False
    return True


def _source(writer, out_expr, grads, ins, last, name, eqns) -> str:
    """Both functions of one kernel (see the module doc for what each backend keeps)."""
    args = ", ".join(f"a{i}" for i in range(len(ins)))
    ops = " ".join(e.op.name for e in eqns)
    lines = [f"# {name}: fused {ops}  ({writer.backend})", f"def forward({args}):"]
    leaves = _leaf_names(out_expr, grads)
    # what the backward reads of the forward: inputs, and (numpy) the values it computed
    if writer.recomputes:
        shared = []
    else:
        fwd_nodes = set(_walk([out_expr], set()))
        shared = [e for e in _walk(grads, set()) if e in fwd_nodes
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
    given = dict(leaves)
    for e in shared:
        given[e] = fwd_names[e]
    bwd_body, bwd_names = writer.emit(grads, given, "b")
    lines += [f"    {s}" for s in bwd_body]
    results = []
    for v, gexpr in zip(ins, grads):
        if gexpr is None:
            results.append("None")
            continue
        text = bwd_names[gexpr]
        if gexpr.shape != v.shape:
            text = f"unbroadcast({text}, {v.shape!r})"
        elif v.shape == ():
            text = f"np.asarray({text})"
        if gexpr.dtype != v.dtype:
            text = f"{text}.astype(np.{v.dtype.name})"
        results.append(text)
    lines.append(f"    return ({''.join(r + ', ' for r in results)})")
    return "\n".join(lines) + "\n"


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
    return any(e in b.args for b in _walk(grads, set()) if b not in fwd_nodes)


class _NumpyWriter:
    """One statement per node; large arrays reuse dead buffers through ``out=``."""

    backend = "numpy"
    recomputes = False

    def __init__(self, reuse: bool):
        self.reuse = reuse

    def emit(self, roots, given: dict, prefix: str):
        order = _walk(roots, set(given))
        uses = _uses(order, roots)
        names = dict(given)
        free: list = []  # (shape, dtype, name) of buffers whose value is dead
        owned = set()  # nodes whose buffer this function allocated
        lines = []
        for k, e in enumerate(order):
            args = [self.arg(a, names) for a in e.args]
            call = self.call(e, args)
            target = None
            if self.reuse and e.fn in UFUNCS:
                for a in e.args:  # the arguments' last use: their buffers are free now
                    if isinstance(a, Expr) and a in owned and uses[a] == 1 and a not in roots:
                        free.append((a.shape, a.dtype, names[a]))
                for i, (shape, dtype, buf) in enumerate(free):
                    if shape == e.shape and dtype == e.dtype:
                        target = buf
                        del free[i]
                        break
            for a in e.args:
                if isinstance(a, Expr):
                    uses[a] -= 1
            name = target or f"{prefix}{k}"
            names[e] = name
            owned.add(e)
            if target is not None:
                call = call[:-1] + f", out={target})"
            lines.append(f"{name} = {call}")
        return lines, names

    @staticmethod
    def arg(a, names):
        if not isinstance(a, Expr):
            return repr(a)
        if a.fn == "const":
            return _const_text(a.args[0])
        return names[a]

    @staticmethod
    def call(e, args):
        if e.fn == "cast":
            return f"{args[0]}.astype(np.{e.dtype.name})"
        return f"np.{e.fn}({', '.join(args)})"


def _const_text(x) -> str:
    if isinstance(x, np.generic):
        return f"np.{x.dtype.name}({x.item()!r})"
    return repr(x)


class _NumexprWriter:
    """Values used once are inlined; each value used twice is one ``evaluate`` call."""

    backend = "numexpr"
    recomputes = True

    def emit(self, roots, given: dict, prefix: str):
        order = _walk(roots, set(given))
        uses = _uses(order, roots)
        names = dict(given)
        lines = []
        for k, e in enumerate(order):
            if uses.get(e, 0) <= 1 and not any(e is r for r in roots):
                continue  # inlined into its one user
            consts: dict = {}
            text = self.text(e, names, uses, roots, consts, top=True)
            local = ", ".join(f"{n!r}: {n}" for n in sorted(self.leaves_in(text, names)))
            lines.extend(f"{c} = {_const_text(v)}" for c, v in consts.items())
            local = ", ".join(filter(None, [local] + [f"{c!r}: {c}" for c in consts]))
            names[e] = f"{prefix}{k}"
            lines.append(f"{prefix}{k} = evaluate({text!r}, local_dict={{{local}}})")
        return lines, names

    def text(self, e, names, uses, roots, consts, top=False) -> str:
        if not top and e in names:
            return names[e]
        if e.fn == "const":
            return self.const(e, consts)
        args = [self.text(a, names, uses, roots, consts, top=False) if a.fn != "const"
                else self.const(a, consts, like=e) for a in e.args]
        if e.fn in _NE_BINARY:
            return f"({args[0]} {_NE_BINARY[e.fn]} {args[1]})"
        if e.fn in _NE_UNARY:
            return f"({_NE_UNARY[e.fn]}{args[0]})"
        return f"{_NE_CALL[e.fn]}({', '.join(args)})"

    @staticmethod
    def const(c, consts, like=None) -> str:
        """A typed constant (numexpr would compute a float32 array times 0.5 in float64)."""
        x = c.args[0]
        if not isinstance(x, np.generic) and like is not None:
            kinds = [a.dtype for a in like.args if isinstance(a, Expr) and not a.is_const]
            dtype = np.result_type(*kinds) if kinds else like.dtype
            if dtype.kind == "b":
                dtype = np.dtype(type(x))
            x = dtype.type(x)
        name = f"k{len(consts)}"
        consts[name] = x if isinstance(x, np.generic) else np.float64(x)
        return name

    @staticmethod
    def leaves_in(text, names) -> set:
        import re

        found = set(re.findall(r"\b([agtb]\d*)\b", text))
        return {n for n in found if n in set(names.values())}

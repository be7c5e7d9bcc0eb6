"""Reference solution for exercise 23 (dead-code and common-subexpression elimination)."""

from minigrad.jit import Eqn, Trace

__all__ = ["dce", "cse"]


def dce(trace: Trace) -> Trace:
    """A copy of ``trace`` without the equations, params and consts no output needs."""
    live = set(trace.outputs)
    kept = []
    for e in reversed(trace.eqns):
        if e.out in live:
            kept.append(e)
            live.update(e.ins)
    return trace.copy(eqns=kept[::-1],
                      params=[v for v in trace.params if v in live],
                      consts=[v for v in trace.consts if v in live])


def cse(trace: Trace) -> Trace:
    """A copy of ``trace`` computing each distinct ``(op, inputs, attrs)`` once."""
    first, rename, eqns = {}, {}, []
    for e in trace.eqns:
        ins = tuple(rename.get(v, v) for v in e.ins)
        key = (e.op, ins, tuple(sorted((e.attrs or {}).items())))
        if key in first:
            rename[e.out] = first[key]
            continue
        first[key] = e.out
        eqns.append(Eqn(e.op, ins, e.out, e.attrs, e.body))
    return trace.copy(eqns=eqns, outputs=[rename.get(v, v) for v in trace.outputs])

"""Wrong answers that ``checks/ex23_trace_passes.py`` must reject (lesson 14)."""

from __future__ import annotations

from minigrad.jit import Eqn

from ._registry import mistake


@mistake("ex23", "dce", "keeps only the equations that make an output", "walk back")
def _direct_only(trace):
    kept = [e for e in trace.eqns if e.out in trace.outputs]
    return trace.copy(eqns=kept)


@mistake("ex23", "dce", "walks forward from the inputs", "no output needs")
def _forward(trace):
    live = set(trace.inputs)
    kept = []
    for e in trace.eqns:
        if any(v in live for v in e.ins):
            kept.append(e)
            live.add(e.out)
    return trace.copy(eqns=kept)


@mistake("ex23", "dce", "forgets to reverse the walk", "original order")
def _reversed(trace):
    live, kept = set(trace.outputs), []
    for e in reversed(trace.eqns):
        if e.out in live:
            kept.append(e)
            live.update(e.ins)
    return trace.copy(eqns=kept, params=[v for v in trace.params if v in live],
                      consts=[v for v in trace.consts if v in live])


@mistake("ex23", "dce", "keeps every param and const", "drop the params and consts")
def _keeps_leaves(trace):
    live, kept = set(trace.outputs), []
    for e in reversed(trace.eqns):
        if e.out in live:
            kept.append(e)
            live.update(e.ins)
    return trace.copy(eqns=kept[::-1])


@mistake("ex23", "dce", "edits the trace in place", "changed the trace it was given")
def _in_place(trace):
    live, kept = set(trace.outputs), []
    for e in reversed(trace.eqns):
        if e.out in live:
            kept.append(e)
            live.update(e.ins)
    trace.eqns[:] = kept[::-1]
    trace.params[:] = [v for v in trace.params if v in live]
    trace.consts[:] = [v for v in trace.consts if v in live]
    return trace


def _cse(trace, key_of, rename_ins=True, rename_outputs=True):
    first, rename, eqns = {}, {}, []
    for e in trace.eqns:
        ins = tuple(rename.get(v, v) for v in e.ins) if rename_ins else e.ins
        key = key_of(e, ins)
        if key in first:
            rename[e.out] = first[key]
            continue
        first[key] = e.out
        eqns.append(Eqn(e.op, ins, e.out, e.attrs, e.body))
    outputs = [rename.get(v, v) for v in trace.outputs] if rename_outputs else trace.outputs
    return trace.copy(eqns=eqns, outputs=outputs)


def _key(e, ins):
    return (e.op, ins, tuple(sorted((e.attrs or {}).items())))


mistake("ex23", "cse", "compares before renaming the inputs", "rename each equation's inputs")(
    lambda trace: _cse(trace, lambda e, ins: (e.op, e.ins, _key(e, ins)[2])))
mistake("ex23", "cse", "ignores attrs", "attrs")(
    lambda trace: _cse(trace, lambda e, ins: (e.op, ins)))
mistake("ex23", "cse", "treats every op as commutative", "order")(
    lambda trace: _cse(trace, lambda e, ins: (e.op, frozenset(ins), _key(e, ins)[2])))
mistake("ex23", "cse", "forgets to rename the outputs", "rename the trace's outputs")(
    lambda trace: _cse(trace, _key, rename_outputs=False))

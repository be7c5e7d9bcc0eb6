"""Checks for exercise 23: dead-code and common-subexpression elimination on real traces,
compared with minigrad.jit's own passes (equations by identity, in order), and run: the
result must compute what the trace did, and the trace given must be left as it was."""

from __future__ import annotations

import numpy as np

import minigrad.jit as jit
from minigrad import Tensor
from minigrad.jit import Trace

from ._support import call, fail, rng_for

__all__ = ["check_dce", "check_cse", "dce_cases", "cse_cases"]

WALK_BACK = ("walk back from the outputs: an equation is live when its out is live, and then "
             "every value it reads is live too (an equation can be needed only through another)")


def _tensors(*shapes, seed="ex23"):
    rng = rng_for(seed)
    return [Tensor(rng.standard_normal(s).astype(np.float32)) for s in shapes]


def _keep_first(t: Trace) -> Trace:
    """The trace of a function that returned (result, debug values): keep the result only."""
    return t.copy(outputs=t.outputs[:1])


def dce_cases():
    """(what, trace) pairs, each with dead code of a different kind."""
    x, y = _tensors((3, 4), (3, 4))
    scale = Tensor(np.full((3, 4), 2.0, np.float32))  # a captured constant
    w = Tensor(np.ones((3, 4), np.float32), requires_grad=True)  # a captured param

    def debug_chain(x, y):
        a = (x * y).tanh()
        shown = (a.exp() * scale).sum()  # dead, and so is what only it reads
        return (a - x).sum(), shown

    def dead_param(x, y):
        return (x * y).sum(), (x * w).exp()

    def dead_in_between(x, y):
        a = x + y
        b = a * a
        c = b.exp() + a     # dead: its own chain
        d = (b - x).tanh()
        return d.sum(), c.log()

    def nothing_dead(x, y):
        return ((x * y).tanh() * 0.5 - x).exp().sum()

    yield "a debug output dropped (a chain of dead ops, a const only they read)", \
        _keep_first(jit.trace(debug_chain, x, y))
    yield "a param only the dropped output reads", _keep_first(jit.trace(dead_param, x, y))
    yield "dead ops between live ones", _keep_first(jit.trace(dead_in_between, x, y))
    yield "nothing dead", jit.trace(nothing_dead, x, y)


def cse_cases():
    x, y = _tensors((3, 3), (3, 3), seed="ex23.cse")

    def twice(x, y):
        a = (x * y).tanh()
        b = (x * y).tanh()       # the same again: mul, then tanh of the repeat
        return (a + b).sum()

    def look_alike(x, y):
        a = (x - y) * (y - x)    # not the same: sub x, y and sub y, x
        return (a.sum(axis=0) + a.sum(axis=1)).sum()   # not the same: axis 0, axis 1

    def repeated_output(x, y):
        return (x * y).exp(), (x * y).exp()

    def squares(x, y):
        return (x * x + x * x * y).sum()

    yield "(x*y).tanh() computed twice", jit.trace(twice, x, y)
    yield "look-alikes: x − y and y − x, sum over axis 0 and axis 1", jit.trace(look_alike, x, y)
    yield "two outputs, the second a repeat of the first", jit.trace(repeated_output, x, y)
    yield "x*x twice", jit.trace(squares, x, y)


def _snapshot(t: Trace) -> tuple:
    return (list(t.eqns), [tuple(e.ins) for e in t.eqns], list(t.outputs), list(t.params),
            list(t.consts), list(t.inputs))


def _lines(eqns) -> str:
    return "; ".join(e.line() for e in eqns) or "(none)"


def _run_pass(impl, name, t, what):
    context = f"{name}(trace) on a trace with {what}"
    before = _snapshot(t)
    got = call(impl, name, {"trace": t}, context=context)
    if _snapshot(t) != before:
        fail(f"{context} changed the trace it was given",
             "build and return a new trace (trace.copy(eqns=..., ...)) and leave the one you "
             "were given as it was: the lesson prints both, to compare")
    if not isinstance(got, Trace):
        fail(f"{context} returned {type(got).__name__}, expected a Trace",
             "return trace.copy(eqns=kept, ...)")
    return got, context


def _expect_same_results(t, got, context, inputs):
    produced = set(got.inputs) | set(got.params) | set(got.consts) | {e.out for e in got.eqns}
    for v in got.outputs:
        if v not in produced:
            fail(f"{context}: output {v.name} is not computed by any equation of the result",
                 "rename the trace's outputs too: an output that was a dropped equation's "
                 "out must become the kept one's")
    try:
        want, have = t.run(*inputs), got.run(*inputs)
    except KeyError as err:
        fail(f"{context}: the result cannot run: an equation reads {err}, which nothing "
             f"computes", "an equation reads a value whose equation was dropped: rename "
             "each equation's inputs")
    for i, (a, b) in enumerate(zip(want, have)):
        if not np.array_equal(a, b):
            fail(f"{context}: output {i} of the result differs from the trace's")


def check_dce(dce):
    x, y = _tensors((3, 4), (3, 4), seed="ex23.run")
    for what, t in dce_cases():
        got, context = _run_pass(dce, "dce", t, what)
        want = jit.dce(t)
        outs, want_outs = [e.out for e in got.eqns], [e.out for e in want.eqns]
        missing = [e for e in want.eqns if e.out not in outs]
        extra = [e for e in got.eqns if e.out not in want_outs]
        if missing:
            fail(f"{context}: dropped equations an output needs: {_lines(missing)}", WALK_BACK)
        if extra:
            fail(f"{context}: kept equations no output needs: {_lines(extra)}", WALK_BACK)
        if outs != want_outs:
            fail(f"{context}: the equations are out of order: got {_lines(got.eqns)}",
                 "keep the equations in their original order (each must come after the ones "
                 "it reads): if you collected them walking backwards, reverse the list")
        for kind in ("params", "consts"):
            have, need = getattr(got, kind), getattr(want, kind)
            if [v.name for v in have] != [v.name for v in need]:
                fail(f"{context}: {kind} are {[v.name for v in have]}, expected "
                     f"{[v.name for v in need]}",
                     "drop the params and consts no kept equation reads (a dead equation's "
                     "inputs die with it), in their original order")
        _expect_same_results(t, got, context, (x, y))


def _merge_hint(got, want) -> str:
    """Why ``got`` has fewer equations than ``want``: what it merged that differs."""
    kept = {e.out for e in got.eqns}
    for e in want.eqns:
        if e.out in kept:
            continue
        for other in got.eqns:
            if other.op is not e.op:
                continue
            if other.attrs != e.attrs:
                return (f"`{e.line()}` and `{other.line()}` differ in their attrs: put "
                        f"the attrs in the key")
            return (f"`{e.line()}` and `{other.line()}` read their inputs in a different "
                    f"order, which for sub (or matmul, pow...) is another value: keep the "
                    f"inputs' order in the key")
    return "two equations are the same only with the same op, inputs in order, and attrs"


def check_cse(cse):
    x, y = _tensors((3, 3), (3, 3), seed="ex23.cse.run")
    for what, t in cse_cases():
        got, context = _run_pass(cse, "cse", t, what)
        want = jit.cse(t)
        if len(got.eqns) > len(want.eqns):
            fail(f"{context}: {len(got.eqns)} equations, expected {len(want.eqns)}: got "
                 f"{_lines(got.eqns)}",
                 "rename each equation's inputs through the replacements made so far, before "
                 "comparing it: once %3 is replaced by %1, `tanh %3` repeats `tanh %1`")
        if len(got.eqns) < len(want.eqns):
            fail(f"{context}: {len(got.eqns)} equations, expected {len(want.eqns)}: got "
                 f"{_lines(got.eqns)}", _merge_hint(got, want))
        if [e.out for e in got.eqns] != [e.out for e in want.eqns]:
            fail(f"{context}: kept {_lines(got.eqns)}, expected {_lines(want.eqns)}",
                 "keep the first of equal equations (later ones read its out), in order")
        _expect_same_results(t, got, context, (x, y))
        if [v for v in got.outputs] != [v for v in want.outputs]:
            fail(f"{context}: outputs {[v.name for v in got.outputs]}, expected "
                 f"{[v.name for v in want.outputs]}", "rename the trace's outputs too")

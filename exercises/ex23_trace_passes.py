"""Exercise 23 · two compiler passes on a traced program: dead code and repeats (lesson 14).

``minigrad.jit.trace(f, *inputs)`` gives a ``Trace``: ``inputs``, ``params``,
``consts``, ``eqns`` (a list of ``Eqn``, in the order they ran) and ``outputs``.
An ``Eqn`` is ``out = op(*ins, **attrs)``: ``e.op`` (a registry op), ``e.ins`` (a
tuple of ``Var``), ``e.out`` (a ``Var``), ``e.attrs`` (a dict or None), ``e.body``.
Vars are compared by identity (``is``, or as dict keys / set members).  A pass
returns a NEW trace, ``trace.copy(eqns=..., outputs=..., ...)``, and leaves the
one it was given as it was (print both to see what the pass did).

Part 1.  ``dce(trace)``: dead-code elimination.  Keep only the equations some
output depends on, directly or through other kept equations, in their
original order; keep only the params and consts a kept equation (or an
output) reads.  Walk back from the outputs: an equation is live when its
``out`` is live, and then everything it reads is live too.

Part 2.  ``cse(trace)``: common-subexpression elimination.  Two equations with
the same op, the same inputs in the same order, and the same attrs compute
the same value: keep the first, drop the later ones and make everything that
read a dropped ``out`` (later equations, the outputs) read the first one's.
Rename each equation's inputs *before* comparing it, so that repeats of repeats
are found too.  (In these traces attrs values are hashable: a key such as
``tuple(sorted((e.attrs or {}).items()))`` works.)  Build new equations with
``Eqn(e.op, new_ins, e.out, e.attrs, e.body)``.

Check it:  python -m exercises ex23   (in a notebook: ``check("ex23")``)
"""

from minigrad.jit import Eqn, Trace  # noqa: F401  (you will want them)

__all__ = ["dce", "cse"]


def dce(trace: Trace) -> Trace:
    """A copy of ``trace`` without the equations, params and consts no output needs."""
    raise NotImplementedError


def cse(trace: Trace) -> Trace:
    """A copy of ``trace`` computing each distinct ``(op, inputs, attrs)`` once."""
    raise NotImplementedError

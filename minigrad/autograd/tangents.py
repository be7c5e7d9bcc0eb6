"""Forward mode, one op at a time: the output's tangent from the inputs' tangents.

Reverse mode carries a *cotangent* (a gradient) from the output back to the
inputs, ``ḡᵢ = ḡ · ∂out/∂xᵢ``, one vector-Jacobian product per op.  Forward mode
carries a *tangent* the other way, alongside the values, one Jacobian-vector
product per op:

    ṫ_out = Σᵢ ∂out/∂xᵢ · ṫᵢ

Each op says how in the op table (``core/op.py``): a rule per input
(``jvps``), one rule for all inputs (``jvp``), or ``linear=True`` (the op is
its own derivative: run the forward on the tangents).  An elementwise op, and
every scalar op, needs no rule of its own: ∂out/∂xᵢ is diagonal (a number for
a scalar), so multiplying by it from the left or from the right is the same,
and the backward rules, given a tangent where they expect a gradient, return
exactly ``∂out/∂xᵢ · ṫᵢ``.  That is why a student who wrote ``mul``'s backward
rule already has its dual-number rule.

``output_tangent`` is the readable definition the forward-mode engine follows
and the registry-wide tests check every op against.
"""

from __future__ import annotations

import numpy as np

from ..batching import BatchedArray
from ..core.op import batched_forward
from ..core.standin import ARRAYS, StandInRefused, per_example

__all__ = ["NoForwardRuleError", "forward_rules", "has_forward_rule", "output_tangent"]


class NoForwardRuleError(NotImplementedError):
    """An op was asked for a tangent but has no forward-mode rule."""


def has_forward_rule(op) -> bool:
    """Whether forward mode can run through ``op``."""
    return bool(op.linear or op.jvp is not None or op.jvps
                or ((op.elementwise or op.engine == "scalar") and op.grads))


def forward_rules(op) -> tuple:
    """The per-input forward rules of ``op``: its ``jvps``, or, for an elementwise or
    scalar op, its backward rules (a diagonal Jacobian is its own transpose).
    Empty for an op whose forward mode is one ``jvp`` or ``linear``."""
    if op.jvps:
        return op.jvps
    if (op.elementwise or op.engine == "scalar") and op.grads:
        return op.grads
    return ()


def output_tangent(op, inputs, out, saved, attrs, tangents, parts=None):
    """The tangent of ``out = op(*inputs, **attrs)`` given one tangent (or ``None``, a
    zero tangent) per input; ``None`` when no tangent reaches the output.

    ``inputs``, ``out`` and ``saved`` are the raw data (floats or arrays) of one
    op call, ``saved`` what its forward kept.  The result has ``out``'s shape (and
    dtype, for an array).
    ``parts``, a list, receives ``(slot, ∂out/∂x_slot · ṫ_slot)`` for each input
    whose own rule ran (the step-through panel shows them edge by edge); an op
    whose rule is one ``jvp`` or ``linear`` adds nothing: its tangent is one whole.
    """
    attrs = attrs or {}
    if all(t is None for t in tangents):
        return None
    try:
        total = _total(op, inputs, out, saved, attrs, tangents, parts)
    except StandInRefused:  # inside vmap, a rule that cannot run on batches: per example
        total = per_example(f"op '{op.name}' (forward mode)",
                            lambda ins, sv, ts: _total(op, ins, None, sv, attrs, ts, None),
                            (tuple(inputs), tuple(saved), tuple(tangents)))
    if total is None or not isinstance(out, ARRAYS):
        return total
    # Fitted to the output as the backward engine fits a gradient to its input: a rule's
    # numpy scalar becomes an array, a promoted dtype is cast back (float32 stays
    # float32), a broadcastable part is broadcast.  (Inside vmap, a batch stays one.)
    if isinstance(total, BatchedArray):
        if total.dtype != out.dtype:
            total = total.astype(out.dtype)
    elif not isinstance(total, np.ndarray) or total.dtype != out.dtype:
        total = np.asarray(total, dtype=out.dtype)
    if total.shape != out.shape:
        total = np.broadcast_to(total, out.shape)
    return total


def _total(op, inputs, out, saved, attrs, tangents, parts):
    """The output's tangent as the op's forward-mode rule gives it, not yet fitted."""
    if op.linear:
        filled = [t if t is not None else _zeros_like(x, out) for x, t in zip(inputs, tangents)]
        try:
            total = op.forward(*filled, **attrs)[0]
        except StandInRefused:  # (inside vmap, a forward that cannot take a batch)
            total = batched_forward(op, filled, attrs)[0]
    elif op.jvp is not None:
        total = op.jvp(tuple(tangents), *saved, **attrs)
    else:
        rules = forward_rules(op)
        if not rules:
            raise NoForwardRuleError(_no_rule_message(op, inputs))
        total = None
        for slot, (rule, t) in enumerate(zip(rules, tangents)):
            if t is None:
                continue
            part = rule(t, *saved, **attrs)
            if part is not None:
                if parts is not None:
                    parts.append((slot, part))
                total = part if total is None else total + part
    return total


def _no_rule_message(op, inputs) -> str:
    shapes = ", ".join(str(np.shape(x)) for x in inputs)
    if op.function is not None:
        return (f"custom Function '{op.name}' (inputs of shapes {shapes}) has no forward-mode "
                f"rule: give it a jvp(ctx, *tangents) staticmethod returning the output's "
                f"tangent")
    return (f"op '{op.name}' (inputs of shapes {shapes}) has no forward-mode rule (give it "
            f"jvps=, jvp= or linear=True in its define_op)")


def _zeros_like(x, out):
    """The zero tangent of an input that has none, for a linear op's forward.  A
    non-float input (an integer tensor that ``cat`` promotes) gets zeros of the
    output's dtype: integer zeros would promote the tangent past it (int64 with
    float32 is float64)."""
    if not isinstance(x, ARRAYS):
        return 0.0
    if x.dtype.kind == "f":
        return np.zeros_like(x)
    dtype = out.dtype if isinstance(out, ARRAYS) else np.asarray(out).dtype
    return np.zeros(x.shape, dtype=dtype if dtype.kind == "f" else np.float64)

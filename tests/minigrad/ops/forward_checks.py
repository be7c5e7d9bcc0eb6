"""Checks of one op's forward-mode rule on raw float64 data, shared by the op tests.

Two independent checks, because each alone can pass a wrong rule:

* **central differences**: ``J·t ≈ (f(x + h t) − f(x − h t)) / 2h``, which
  catches a wrong derivative;
* **the dot-product test** ``⟨J·t, c⟩ = ⟨t, Jᵀ·c⟩``, with ``Jᵀ·c`` from the op's
  *backward* rules: forward and reverse mode must be transposes of each other.
  This catches a forward rule written as a transposed backward rule (right on
  square symmetric cases, wrong on ``matmul`` with non-square shapes).
"""

from __future__ import annotations

import numpy as np

from minigrad.autograd.tangents import output_tangent
from minigrad.core.accumulate import unbroadcast
from minigrad.engines.output_grads import OutputGrads, Outputs


def differentiable(x) -> bool:
    return isinstance(x, float) or (isinstance(x, np.ndarray) and x.dtype.kind == "f")


def random_tangents(inputs, rng):
    """One standard-normal tangent per floating input, ``None`` for the others."""
    out = []
    for x in inputs:
        if not differentiable(x):
            out.append(None)
        elif isinstance(x, np.ndarray):
            out.append(rng.standard_normal(x.shape))
        else:
            out.append(float(rng.standard_normal()))
    return out


def backward_products(op, inputs, saved, attrs, c):
    """``Jᵢᵀ·c`` for each input (``None`` where none flows), from the op's backward rules."""
    if op.grads:
        parts = [rule(c, *saved, **attrs) for rule in op.grads]
    else:
        parts = list(op.vjp(c, *saved, **attrs))
    out = []
    for x, part in zip(inputs, parts):
        if part is None or not differentiable(x):
            out.append(None)
        elif isinstance(x, np.ndarray):
            out.append(unbroadcast(np.asarray(part, dtype=np.float64), x.shape))
        else:
            out.append(float(part))
    return out


def check_forward_rule(op, inputs, attrs, rng, h=1e-6, rtol=1e-5, atol=1e-6):
    """Assert ``op``'s tangent on ``inputs`` matches central differences and is the
    transpose of its backward rules; returns the tangent it computed.

    A multi-output op (``split``, ``topk`` ...) returns ``Outputs`` and one tangent per
    output (``None`` for integer indices): each floating output is checked, and the
    dot-product test pairs all of them with one cotangent each."""
    out, saved = op.forward(*inputs, **attrs)
    tangents = random_tangents(inputs, rng)
    tangent = output_tangent(op, inputs, out, saved, attrs, tangents)
    where = f"{op.engine}.{op.name} on shapes {[np.shape(x) for x in inputs]} {attrs}"
    assert tangent is not None, f"{where}: no tangent came out"
    multi = isinstance(out, Outputs)
    outs, tans = (tuple(out), tuple(tangent)) if multi else ((out,), (tangent,))
    assert len(tans) == len(outs), f"{where}: {len(tans)} tangents for {len(outs)} outputs"

    def shifted(sign):
        xs = [x if t is None else x + sign * h * t for x, t in zip(inputs, tangents)]
        result = op.forward(*xs, **attrs)[0]
        return tuple(result) if multi else (result,)

    plus, minus = shifted(1), shifted(-1)
    cots = []
    for k, (o, t) in enumerate(zip(outs, tans)):
        if not differentiable(o if isinstance(o, np.ndarray) else float(o)):
            assert t is None, f"{where}: output {k} ({np.asarray(o).dtype}) got a tangent"
            cots.append(None)
            continue
        assert np.shape(t) == np.shape(o), (
            f"{where}: tangent {k} shape {np.shape(t)} != output shape {np.shape(o)}")
        numeric = (np.asarray(plus[k], dtype=np.float64)
                   - np.asarray(minus[k], dtype=np.float64)) / (2 * h)
        np.testing.assert_allclose(t, numeric, rtol=rtol, atol=atol,
                                   err_msg=f"{where}: J·t of output {k} against differences")
        c = rng.standard_normal(np.shape(o))
        cots.append(c if isinstance(o, np.ndarray) else float(c))

    left = sum(float(np.sum(np.asarray(t) * c)) for t, c in zip(tans, cots) if c is not None)
    upstream = OutputGrads(out, tuple(cots)) if multi else cots[0]
    back = backward_products(op, inputs, saved, attrs, upstream)
    right = sum(float(np.sum(t * b)) for t, b in zip(tangents, back)
                if t is not None and b is not None)
    assert np.isclose(left, right, rtol=1e-9, atol=1e-9), (
        f"{where}: dot-product test <J t, c> = {left} but <t, J^T c> = {right}")
    return tangent

"""Checks for exercise 28: the outer product's batching rule, called directly on batches
(both inputs batched, one not, n ≠ m so a transposed result shows), then plugged into the
op: ``vmap`` over several ``in_dims``, two nested vmaps with the inputs at different levels,
and ``vmap(grad(...))``, each against a loop over examples, with no per-example fallback."""

from __future__ import annotations

import warnings

import numpy as np

from minigrad import Tensor, apply_op
from minigrad.autograd import Op
from minigrad.batching import BatchedArray, BatchingFallbackWarning
from minigrad.func import grad, vmap

from ._support import call, expect_close, fail, fmt, rng_for

B, N, M = 5, 3, 4
LEVEL = 7  # (a direct call's batches: any level, the same for both)

BOTH = ("an input that is not mapped (in_dims None) comes as a plain numpy array, with no "
        ".value or .level: only BatchedArrays have them; broadcast it over the batch (x[None])")
WRAP = "wrap the result as a batch: BatchedArray(value, level), value of shape (B, n, m)"
ORDER = ("value[b, i, j] = u_b[i] · v_b[j]: the batch axis first, then u's axis, then v's "
         "(u.value[:, :, None] * v.value[:, None, :])")
CROSS = ("that pairs every example with every other one: multiply example b of u by example "
         "b of v only (broadcast (B, n, 1) against (B, 1, m))")
SAVED = ("save what the forward saves, the inputs as given: (u, v), batches and all (the "
         "backward rules run on them through the batching rules), not their .value arrays")
LEVELS = ("nested vmaps: work at the highest level among the inputs (level_of(u, v)); a batch "
          "of a lower level belongs to an outer vmap and counts as unbatched here")


def _forward(u, v):
    u, v = np.asarray(u), np.asarray(v)
    return np.multiply.outer(u, v), (u, v)


def _op(outer_batch):
    return Op(name="outer", engine="tensor", symbol="⊗", forward=_forward,
              grads=(lambda g, u, v: g @ v, lambda g, u, v: g.T @ u),
              formulas=("∂/∂u = g·v", "∂/∂v = gᵀ·u"), batch=outer_batch)


def _hint_on_error(exc):
    text = str(exc)
    if isinstance(exc, AttributeError) and ("'numpy.ndarray'" in text or "'float'" in text):
        return BOTH
    if "level" in text and "BatchedArray" in text:
        return LEVELS
    return None


def _direct(outer_batch, u, v, context):
    got = call(outer_batch, "outer_batch", {"u": u, "v": v}, hint_on_error=_hint_on_error,
               context=context)
    if not (isinstance(got, tuple) and len(got) == 2):
        fail(f"{context} returned {fmt(got)}", "return a pair (out, saved), as a forward does")
    out, saved = got
    if not isinstance(out, BatchedArray):
        fail(f"{context} returned out = {type(out).__name__}"
             f"{' of shape ' + str(np.shape(out)) if isinstance(out, np.ndarray) else ''}", WRAP)
    if out.level != LEVEL:
        fail(f"{context} returned a batch of level {out.level}, expected {LEVEL} (the inputs')",
             "give the result the level of the batched inputs (level_of(u, v))")
    U = u.value if isinstance(u, BatchedArray) else np.broadcast_to(u, (B,) + u.shape)
    V = v.value if isinstance(v, BatchedArray) else np.broadcast_to(v, (B,) + v.shape)
    want = U[:, :, None] * V[:, None, :]
    shape = np.shape(out.value)
    if shape != want.shape:
        hint = (ORDER if shape == (B, M, N) else CROSS if shape in ((B, N, B, M), (B * N, B * M))
                else None)
        fail(f"{context}: out.value has shape {shape}, expected {want.shape} (batch, n, m)", hint)
    expect_close(out.value, want, what="out.value", context=context)
    if not (isinstance(saved, tuple) and len(saved) == 2 and saved[0] is u and saved[1] is v):
        kept = tuple(type(s).__name__ for s in saved) if isinstance(saved, tuple) else saved
        fail(f"{context} saved {fmt(kept)}", SAVED)


def _no_fallback(run, context):
    with warnings.catch_warnings():
        warnings.simplefilter("error", BatchingFallbackWarning)
        try:
            return run()
        except BatchingFallbackWarning as warning:
            fail(f"{context}: something still ran once per example ({warning})",
                 "keep the rule to numpy calls on the physical arrays: it is called once "
                 "for the whole batch")


def check_outer_batch(outer_batch):
    rng = rng_for("ex28.outer_batch")
    U, V = rng.standard_normal((B, N)), rng.standard_normal((B, M))
    u0, v0 = rng.standard_normal(N), rng.standard_normal(M)
    for u, v, what in ((BatchedArray(U, LEVEL), BatchedArray(V, LEVEL), "both batched"),
                       (BatchedArray(U, LEVEL), v0, "v not batched (a plain array)"),
                       (u0, BatchedArray(V, LEVEL), "u not batched (a plain array)")):
        _direct(outer_batch, u, v, f"outer_batch(u, v), {what}, B={B}, n={N}, m={M}")

    op = _op(outer_batch)
    outer = lambda u, v: apply_op(op, u, v)  # noqa: E731
    cases = [((0, 0), U, V), ((0, None), U, v0), ((None, 0), u0, V), ((1, 0), U.T.copy(), V)]
    for dims, a, b in cases:
        context = f"vmap(outer, in_dims={dims}) over {B} examples"
        got = _no_fallback(lambda dims=dims, a=a, b=b, context=context: call(
            vmap(outer, in_dims=dims), "vmap(outer)", {"u": Tensor(a), "v": Tensor(b)},
            hint_on_error=_hint_on_error, context=context), context)
        ua = [np.moveaxis(a, dims[0], 0)[k] if dims[0] is not None else a for k in range(B)]
        vb = [np.moveaxis(b, dims[1], 0)[k] if dims[1] is not None else b for k in range(B)]
        want = np.stack([np.multiply.outer(p, q) for p, q in zip(ua, vb)])
        expect_close(got.data, want, what="the result", context=context, hint=LEVELS)

    context = "vmap(vmap(outer, in_dims=(None, 0)), in_dims=(0, None)) (every u with every v)"
    nested = vmap(vmap(outer, in_dims=(None, 0)), in_dims=(0, None))
    got = _no_fallback(lambda: call(nested, "nested", {"u": Tensor(U), "v": Tensor(V)},
                                    hint_on_error=lambda exc: _hint_on_error(exc) or LEVELS,
                                    context=context), context)
    want = U[:, None, :, None] * V[None, :, None, :]
    if got.shape != want.shape:
        fail(f"{context} has shape {got.shape}, expected {want.shape}", LEVELS)
    expect_close(got.data, want, what="the result", context=context, hint=LEVELS)

    C = rng.standard_normal((N, M))
    loss = lambda u, v: (apply_op(op, u, v) * Tensor(C)).sum()  # noqa: E731
    context = "vmap(grad(lambda u, v: (outer(u, v) * C).sum(), argnums=(0, 1)))"
    got = _no_fallback(lambda: call(vmap(grad(loss, argnums=(0, 1))), "vmap(grad)",
                                    {"u": Tensor(U), "v": Tensor(V)},
                                    hint_on_error=lambda exc: _hint_on_error(exc) or SAVED,
                                    context=context), context)
    expect_close(got[0].data, V @ C.T, what="the gradients for u", context=context, hint=SAVED)
    expect_close(got[1].data, U @ C, what="the gradients for v", context=context, hint=SAVED)

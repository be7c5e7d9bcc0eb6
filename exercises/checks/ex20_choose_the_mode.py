"""Checks for exercise 20: Jacobians of tall, wide and square maps against minigrad's
own, in at most min(n, m) directions (columns or rows, counted with count_passes); the
dot-product test's two sides against the full Jacobian, from exactly one jvp and one vjp."""

import numpy as np

from minigrad import Tensor
from minigrad.func import count_passes, jacrev

from ._support import (
    ExerciseFailure,
    call,
    expect_array,
    expect_close,
    expect_scalar,
    expect_tuple,
    fail,
    fmt,
    rng_for,
)

TALL = ("a tall Jacobian (n < m: few inputs, many outputs) is cheapest column by column: "
        "jacfwd, one forward pass per input")
WIDE = ("a wide Jacobian (n > m: many inputs, few outputs, a loss) is cheapest row by row: "
        "jacrev, one backward pass per output")
SHAPES = ("t is shaped like the input x and c like the output f(x): jvp carries t forward, "
          "vjp_fn takes c")
TUPLE = "vjp_fn(c) returns a tuple, one gradient per input: (g,) = vjp_fn(c)"


def _maps(rng):
    """``(name, f, n, m)``: a tall, a wide, a square map, and a loss (m = 1)."""
    W, b = rng.standard_normal((24, 3)), rng.standard_normal(24)
    A = rng.standard_normal((3, 24))
    S = rng.standard_normal((4, 4))
    w = rng.standard_normal((1, 10))

    def tall(x):
        return (Tensor(W) @ x + Tensor(b)).tanh()

    def wide(x):
        return Tensor(A) @ (x.tanh() * x)

    def square(x):
        return (Tensor(S) @ x).exp() * x

    def loss(x):
        return (Tensor(w) @ (x * x)).sigmoid()

    return [("a tall map", tall, 3, 24), ("a wide map", wide, 24, 3),
            ("a square map", square, 4, 4), ("a loss", loss, 10, 1)]


def check_jacobian(jacobian):
    rng = rng_for("ex20.jacobian")
    for name, f, n, m in _maps(rng):
        data = rng.uniform(-1, 1, n)
        context = f"jacobian(f, x) for {name} (x: {n} numbers, f(x): {m})"
        with count_passes() as passes:
            got = call(jacobian, "jacobian", {"f": f, "x": Tensor(data.copy())}, context=context)
        if isinstance(got, Tensor):
            fail(f"{context} returned a Tensor, expected a numpy array",
                 "the transforms return Tensors: hand back its .data")
        hint = None
        if isinstance(got, np.ndarray) and got.shape == (n, m) and n != m:
            hint = "J has one row per output and one column per input: J[i, j] = ∂fᵢ/∂xⱼ"
        expect_array(got, (m, n), what="J", context=context, hint=hint)
        want = jacrev(f)(Tensor(data.copy())).data
        expect_close(got, want, what="J", context=context, atol=1e-10, rtol=1e-8,
                     hint="J[i, j] = ∂fᵢ/∂xⱼ, from jacfwd(f)(x) or jacrev(f)(x)")
        # (directions, not passes: jacfwd and jacrev carry all theirs in one batched pass,
        # so the work a mode costs is the columns or rows it computes)
        used = max(passes.forward_directions, passes.backward_directions)
        if used > min(n, m):
            fail(f"{context} ran {passes}: {used} directions (columns or rows) where "
                 f"min(n, m) = {min(n, m)} do",
                 TALL if n < m else WIDE)


def _cases(rng):
    for name, f, n, m in _maps(rng)[:3]:
        yield name, f, rng.uniform(-1, 1, n), rng.standard_normal(n), rng.standard_normal(m)


def check_dot_product_test(dot_product_test):
    rng = rng_for("ex20.dot")
    for name, f, data, t, c in _cases(rng):
        context = (f"dot_product_test(f, x, t, c) for {name} (x, t: {data.size} numbers; "
                   f"f(x), c: {c.size})")
        with count_passes() as passes:
            try:
                got = call(dot_product_test, "dot_product_test",
                           {"f": f, "x": Tensor(data.copy()), "t": t.copy(), "c": c.copy()},
                           context=context)
            except ExerciseFailure as exc:
                message = str(exc)
                if "\nhint:" not in message and "shape" in message:
                    raise ExerciseFailure(f"{message}\nhint: {SHAPES}") from None
                if "\nhint:" not in message and "'tuple'" in message:
                    raise ExerciseFailure(f"{message}\nhint: {TUPLE}") from None
                raise
        left, right = expect_tuple(got, 2, names=("⟨J t, c⟩", "⟨t, Jᵀ c⟩"), context=context)
        for side, value in (("⟨J t, c⟩", left), ("⟨t, Jᵀ c⟩", right)):
            expect_scalar(value, what=side, context=context,
                          hint="sum the elementwise product to one number: (a * b).sum()")
        J = jacrev(f)(Tensor(data.copy())).data
        expect_close(left, float(c @ (J @ t)), what="⟨J t, c⟩", context=context,
                     hint="J t is the tangent jvp(f, (x,), (t,)) returns; dot it with c")
        expect_close(right, float(t @ (J.T @ c)), what="⟨t, Jᵀ c⟩", context=context,
                     hint="Jᵀ c is what vjp_fn(c) returns; dot it with t")
        if (passes.forward, passes.backward) != (2, 1):
            fail(f"{context} ran {passes}; one jvp and one vjp are 2 forward passes (the "
                 f"jvp's, carrying t, and the vjp's) and 1 backward pass (vjp_fn(c))",
                 "no Jacobian (it costs min(n, m) passes) and no shortcut: compute each side "
                 f"its own way (the sides came out as {fmt(left)} and {fmt(right)})")

"""Checks for exercise 02: compared with minigrad's own engine on random inputs."""

from minigrad import Value

from ._support import call, expect_close, expect_tuple, rng_for


def engine_grads(build, g, *xs):
    """dL/dx for each x, from minigrad's engine, for ``out = build(*xs)`` and upstream ``g``."""
    leaves = [Value(float(x)) for x in xs]
    build(*leaves).backward(float(g))
    return [leaf.grad for leaf in leaves]


def check_mul_backward(mul_backward):
    rng = rng_for("ex02.mul")
    cases = [tuple(rng.uniform(-3, 3, 3)) for _ in range(6)] + [(0.5, 0.0, 2.0), (-1.5, 2.0, 2.0)]
    for g, a, b in cases:
        args = {"g": float(g), "a": float(a), "b": float(b)}
        context = "mul_backward(" + ", ".join(f"{k}={v:.4g}" for k, v in args.items()) + ")"
        got = expect_tuple(call(mul_backward, "mul_backward", args), 2,
                           names=("dL/da", "dL/db"), context=context)
        want = engine_grads(lambda x, y: x * y, g, a, b)
        for name, got_i, want_i, hint in (
                ("dL/da", got[0], want[0], "∂(a·b)/∂a is the *other* input, b"),
                ("dL/db", got[1], want[1], "∂(a·b)/∂b is the *other* input, a")):
            expect_close(got_i, want_i, what=name, context=context, hint=hint, upstream=g)

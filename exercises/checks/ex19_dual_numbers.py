"""Checks for exercise 19: each Dual operation's value and tangent against the rules
(Dual with Dual, and with a plain number on either side), on seeded random numbers;
derivative() against closed forms, with f called once and no backward pass."""

import math

from minigrad.autograd import record

from ._support import call, expect_close, expect_scalar, expect_tuple, fail, fmt, rng_for

CONSTANT = "a plain number is a constant: its tangent is 0, not 1"
REFLECTED = ("a number on the left (2.0 * x) calls the Dual's reflected method: __radd__, "
             "__rsub__, __rmul__, __rtruediv__; each one handles a plain number on the left")
PRODUCT = ("the product rule: (a + ȧε)(b + ḃε) = ab + (ȧb + aḃ)ε; ȧḃ belongs to ε², "
           "which is 0")
QUOTIENT = "the quotient rule: (ȧb − aḃ) / b², with a minus (the denominator's tangent hurts)"
CHAIN = "the chain rule: the tangent of g(x) is g'(a)·ȧ, so multiply by the input's tangent ȧ"


def _binary_cases():
    """``(text, fn, (value, tangent) from a, ȧ, b, ḃ, c, [(wrong tangent, hint)])``: x and
    y are Duals (a + ȧε, b + ḃε), c a plain number."""
    return [
        ("x + y", lambda x, y, c: x + y, lambda a, da, b, db, c: (a + b, da + db), []),
        ("x - y", lambda x, y, c: x - y, lambda a, da, b, db, c: (a - b, da - db),
         [(lambda a, da, b, db, c: da + db, "subtract the tangents too: ȧ − ḃ")]),
        ("x * y", lambda x, y, c: x * y, lambda a, da, b, db, c: (a * b, da * b + a * db),
         [(lambda a, da, b, db, c: da * db, PRODUCT),
          (lambda a, da, b, db, c: da * b, PRODUCT + " (a term is missing)")]),
        ("x / y", lambda x, y, c: x / y,
         lambda a, da, b, db, c: (a / b, (da * b - a * db) / (b * b)),
         [(lambda a, da, b, db, c: (da * b + a * db) / (b * b), QUOTIENT),
          (lambda a, da, b, db, c: (da * b - a * db) / b, QUOTIENT + " (divide by b², not b)"),
          (lambda a, da, b, db, c: da / db, QUOTIENT + " (not ȧ/ḃ)")]),
        ("x + c", lambda x, y, c: x + c, lambda a, da, b, db, c: (a + c, da),
         [(lambda a, da, b, db, c: da + 1, CONSTANT)]),
        ("c + x", lambda x, y, c: c + x, lambda a, da, b, db, c: (c + a, da),
         [(lambda a, da, b, db, c: da + 1, CONSTANT)]),
        ("x - c", lambda x, y, c: x - c, lambda a, da, b, db, c: (a - c, da),
         [(lambda a, da, b, db, c: da - 1, CONSTANT)]),
        ("c - x", lambda x, y, c: c - x, lambda a, da, b, db, c: (c - a, -da),
         [(lambda a, da, b, db, c: da, "c − x goes down when x goes up: its tangent is −ȧ"),
          (lambda a, da, b, db, c: 1 - da, CONSTANT)]),
        ("x * c", lambda x, y, c: x * c, lambda a, da, b, db, c: (a * c, da * c),
         [(lambda a, da, b, db, c: da * c + a, CONSTANT)]),
        ("c * x", lambda x, y, c: c * x, lambda a, da, b, db, c: (c * a, c * da),
         [(lambda a, da, b, db, c: da * c + a, CONSTANT)]),
        ("x / c", lambda x, y, c: x / c, lambda a, da, b, db, c: (a / c, da / c),
         [(lambda a, da, b, db, c: (da * c - a) / (c * c), CONSTANT)]),
        ("c / x", lambda x, y, c: c / x, lambda a, da, b, db, c: (c / a, -c * da / (a * a)),
         [(lambda a, da, b, db, c: da / c, "c / x is not x / c: compute c / x"),
          (lambda a, da, b, db, c: c * da / (a * a), QUOTIENT)]),
        ("-x", lambda x, y, c: -x, lambda a, da, b, db, c: (-a, -da),
         [(lambda a, da, b, db, c: da, "negate the tangent too")]),
        ("x.exp()", lambda x, y, c: x.exp(), lambda a, da, b, db, c: (math.exp(a),
                                                                      math.exp(a) * da),
         [(lambda a, da, b, db, c: math.exp(a), CHAIN)]),
        ("x.sin()", lambda x, y, c: x.sin(), lambda a, da, b, db, c: (math.sin(a),
                                                                      math.cos(a) * da),
         [(lambda a, da, b, db, c: math.cos(a), CHAIN),
          (lambda a, da, b, db, c: -math.cos(a) * da, "sin' = cos, with no minus sign"),
          (lambda a, da, b, db, c: math.sin(a) * da, "sin' = cos, not sin")]),
    ]


def _read(result, context):
    if not (hasattr(result, "value") and hasattr(result, "tangent")):
        fail(f"{context} returned {type(result).__name__} {fmt(result)}, expected a Dual",
             "every operation returns a new Dual(value, tangent)")
    for name in ("value", "tangent"):
        got = getattr(result, name, None)
        expect_scalar(got, what=f"its .{name}", context=context)
    return float(result.value), float(result.tangent)


def check_Dual(Dual):
    x = call(Dual, "Dual", {"value": 2.0, "tangent": 0.5})
    if (getattr(x, "value", None), getattr(x, "tangent", None)) != (2.0, 0.5):
        fail(f"Dual(2.0, 0.5) has .value {fmt(getattr(x, 'value', None))} and .tangent "
             f"{fmt(getattr(x, 'tangent', None))}, expected 2.0 and 0.5")
    z = call(Dual, "Dual", {"value": 3.0})
    if getattr(z, "tangent", None) != 0.0:
        fail(f"Dual(3.0).tangent is {fmt(getattr(z, 'tangent', None))}, expected 0.0",
             "the tangent defaults to 0.0 (a constant)")
    rng = rng_for("ex19.dual")
    for _ in range(3):
        a, b = rng.uniform(0.5, 2.0) * rng.choice([-1, 1]), rng.uniform(0.5, 2.0)
        da, db, c = rng.standard_normal(), rng.standard_normal(), rng.uniform(1.5, 3.0)
        for text, fn, rule, slips in _binary_cases():
            x, y = Dual(a, da), Dual(b, db)
            context = (f"with x = Dual({fmt(a)}, {fmt(da)}), y = Dual({fmt(b)}, {fmt(db)}), "
                       f"c = {fmt(c)}: {text}")
            hint = REFLECTED if text.startswith("c ") else None
            got = _read(call(fn, text, {"x": x, "y": y, "c": c}, hint_on_error=hint,
                             context=context), context)
            want = rule(a, da, b, db, c)
            expect_close(got[0], want[0], what="the value", context=context)
            hint = next((h for wrong, h in slips
                         if math.isclose(got[1], wrong(a, da, b, db, c), rel_tol=1e-9,
                                         abs_tol=1e-12)), None)
            if hint is not None and not math.isclose(got[1], want[1], rel_tol=1e-9):
                fail(f"{context}: the tangent = {fmt(got[1])}, expected {fmt(want[1])}", hint)
            expect_close(got[1], want[1], what="the tangent", context=context)
            if (x.value, x.tangent, y.value, y.tangent) != (a, da, b, db):
                fail(f"{context} changed its inputs (x is now Dual({fmt(x.value)}, "
                     f"{fmt(x.tangent)}))", "return a new Dual; leave the operands alone")


# --- derivative: one forward pass, no backward ----------------------------------------------
def _sigmoid_ratio(x):
    return x.sin() / (1.0 + (-x).exp())


DERIVATIVE_CASES = [  # (f, its text, x, f, f')
    (lambda x: x * x * x, "x³", 0.7, lambda x: x ** 3, lambda x: 3 * x * x),
    (lambda x: x * x.sin(), "x·sin(x)", 1.3, lambda x: x * math.sin(x),
     lambda x: math.sin(x) + x * math.cos(x)),
    (_sigmoid_ratio, "sin(x) / (1 + e^−x)", -0.4,
     lambda x: math.sin(x) / (1 + math.exp(-x)),
     lambda x: (math.cos(x) * (1 + math.exp(-x)) + math.sin(x) * math.exp(-x))
     / (1 + math.exp(-x)) ** 2),
    (lambda x: (x * 2.0).tanh() - 3.0, "tanh(2x) − 3", 0.25, lambda x: math.tanh(2 * x) - 3,
     lambda x: 2 * (1 - math.tanh(2 * x) ** 2)),
]


def check_derivative(derivative):
    from minigrad import Value

    cases = DERIVATIVE_CASES + [(lambda x: Value(4.0) * 0.5, "the constant 2", 1.0,
                                 lambda x: 2.0, lambda x: 0.0)]
    for f, text, x, value, slope in cases:
        context = f"derivative(f, {fmt(x)}) with f(x) = {text}"
        calls = []

        def counted(v, f=f, calls=calls):
            calls.append(v)
            return f(v)

        with record() as tape:
            result = call(derivative, "derivative", {"f": counted, "x": x}, context=context,
                          hint_on_error="unpack_dual's tangent is None when f(x) does not "
                                        "depend on x: then the derivative is 0.0"
                          if text == "the constant 2" else None)
        got = expect_tuple(result, 2, names=("f(x)", "f'(x)"), context=context)
        if len(calls) != 1:
            fail(f"{context} called f {len(calls)} times, expected once",
                 "one call of f on make_dual(Value(x), 1.0) carries the derivative along: "
                 "no finite differences")
        if any(e.kind == "seeded" for e in tape.events):
            fail(f"{context} ran a backward pass",
                 "forward mode needs no backward: read the tangent with unpack_dual")
        for name, g in zip(("f(x)", "f'(x)"), got):
            if isinstance(g, Value):
                fail(f"{context} returned a Value for {name} ({fmt(g)}), expected a float",
                     "a Value's number is its .data")
            expect_scalar(g, what=name, context=context)
        expect_close(got[0], value(x), what="f(x)", context=context)
        hint = None
        if got[1] == 0.0 and slope(x) != 0.0:
            hint = "the tangent ẋ of x must be 1.0 (dx/dx = 1): make_dual(Value(x), 1.0)"
        expect_close(got[1], slope(x), what="f'(x)", context=context, hint=hint)

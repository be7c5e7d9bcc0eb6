"""Wrong answers that ``checks/ex04_exp_pow.py`` must reject (lesson 2)."""

from __future__ import annotations

import math

from ._registry import mistake

mistake("ex04", "exp_backward", "forgets g", "upstream gradient g")(lambda g, out: out)
mistake("ex04", "exp_backward", "derivative 1", "e^x")(lambda g, out: g)
mistake("ex04", "pow_backward", "log(0) at x = 0", "x^p·ln x → 0")(
    lambda g, x, p, out: (g * p * x ** (p - 1), g * out * math.log(x)))
mistake("ex04", "pow_backward", "keeps the exponent", "exponent drops")(
    lambda g, x, p, out: (g * p * x**p, g * out * math.log(x) if x else 0.0))
mistake("ex04", "pow_backward", "forgets g in dL/dp", "upstream gradient g")(
    lambda g, x, p, out: (g * p * x ** (p - 1), out * math.log(x) if x else 0.0))
mistake("ex04", "pow_backward", "returns one number", "should return a pair")(
    lambda g, x, p, out: g * p * x ** (p - 1))

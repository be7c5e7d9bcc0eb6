"""Wrong answers that ``checks/ex02_mul_backward.py`` must reject (lesson 2)."""

from __future__ import annotations

from ._registry import mistake

mistake("ex02", "mul_backward", "forgets the upstream gradient", "upstream gradient g")(
    lambda g, a, b: (b, a))
mistake("ex02", "mul_backward", "multiplies by its own input", "*other* input")(
    lambda g, a, b: (g * a, g * b))

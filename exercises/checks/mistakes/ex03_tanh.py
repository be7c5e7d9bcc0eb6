"""Wrong answers that ``checks/ex03_tanh.py`` must reject (lesson 2)."""

from __future__ import annotations

import math

import numpy as np

from ._registry import mistake

mistake("ex03", "tanh", "overflows on large x", "e^{−2x}")(
    lambda x: (math.exp(2 * x) - 1) / (math.exp(2 * x) + 1))
mistake("ex03", "tanh", "nan on large x (numpy's inf/inf)", "∞/∞")(
    lambda x: float((np.exp(np.float64(2 * x)) - 1) / (np.exp(np.float64(2 * x)) + 1))
    if abs(x) < 400 else float("nan"))
mistake("ex03", "tanh", "calls math.tanh", "math.exp")(lambda x: math.tanh(x))
mistake("ex03", "tanh_backward", "forgets g", "upstream gradient g")(lambda g, out: 1 - out * out)
mistake("ex03", "tanh_backward", "1 − out", "1 − out²")(lambda g, out: g * (1 - out))

"""How a number is written, everywhere: reprs, drawings, the text tree, the stepper.

One rule, in one function (``format_number``), so that a gradient reads the
same in ``repr(x.grad)``, in ``viz.draw``, in ``viz.text`` and in the
step-through panel:

===================================  ============================  ==================
the number                           written as                    examples
===================================  ============================  ==================
``1e-3 <= |x| < 1e5``                ``digits`` decimals (4)       ``0.5000``, ``-2.0000``
smaller or bigger                    scientific, ``digits``        ``3.0000e-06``,
                                     decimals in the mantissa      ``1.0000e+05``
zero, either sign                    zero with ``digits`` decimals ``0.0000``
not a number, infinities             as Python spells them         ``nan``, ``inf``, ``-inf``
an ``int`` / numpy integer           as it is                      ``3``
a ``bool``                           as it is                      ``True``
===================================  ============================  ==================

Floats of any width (``float``, ``np.float32``, ``np.float64``) follow the same
rule: a float32 is written from its exact value, so ``np.float32(0.1)`` reads
``0.1000``.  A negative zero loses its sign: ``-0.0000`` would only puzzle.
Nothing here depends on numpy's global print options.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["format_number", "array_to_string", "DIGITS", "FIXED_RANGE"]

#: Decimals shown when nobody asks for another number.
DIGITS = 4
#: Magnitudes written in fixed point: ``low <= |x| < high``; scientific outside.
FIXED_RANGE = (1e-3, 1e5)


def format_number(x, digits: int = DIGITS) -> str:
    """One number as the table in this module's docstring says.

    >>> [format_number(v) for v in (0.5, -2.0, 3e-6, 1e5, -0.0, float("nan"), 3)]
    ['0.5000', '-2.0000', '3.0000e-06', '1.0000e+05', '0.0000', 'nan', '3']
    """
    if type(x) is not float:
        if isinstance(x, (bool, np.bool_)):
            return str(bool(x))
        if isinstance(x, (int, np.integer)):
            return str(int(x))
        x = float(x)
    low, high = FIXED_RANGE
    a = abs(x)
    if low <= a < high:
        text = f"{x:.{digits}f}"
        # With digits < 3, 0.004 would print as "0.00": hide nothing, go scientific.
        return text if digits >= 3 or text.strip("-0.") else f"{x:.{digits}e}"
    if x == 0:
        return f"{0.0:.{digits}f}"  # also drops the sign of -0.0
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f"{x:.{digits}e}"


def array_to_string(a, digits: int = DIGITS, **options) -> str:
    """``np.array2string(a, **options)`` with every float written by ``format_number``,
    right-aligned so that a matrix reads in columns (``Tensor.__repr__`` uses it)."""
    widths = []

    def measure(v):
        text = format_number(v, digits)
        widths.append(len(text))
        return text

    np.array2string(a, formatter={"float_kind": measure}, **options)  # the numbers shown
    width = max(widths, default=0)
    return np.array2string(
        a, formatter={"float_kind": lambda v: format_number(v, digits).rjust(width)}, **options)

"""Value and array formatting shared by every renderer.

A single number is written by ``minigrad.formatting.format_number`` (the rule
``repr(Value)`` and ``repr(Tensor)`` follow too), so the graph, the text tree,
the stepper's panel and an exercise's expected output always agree:

* fixed point with ``digits`` decimals (default 4) when ``1e-3 <= |x| < 1e5``,
  scientific notation otherwise: ``2.0000``, ``-0.0312``, ``1.2346e+05``;
* ``0.0000`` for zero (a negative zero is printed without its sign),
  ``nan``, ``inf`` and ``-inf`` as such;

and this module adds what the renderers need around it: arrays on one line,
numpy style, each element written by that rule, summarised with ``...`` past
a few elements and cut to a width with ``…``.

The output never depends on numpy's global print options.
"""

from __future__ import annotations

import re

import numpy as np

from minigrad.formatting import DIGITS, format_number

__all__ = ["NO_GRAD", "format_number", "format_array", "format_value", "format_shape", "clip",
           "visible", "check_options"]

#: How a gradient that has not been computed yet is shown (never as ``0``).
NO_GRAD = "—"


# Characters a label cannot show as they are: C0/C1 controls and DEL (XML, which
# graphviz reads, forbids most of them even escaped; a newline would break a
# one-line text tree), lone surrogates (not encodable) and U+FFFE/U+FFFF.
_INVISIBLE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")
_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape_char(m: re.Match) -> str:
    c = m.group(0)
    return _ESCAPES.get(c) or (f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}")


def visible(text: str) -> str:
    """``text`` with control characters written as Python escapes: ``"x\\ny"``, ``"\\x1b"``.

    Every renderer (picture, text tree, stepper panel) shows a label through
    this, so a label reads the same everywhere and can never break the drawing.
    """
    return _INVISIBLE.sub(_escape_char, text)


def check_options(where: str, **options) -> None:
    """Refuse formatting options that would fail deep inside (or print nonsense).

    ``digits``, ``preview``, ``max_indent``: integers >= 0; ``width``,
    ``max_nodes``, ``depth``: ``None`` or an integer >= 1.
    """
    for name, value in options.items():
        optional = name in ("width", "max_nodes", "depth")
        if optional and value is None:
            continue
        low = 1 if optional else 0
        what = f"None or an integer >= {low}" if optional else f"an integer >= {low}"
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise TypeError(f"{where}: {name} must be {what}, got {value!r}")
        if value < low:
            raise ValueError(f"{where}: {name} must be {what}, got {value!r}")


def clip(text: str, width: int | None) -> str:
    """Cut ``text`` to at most ``width`` characters, marking the cut with ``…``."""
    if width is None or len(text) <= width:
        return text
    return text[: max(width - 1, 0)] + "…"


def format_array(a, digits: int = DIGITS, width: int | None = 60, threshold: int = 6) -> str:
    """A one-line numpy-style preview: ``[[1.0000, 2.0000], [3.0000, 4.0000]]``.

    Arrays with more than ``threshold`` elements are summarised by numpy
    (``[0.1000, 0.2000, ..., 0.9000]``, two items per edge); the line is then
    cut to ``width`` characters.
    """
    a = np.asarray(a)
    if a.ndim == 0:
        return clip(format_number(a.item(), digits), width)
    text = np.array2string(
        a,
        max_line_width=1 << 30,
        separator=", ",
        threshold=threshold,
        edgeitems=2,
        formatter={
            "float_kind": lambda v: format_number(v, digits),
            "int_kind": lambda v: str(int(v)),
            "bool": lambda v: str(bool(v)),
        },
    )
    # numpy breaks rows of 2-D+ arrays onto new lines: join them back into one.
    text = " ".join(part.strip() for part in text.splitlines())
    return clip(text, width)


def format_value(x, digits: int = DIGITS, width: int | None = 60, threshold: int = 6) -> str:
    """A float, a numpy array, or anything else (``repr`` cut to width)."""
    if type(x) is float:
        return format_number(x, digits)
    if isinstance(x, np.ndarray):
        return format_array(x, digits, width, threshold)
    if isinstance(x, (int, float, np.number, bool, np.bool_)):
        return format_number(x, digits)
    data = getattr(x, "data", None)  # a node saved by a custom Function
    if data is not None and hasattr(x, "parents"):
        return format_value(data, digits, width, threshold)
    return clip(repr(x), width)


def format_shape(shape) -> str:
    """``(3, 4)``, ``(5,)`` or ``()``: Python's tuple spelling, which students know."""
    return str(tuple(int(n) for n in shape))

"""Numeric options (digits, width, preview, depth, ...) are checked with a clear error
(``viz.render.numbers.check_options``)."""

from __future__ import annotations

import pytest

import viz
from minigrad import Value


@pytest.mark.parametrize("call, match", [
    (lambda c: viz.text(c, digits=-1), "digits must be an integer >= 0"),
    (lambda c: viz.text(c, width=0), "width must be None or an integer >= 1"),
    (lambda c: viz.text(c, preview=-2), "preview"),
    (lambda c: viz.text(c, max_indent=-1), "max_indent"),
    (lambda c: viz.draw(c, digits=-1), "digits"),
    (lambda c: viz.draw(c, depth=0), "depth"),
    (lambda c: viz.draw(c, max_nodes=0), "max_nodes"),
])
def test_numeric_options_are_checked_with_a_clear_error(call, match):
    c = Value(2.0) * 3.0
    with pytest.raises(ValueError, match=match):
        call(c)
    with pytest.raises(TypeError, match="digits must be an integer"):
        viz.text(c, digits=2.5)
    assert "data=6.00" in viz.text(c, digits=2)

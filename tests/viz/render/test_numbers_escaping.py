"""Control characters in labels are escaped the same way in the picture, the text tree
and the stepper's panel (``viz.render.numbers.visible``)."""

from __future__ import annotations

import re

import pytest

import viz
from minigrad import Value
from tests._helpers import needs_dot
from viz.stepper.stepper import step_through


@needs_dot
@pytest.mark.parametrize("label, shown", [("esc\x1b[31m", "esc\\x1b[31m"), ("\x00", "\\x00"),
                                          ("x\ny", "x\\ny"), ("lone\ud800", "lone\\ud800")])
def test_control_characters_in_labels_draw_and_read_the_same_everywhere(label, shown):
    a = Value(1.0, label=label)
    c = a * 2
    c.backward()
    texts = re.findall(r"<text[^>]*>([^<]*)</text>", viz.draw(c).svg())
    assert shown in texts
    assert f"leaf {shown}  data=" in viz.text(c)
    s = step_through(lambda v: v * 2, Value(1.0, label=label), mode="backward")
    s.last()
    assert f"{shown}.grad = 2.0" in s.panel and s.template is not None

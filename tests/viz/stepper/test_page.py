"""The standalone HTML page (``viz.stepper.page``): its panel, where it opens, its speed."""

from __future__ import annotations

from viz.stepper.page import panel_html
from viz.stepper.stepper import step_through

from .test_template import FAKE  # what graphviz writes, reduced to what the page reads


def test_fragment_opens_on_the_start_step_not_where_code_left_the_cursor():
    s = step_through(lambda a: a * a, 2.0, svg=FAKE)
    s.goto(3)
    frag = s.to_html(fragment=True)
    assert frag.startswith('<div class="mg-stepper mg-player"') and 'data-mg-step="0"' in frag
    assert "<!DOCTYPE" not in frag and "<style>" in frag
    assert s.step == 0  # the cursor follows what is shown
    here = step_through(lambda a: a * a, 2.0, svg=FAKE, start=None)
    here.goto(3)
    assert 'data-mg-step="3"' in here.to_html(fragment=True)
    end = step_through(lambda a: a * a, 2.0, svg=FAKE, start=-1)
    assert f'data-mg-step="{len(end) - 1}"' in end.to_html(fragment=True)
    assert f'data-mg-step="{len(end) - 1}"' in end.to_html()


def test_panel_text_is_escaped():
    assert panel_html("a<b", "x & y") == (
        '<div class="mg-panel"><div class="mg-title">a&lt;b</div>'
        '<div class="mg-text">x &amp; y</div></div>'
    )


def test_player_starts_at_the_steppers_speed():
    s = step_through(lambda a: a * a, 2.0, svg=FAKE, speed="slow")
    assert '<option value="1400" selected>slow</option>' in s.to_html()

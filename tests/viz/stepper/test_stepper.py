"""``Stepper``: its repr and mime bundle, and the step written into the SVG."""

from __future__ import annotations

from tests._helpers import FAKE_SVG
from viz.stepper.stepper import step_through


def test_stepper_repr_is_deterministic_and_bundle_is_nbval_friendly():
    s = step_through(lambda a, b: a * b + a, 2.0, 3.0, svg=FAKE_SVG)
    assert repr(s) == "<Stepper both: 15 steps (6 forward, 9 backward), 4 nodes, 4 edges>"
    bundle = s._repr_mimebundle_()
    assert bundle["text/plain"] == repr(s)
    assert set(bundle) == {"text/plain", "text/html", "application/vnd.jupyter.widget-view+json"}
    assert bundle["application/vnd.jupyter.widget-view+json"]["model_id"] == s.widget.box.model_id
    static = step_through(lambda a: a * 2, 1.0, svg=FAKE_SVG, static=True)._repr_mimebundle_()
    assert 'class="mg-stepper mg-player"' in static["text/html"]
    assert repr(step_through(lambda a: a.exp(), 1.0, mode="forward", svg=FAKE_SVG)) == (
        "<Stepper forward: 4 steps (4 forward), 2 nodes, 1 edges>"
    )


def _stepper(**options):
    return step_through(lambda a, b: a * b + a, 2.0, 3.0, **options)


def test_render_svg_writes_the_step_into_the_svg():
    s = _stepper()
    a = next(n for n in s.frames.nodes if n.label == "a")
    assert f'id="n_{a.id}" class="node leaf param scalar hidden"' in s.render_svg(0)
    s.goto(1)
    assert f'id="n_{a.id}" class="node leaf param scalar current"' in s.render_svg()
    assert f'data-mg-grad="n_{a.id}">grad 4.0000<' in s.render_svg(len(s) - 1)

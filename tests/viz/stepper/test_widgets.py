"""The notebook widget (``viz.stepper.widgets``), driven without a kernel: controls move
one cursor, the graph is sent once and restyled per step."""

from __future__ import annotations

import re

from tests._helpers import FAKE_SVG
from viz.stepper.stepper import step_through


def _stepper(**options):
    return step_through(lambda a, b: a * b + a, 2.0, 3.0, **options)


def test_widget_buttons_slider_and_play_drive_the_same_state():
    s = _stepper()
    w = s.widget
    n = len(s)
    assert (w.slider.max, w.play.max, w.counter.value) == (n - 1, n - 1, f"step 1 / {n}")
    w.next_button.click()
    w.next_button.click()
    assert s.step == w.slider.value == w.play.value == 2
    assert w.counter.value == f"step 3 / {n}"
    w.prev_button.click()
    assert s.step == 1
    w.slider.value = 9
    assert s.step == 9 and w.play.value == 9
    w.play.value = 11  # what Play does in the browser; the link brings the slider along
    assert s.step == 11 and w.slider.value == 11
    w.last_button.click()
    assert s.step == n - 1 and w.play.value == n - 1
    w.first_button.click()
    assert s.step == 0 and w.slider.value == 0
    s.goto(5)  # moving from code updates the controls too
    assert w.slider.value == 5 and w.counter.value == f"step 6 / {n}"


def test_widget_counter_keeps_its_width_so_the_toolbar_never_rewraps():
    """"step 9 / 18" -> "step 10 / 18" used to widen the counter mid-replay, re-wrapping
    the toolbar and moving the graph: it is sized for its longest text from the start."""
    s = _stepper()
    w = s.widget
    widest = max(len(f"step {i + 1} / {len(s)}") for i in range(len(s)))
    assert w.counter.layout.width == w.counter.layout.min_width
    assert int(w.counter.layout.width.removesuffix("ch")) > widest


def test_widget_speed_sets_play_interval():
    s = step_through(lambda a: a * 2, 1.0, svg=FAKE_SVG, speed="fast")
    w = s.widget
    assert w.play.interval == 300 and w.speed.value == 300
    w.speed.value = 100
    assert w.play.interval == 100


def styled(css: str) -> dict[str, set[str]]:
    """``{state: element ids}`` from a step's stylesheet (``/*state*/#scope #n_3_s,…{…}``)."""
    out: dict[str, set[str]] = {}
    for state, selectors in re.findall(r"/\*([\w-]+)\*/([^{]*)\{", css):
        for sel in selectors.split(","):
            scope, target = sel.split(" ")
            assert re.fullmatch(r"#mgs-\d+", scope)
            el = re.sub(r"_[spa]$", "", target.lstrip("#"))
            out.setdefault(state, set()).add(el)
    return out


def test_widget_graph_is_sent_once_and_restyled_per_step():
    s = _stepper()
    w = s.widget
    a = next(n for n in s.frames.nodes if n.label == "a")
    graph0 = w.graph.value
    assert graph0.startswith(f'<div class="mg-stepper mg-widget" id="{s.scope}">')
    assert f'id="n_{a.id}" class="node leaf param scalar"' in graph0
    # every gradient a shows during the replay is in the SVG, hidden until its step
    assert re.findall(rf'id="gv_{a.id}_\d+"[^>]*>([^<]*)<', graph0) == [
        "grad —", "grad 1.0000", "grad 4.0000"]
    st0 = styled(w.restyle.value)
    assert f"n_{a.id}" in st0["hidden"] and f"gv_{a.id}_0" in st0["grad"]
    for i in range(len(s)):
        w.slider.value = i
        assert w.graph.value is graph0  # the SVG is never sent again
        css = styled(w.restyle.value)
        for state in ("hidden", "current", "receiving", "has-grad", "accumulated", "passed"):
            want = {el for el, c in s.frames.classes(i).items() if state in c.split()}
            assert css.get(state, set()) == want, (i, state)
    w.next_button.click()  # wraps: at the end, next stays at the end
    assert s.step == len(s) - 1
    assert f"gv_{a.id}_2" in styled(w.restyle.value)["grad"]  # a.grad = 4.0 at the end
    i = next(k for k, f in enumerate(s.frames.frames)
             if f.kind == "contribute" and f.text.startswith("mul: ∂#") and "∂a = b" in f.text)
    w.slider.value = i
    assert "1.0000 × 3.0000 = 3.0000 added to a.grad: 1.0000 → 4.0000" in w.panel.value
    assert styled(w.restyle.value)["receiving"] == {f"n_{a.id}"}
    w.slider.value = 1
    assert "Forward · create a" in w.panel.value and w.counter.value == f"step 2 / {len(s)}"
    assert styled(w.restyle.value)["current"] == {f"n_{a.id}"}


def test_widget_without_dot_shows_the_panel_and_a_note(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    s = _stepper(layout="dot")  # dot asked for but missing: no picture
    w = s.widget
    assert s.template is None and "graph not drawn" in s.note
    assert "mg-nograph" in w.graph.value and "graph not drawn" in w.graph.value
    assert w.restyle.value == "<style></style>"
    w.next_button.click()
    assert "create a" in w.panel.value
    assert "mg-nograph" in s.to_html()

"""The stepper widget's zoom (``viz.stepper.zoom``): one CSS rule per level, swapped by
buttons."""

from __future__ import annotations

import pytest

import minigrad as mg
import viz
from minigrad import Value


def test_zoom_css_fits_by_default_and_scales_the_fitted_width():
    from viz.stepper.zoom import zoom_css

    assert zoom_css("mgs-1", 1.0, 1869.0) == ""  # fit: the player's own max-width:100%
    assert "width:1869px" in zoom_css("mgs-1", "100%", 1869.0)
    assert "calc(2.0 * min(100%, 1869px))" in zoom_css("mgs-1", 2.0, 1869.0)
    assert zoom_css("mgs-1", 2.0, 1869.0).startswith("#mgs-1 .mg-graph svg{")


FAKE = ('<svg width="300pt" height="60pt" viewBox="0 0 300 60">'
        '<g id="graph0" class="graph"></g></svg>')


def test_the_widget_zoom_buttons_step_through_the_levels():
    pytest.importorskip("ipywidgets")
    with mg.record() as tape:
        y = Value(2.0, label="x") * 3.0
        y.backward()
    widget = viz.Stepper(tape, svg=FAKE).widget
    zoom = widget.zoom
    assert zoom.natural_px == 400 and zoom.style.value == ""
    zoom.in_button.click()
    assert zoom.level == 1.5 and "calc(1.5 * min(100%, 400px))" in zoom.style.value
    zoom.out_button.click()
    zoom.out_button.click()
    assert zoom.level == 0.75 and zoom.readout.value == "0.75× fit"
    zoom.one_button.click()
    assert "width:400px" in zoom.style.value and zoom.readout.value == "100%"
    zoom.fit_button.click()
    assert zoom.style.value == "<style></style>" and zoom.readout.value == "fit"
    assert zoom.box in widget.box.children

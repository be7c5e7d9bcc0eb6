"""Zoom for the stepper widget, where no script may run: buttons that swap one CSS rule.

The HTML player zooms and pans with its script (``assets/player.js``).  In
JupyterLab the widget's SVG sits in a ``widgets.HTML``, which runs no script,
so zooming is done from Python: each button rewrites a one-rule stylesheet
giving the SVG its width.  ``fit`` (the default) is the player's stylesheet
alone: the picture is as wide as the output area, never wider than drawn.
The other levels are multiples of that fitted width (CSS ``min(100%, …px)``,
so the browser, which knows the area's width, does the arithmetic), and
``100%`` is the size graphviz drew.  A zoomed graph scrolls inside its box
(scrollbars pan it; dragging needs a script).
"""

from __future__ import annotations

import re

__all__ = ["LEVELS", "ZoomBar", "svg_width_px", "zoom_css"]

#: zoom levels, as multiples of the fitted width ("fit" is 1)
LEVELS = (0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 4.0)


def svg_width_px(svg: str | None) -> float | None:
    """The width graphviz drew ``svg`` at, in CSS px (it writes points: 1 pt = 4/3 px)."""
    m = re.search(r'<svg\b[^>]*\bwidth="([\d.]+)(pt|px)?"', svg or "")
    if not m:
        return None
    return float(m.group(1)) * (4 / 3 if m.group(2) == "pt" else 1)


def zoom_css(scope: str, level, natural_px: float) -> str:
    """The stylesheet for zoom ``level`` (a multiple of the fitted width, or ``"100%"``)."""
    if level == 1:
        return ""
    if level == "100%":
        width = f"{natural_px:.0f}px"
    else:
        width = f"calc({level} * min(100%, {natural_px:.0f}px))"
    floor = "" if level == 1 else "min-width:0;"  # (an explicit zoom overrides the readable floor)
    return f"#{scope} .mg-graph svg{{max-width:none;{floor}width:{width};height:auto}}"


class ZoomBar:
    """The ``−``, ``fit``, ``100%``, ``+`` buttons and the ``style`` they rewrite (in ``box``)."""

    def __init__(self, scope: str, natural_px: float):
        import ipywidgets as w

        self.scope, self.natural_px = scope, natural_px
        self.level = 1.0
        self.style = w.HTML()

        def button(text, tip, action):
            b = w.Button(description=text, tooltip=tip, layout=w.Layout(width="auto"))
            b.on_click(lambda _b: action())
            return b

        self.out_button = button("−", "Zoom out", lambda: self.step(-1))
        self.fit_button = button("fit", "Fit the graph to the width", lambda: self.set(1.0))
        self.one_button = button("100%", "The size it was drawn at", lambda: self.set("100%"))
        self.in_button = button("+", "Zoom in", lambda: self.step(+1))
        self.readout = w.Label("fit")
        self.box = w.HBox([self.out_button, self.readout, self.in_button, self.fit_button,
                           self.one_button])

    def set(self, level) -> None:
        self.level = level
        self.style.value = f"<style>{zoom_css(self.scope, level, self.natural_px)}</style>"
        self.readout.value = ("fit" if level == 1 else level if isinstance(level, str)
                              else f"{level:g}× fit")

    def step(self, direction: int) -> None:
        """The next level in ``direction`` (from ``100%``: from the fit level nearest to 1)."""
        i = LEVELS.index(self.level) if self.level in LEVELS else LEVELS.index(1.0)
        self.set(LEVELS[max(0, min(len(LEVELS) - 1, i + direction))])

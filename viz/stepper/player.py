"""``viz.export_html``: a step-through as ONE self-contained HTML file.

The parts it stands on:

* ``viz.stepper.template``: the SVG laid out once and cut into a ``SvgTemplate``
  (per-step classes and gradient texts), the state CSS (``css``) and the player's
  JavaScript module (``script``: ``viz/assets/player.js``, the widget's too);
* ``viz.stepper.page``: the page itself (``player_html``, ``player_fragment``), the
  frames as compact per-step changes (``step_payload``), the panel and legend;
* ``viz.stepper.stepper``: the ``Stepper`` that holds the frames and the drawing.

This module sits above all of them: nothing in ``viz`` imports it.
"""

from __future__ import annotations

from .stepper import Stepper, save_page

__all__ = ["export_html"]


def export_html(tape, path, mode: str = "both", *, title: str | None = None, **draw_options):
    """Write the step-through of ``tape`` as ONE self-contained HTML file; returns the path.

    ``tape`` may also be a ``Stepper``.  The page needs no kernel and no
    network: open it in any browser, put it in slides, share it.  Without a
    graph drawing (graphviz missing or failing, graph too large) the page
    still steps through the panel, and a warning says why the graph is missing.
    """
    stepper = tape if isinstance(tape, Stepper) else Stepper(tape, mode=mode, **draw_options)
    return save_page(stepper, path, title, stacklevel=3)

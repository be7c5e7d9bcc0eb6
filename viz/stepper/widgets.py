"""The notebook widget: an anywidget whose JavaScript is the player's own module.

One front end, two hosts.  The standalone page (``viz.stepper.page``) and this
widget show the same markup (``player_markup``) driven by the same module
(``viz/assets/player.js``: slider, buttons, keys, play speed, drag-pan, Ctrl+wheel
zoom, fit, the current node kept in view, click a node to inspect it).  Here
the module is the widget's ``_esm``, read from the package: nothing is fetched
from a CDN.  What the widget adds is a kernel on the other end: the step is the
``step`` traitlet, so ``stepper.goto(k)`` in Python moves the browser, and the
slider in the browser moves Python's ``StepperState`` (``stepper.panel`` then
describes what the student sees).  The markup and the frames (``data``) go to
the browser once; a step sends one integer.

anywidget runs the same module in JupyterLab, Notebook 7, VS Code, Colab and
marimo (``Stepper._display_`` hands marimo this widget).  In marimo the browser's step
reaches Python as it does in Jupyter (marimo calls ``set_state`` on a model update); to
have a cell run again at every click, bind the widget to a name, ``view =
mo.ui.anywidget(stepper.widget)``, and read ``view`` there: a UI element bound to a name is
what marimo's reactivity follows (tests/browser/frontends_marimo_sync_app.py).
"""

from __future__ import annotations

import anywidget
import traitlets

from .page import player_data, player_markup
from .template import script

__all__ = ["StepperWidget"]


class StepperWidget(anywidget.AnyWidget):
    """The step-through of one ``Stepper`` in a notebook (``stepper.widget``).

    Synced traitlets: ``step`` (the cursor, both ways), ``speed`` (the play
    speed's name, both ways), ``markup`` and ``data`` (sent once: the player's
    HTML at the opening step, and the frames as ``viz.stepper.page.player_data``).
    """

    _esm = script()  # the file itself (anywidget sends it once per widget class and view)
    step = traitlets.Int(0).tag(sync=True)
    speed = traitlets.Unicode("normal").tag(sync=True)
    markup = traitlets.Unicode("").tag(sync=True)
    data = traitlets.Dict().tag(sync=True)

    def __init__(self, stepper):
        from .memory_strip import strip_html

        state = stepper.state
        start = state.step
        extra = strip_html(stepper.memory, start, script=False) if stepper.memory else ""
        info = stepper.node_info()
        super().__init__(
            step=start, speed=stepper.speed,
            markup=player_markup(stepper.frames, stepper.template, stepper.grad_text,
                                 start=start, note=stepper.note, speed=stepper.speed,
                                 extra=extra),
            data=player_data(stepper.frames, stepper.template, stepper.grad_text,
                             start=start, speed=stepper.speed, info=info),
        )
        self.stepper = stepper
        self.observe(self._on_browser_step, names="step")
        self.observe(self._on_speed, names="speed")
        state.observe(self._on_python_step)

    @traitlets.validate("step")
    def _valid_step(self, proposal) -> int:
        """The browser may only ask for a step that exists (the player clamps too)."""
        n = len(self.data.get("frames", ())) or 1
        return max(0, min(n - 1, int(proposal["value"])))

    @traitlets.validate("speed")
    def _valid_speed(self, proposal) -> str:
        from .page import SPEEDS

        if proposal["value"] not in dict(SPEEDS):
            raise traitlets.TraitError(
                f"StepperWidget: speed must be one of {', '.join(s for s, _ in SPEEDS)}, "
                f"got {proposal['value']!r}")
        return proposal["value"]

    def _on_browser_step(self, change) -> None:
        if self.stepper.state.step != change["new"]:
            self.stepper.state.goto(change["new"])

    def _on_python_step(self, i: int) -> None:
        if self.step != i:
            self.step = i

    def _on_speed(self, change) -> None:
        self.stepper.speed = change["new"]

    def _repr_mimebundle_(self, **kwargs):
        """anywidget's view, with the standalone player beside it as ``text/html``: what a
        saved notebook, nbconvert or a front end without widgets shows instead."""
        bundle = super()._repr_mimebundle_(**kwargs)
        data = bundle[0] if isinstance(bundle, tuple) else bundle
        if data is not None:
            data["text/html"] = self.stepper.to_html(fragment=True)
        return bundle

    @property
    def box(self):
        """What gets displayed: the widget itself (the name the ipywidgets UI had)."""
        return self

    def __repr__(self) -> str:
        return f"<StepperWidget for {self.stepper!r}>"

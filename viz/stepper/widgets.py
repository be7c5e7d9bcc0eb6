"""ipywidgets glue for the stepper: controls in, HTML out, nothing else.

Everything a step means lives in the plain ``StepperState``; these widgets
only move its cursor and show the result.  The graph is inline SVG inside a
``widgets.HTML`` (in the DOM, so CSS classes reach node ids; an ``Output``
widget or ``interact`` would break strict nbval).  Play is ipywidgets' ``Play``
linked to the slider with ``widgets.link`` (``jslink`` would not update the
Python side, so the graph would not follow).
"""

from __future__ import annotations

from .cursor import counter_text
from .memory_strip import strip_html
from .page import SPEEDS, legend, panel_html
from .template import css
from .zoom import ZoomBar, svg_width_px

__all__ = ["StepperWidget"]


class StepperWidget:
    """The controls and views of one ``Stepper``; ``box`` is what gets displayed.

    Attributes a test (or a curious student) can drive: ``play``, ``slider``,
    ``speed``, ``first_button``, ``prev_button``, ``next_button``,
    ``last_button``; and read: ``graph``, ``restyle``, ``panel``, ``counter``.

    The SVG goes to the browser once (``graph``); a step sends only a small
    stylesheet (``restyle``) keyed by element ids, so the browser restyles
    the graph instead of parsing it again, and nodes never move.
    """

    def __init__(self, stepper):
        import ipywidgets as w

        self.stepper = stepper
        state = stepper.state
        n = len(state)
        self.style = w.HTML(f"<style>{css()}</style>")
        # ipywidgets draws Play and Stop as bare icons: the stylesheet writes "Play",
        # "Pause" and "Stop" next to them (player.css), the tooltip says what they do
        # (shown only without a description, which Play never displays anyway)
        self.play = w.Play(value=state.step, min=0, max=n - 1, step=1,
                           interval=dict(SPEEDS)[stepper.speed],
                           tooltip="Play / Pause: step on by itself. Stop: back to the start.",
                           show_repeat=False)
        self.play.add_class("mg-play")
        # no description: the counter next to it says "step 4 / 8"; narrow enough that
        # the controls hold on one line in a notebook at 1,400 px
        self.slider = w.IntSlider(value=state.step, min=0, max=n - 1, step=1,
                                  readout=False, continuous_update=True,
                                  tooltip="Drag to any step",
                                  layout=w.Layout(flex="1 1 auto", min_width="120px"))
        self.link = w.link((self.play, "value"), (self.slider, "value"))
        self.speed = w.Dropdown(options=list(SPEEDS), value=dict(SPEEDS)[stepper.speed],
                                description="speed", style={"description_width": "initial"},
                                layout=w.Layout(width="auto"))
        self.speed.observe(self._on_speed, names="value")

        def button(text, tip, action):
            b = w.Button(description=text, tooltip=tip, layout=w.Layout(width="auto"))
            b.on_click(lambda _b: action())
            return b

        self.first_button = button("« Start", "Jump to the start", state.first)
        self.prev_button = button("◀ Prev", "Previous step", state.prev)
        self.next_button = button("Next ▶", "Next step", state.next)
        self.last_button = button("End »", "Jump to the end", state.last)
        # As wide as its longest text from the start: a counter that grows at "step 10"
        # would re-wrap the toolbar and make the graph jump mid-replay.
        widest = len(counter_text(n - 1, n)) + 1
        self.counter = w.Label(layout=w.Layout(width=f"{widest}ch", min_width=f"{widest}ch"))
        self.graph = w.HTML(stepper.widget_svg_html())  # sent once
        # (the drawing and the mode, so the key, never change)
        self._legend = legend(stepper.template, stepper.mode, stepper.frames.view,
                              stepper.frames.states)
        self.restyle = w.HTML()  # a <style> per step: the only thing that changes
        self.panel = w.HTML()
        # the memory strip (Stepper(memory=True)): redrawn per step, a few hundred bytes
        self.memory = w.HTML() if stepper.memory is not None else None
        controls = w.HBox(
            [self.first_button, self.prev_button, self.play, self.next_button,
             self.last_button, self.slider, self.counter, self.speed],
            layout=w.Layout(flex_flow="row wrap", align_items="center"),
        )
        natural = svg_width_px(stepper.svg)  # (zoom: viz.stepper.zoom, buttons rewriting one rule)
        self.zoom = ZoomBar(stepper.scope, natural) if natural else None
        zoom = [self.zoom.style, self.zoom.box] if self.zoom else []
        strip = [self.memory] if self.memory is not None else []
        self.box = w.VBox([self.style, self.restyle, controls, *zoom, self.graph, *strip,
                           self.panel])
        self.box.add_class("mg-stepper-widget")
        self.slider.observe(self._on_slider, names="value")
        state.observe(self._on_step)
        self._show(state.step)

    def _on_slider(self, change) -> None:
        self.stepper.state.goto(change["new"])

    def _on_step(self, i: int) -> None:
        if self.slider.value != i:
            self.slider.value = i  # the Play widget follows through the link
        self._show(i)

    def _on_speed(self, change) -> None:
        self.play.interval = int(change["new"])

    def _show(self, i: int) -> None:
        st = self.stepper
        self.restyle.value = f"<style>{st.step_css(i)}</style>"
        f = st.frames[i]
        self.panel.value = (f'<div class="mg-stepper">{panel_html(f.title, f.text)}'
                            f"{self._legend}</div>")
        self.counter.value = counter_text(i, len(st.frames))
        if self.memory is not None:
            self.memory.value = strip_html(st.memory, i, script=False)

    def __repr__(self) -> str:
        return f"<StepperWidget for {self.stepper!r}>"

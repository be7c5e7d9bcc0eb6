"""Where a live view's frames go: Jupyter, marimo, a function of yours, or nowhere.

* **Jupyter** (a kernel is running): the first frame is shown with
  ``display(obj, display_id=True)`` and every later one replaces it in place through the
  handle's ``update``. The output is plain ``text/html`` (each panel an SVG image in a data
  URI, which survives the sanitiser of an untrusted notebook), so a saved notebook keeps the
  last frame and needs no widget state to show it.
* **marimo** (the notebook is running under marimo): ``marimo.output.replace``. marimo is
  detected through ``sys.modules`` (it is already imported when a marimo notebook runs),
  so ``import viz`` never imports it.
* **A callable** ``sink(html)``: yours (a benchmark, a test, a file writer).
* **Anything else** (a script, plain pytest): nothing is shown; ``view.frame()`` returns
  the HTML.
"""

from __future__ import annotations

import sys

__all__ = ["Frame", "output_for", "running_marimo", "running_jupyter"]


class Frame:
    """One frame: HTML for notebooks, a one-line text for consoles and nbval (the view keeps
    that text the same for all its frames: nbval compares a display's first version)."""

    def __init__(self, html: str, text: str):
        self.html, self.text = html, text

    def _repr_html_(self) -> str:
        return self.html

    def __repr__(self) -> str:
        return self.text


def running_marimo() -> bool:
    mo = sys.modules.get("marimo")
    if mo is None:
        return False
    try:
        return bool(mo.running_in_notebook())
    except Exception:
        return False


def running_jupyter() -> bool:
    ipython = sys.modules.get("IPython")
    if ipython is None:
        return False
    shell = ipython.get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


class _Jupyter:
    def __init__(self):
        self.handle = None

    def __call__(self, frame: Frame) -> None:
        from IPython.display import display

        if self.handle is None:
            self.handle = display(frame, display_id=True)
        else:
            self.handle.update(frame)


def _marimo(frame: Frame) -> None:
    mo = sys.modules["marimo"]
    mo.output.replace(mo.Html(frame.html))


def _nowhere(frame: Frame) -> None:
    return None


def output_for(display):
    """``display`` as a function of a ``Frame``: ``"auto"`` picks by where we run,
    ``None`` shows nothing, a callable receives each frame's HTML."""
    if display is None:
        return _nowhere
    if callable(display):
        return lambda frame: display(frame.html)
    if display != "auto":
        raise ValueError(f"TrainingView: display must be 'auto', None or a function of the "
                         f"frame's HTML, got {display!r}")
    if running_marimo():
        return _marimo
    if running_jupyter():
        return _Jupyter()
    return _nowhere

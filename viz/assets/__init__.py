"""The front end's files, in one place: the player's module and stylesheet.

``player.js`` is ONE ES module for every host: the notebook widget's ``_esm``
(``viz.stepper.widgets``), the standalone page and a notebook's ``text/html`` player
(``viz.stepper.page``), and the zoom and pan of a big ``viz.draw`` output
(``viz.render.pan_zoom``); ``player.css`` styles them all.  Both are package data,
read here and nowhere else.

``asset(name)`` is the file as written, for a reader (and for the widget, whose
module a live front end loads once); ``asset(name, compact=True)`` is what a saved
output inlines: the same code with comments and layout stripped
(``viz.assets.compact``), about half the bytes, since every saved player carries
the whole module so that it works alone.
"""

from __future__ import annotations

import warnings
from functools import cache
from importlib import resources

from .compact import compact_css, compact_js

__all__ = ["asset", "module_script"]

# how each kind of file is compacted; the module says first where its readable text is
_COMPACT = {
    ".js": lambda text, name: compact_js(text, header=f"/* viz/assets/{name}, comments and "
                                         "layout stripped: the package has the readable file */\n"),
    ".css": lambda text, name: compact_css(text),
}


@cache
def asset(name: str, compact: bool = False) -> str:
    """The text of ``viz/assets/<name>``; with ``compact=True`` stripped for embedding."""
    files = resources.files(__name__)
    path = files.joinpath(name)
    if not path.is_file():
        known = sorted(p.name for p in files.iterdir() if p.name.endswith(tuple(_COMPACT)))
        raise FileNotFoundError(f"viz.assets: no file {name!r} (the front end's files: "
                                f"{', '.join(known)})")
    text = path.read_text(encoding="utf-8")
    if not compact:
        return text
    how = _COMPACT.get(name[name.rfind("."):])
    if how is None:
        return text
    try:
        return how(text, name)
    except (ValueError, RuntimeError) as exc:
        # (an edit the stripper cannot read: every output would break, so ship it as
        # written, bigger but right; tests/viz/assets catches this before a release)
        warnings.warn(f"viz.assets: {name} is embedded as written: {exc}", RuntimeWarning,
                      stacklevel=2)
        return text


def module_script() -> str:
    """The player's module, compacted, as an inline ``<script type="module">`` that
    starts every player and zoomable drawing on the page not yet running (``mountAll``)."""
    module = asset("player.js", compact=True)
    return f'<script type="module">{module}\nmountAll(document);\n</script>'

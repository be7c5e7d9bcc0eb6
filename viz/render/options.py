"""``viz.DisplayOptions``: one set of settings for every way of showing a graph.

``viz.draw``, ``viz.text``, ``viz.build_view`` and the stepper all read the
same frozen ``DisplayOptions``; each uses the fields it has a use for (the
text tree ignores ``rankdir``) and ignores the rest, so one object styles a
whole lesson:

>>> import viz
>>> opts = viz.DisplayOptions(digits=2, rankdir="TB", show_saved=True)
>>> viz.draw(loss, options=opts)          # doctest: +SKIP
>>> viz.text(loss, options=opts)          # doctest: +SKIP
>>> viz.step_through(f, 2.0, options=opts)  # doctest: +SKIP

Keyword arguments still work and win over ``options``:
``viz.draw(loss, options=opts, digits=4)``.  Numbers follow
``minigrad.formatting.format_number`` with ``digits`` decimals.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from minigrad.formatting import DIGITS

from .batches import check_example
from .derivative_orders import check_orders
from .numbers import check_options

__all__ = ["DisplayOptions", "RANKDIRS", "MODULES", "LAYOUTS", "OVERVIEWS", "UNSET", "resolve"]

#: ``"auto"`` (the default) picks LR or TB from the graph's shape: see ``viz.render.direction``.
RANKDIRS = ("auto", "LR", "TB", "RL", "BT")
MODULES = ("cluster", "box", None)
LAYOUTS = ("auto", "dot", "builtin")
OVERVIEWS = ("auto", True, False)


class _Unset:
    """The default of a renderer's keyword: "take it from ``options``"."""

    def __repr__(self) -> str:
        return "<from options>"


UNSET: Any = _Unset()


@dataclass(frozen=True)
class DisplayOptions:
    """How a graph is shown.  Every field has the default the renderers always had,
    except ``rankdir`` (``"auto"``, it was ``"LR"``).

    Numbers and values: ``digits`` decimals (4); ``width`` characters per
    tensor preview in the text tree and the view (drawings use 80);
    ``preview``: tensors with at most this many elements show their values.

    What is shown: ``show_grad`` (``False``: the forward view), ``show_saved``
    (what ops kept for backward; ``None``: custom Functions only),
    ``show_attrs`` (op settings in drawn nodes), ``params`` (names for
    leaves: a Module, a dict or pairs), ``scopes`` (module scopes: clusters
    and ``fc1.weight`` names), ``saved_values`` (``{node id: saved tuple}``
    standing in for released ones).

    Drawings: ``rankdir`` (``"auto"``: left to right unless the graph is
    too wide for a screen that way, see ``viz.render.direction``), ``modules``
    (``"cluster"``: each module's nodes framed, the default, also ``True``; ``"box"``: each
    module one box; ``None``: no frames, also ``False``), ``depth``, ``highlight``,
    ``max_nodes``, ``legend``, ``edge_labels``, ``title``, ``layout`` (who lays
    the picture out: ``"dot"``, the ``"builtin"`` layout that needs no system
    program, or ``"auto"``: dot when installed; see ``viz.draw``).
    Text tree: ``ids``, ``max_indent`` (see ``viz.text``).

    Big graphs (``viz.render.overview``): ``overview`` is ``"auto"`` (a picture of more
    than ``max_nodes`` nodes, or with a chain of 64 ops, is an overview: repeated structure
    grouped into boxes with counts, long chains folded; the text tree stays whole), ``True``
    (the picture and the text tree are overviews) or ``False`` (every node);
    ``expand`` names groups of the overview to open (``"example"``, ``"layers.0.neurons.*"``).

    Gradient graphs (``create_graph=True``): ``orders`` says which derivative
    orders are shown, ``"all"`` (the forward graph and its gradients' graphs,
    each order in its own colour), ``"gradient"`` (orders 1 and up) or an order
    or tuple of orders such as ``(1, 2)``; see ``viz.render.derivative_orders``.

    Inside ``vmap``: ``example`` says which example's values a batched node shows
    (``None``: the first); an int, or under nested vmaps a tuple with one index per
    vmap, outermost first.  Cards and the stepper's panel say ``example 2 of 5``; see
    ``viz.render.batches``.
    """

    digits: int = DIGITS
    width: int | None = 60
    preview: int = 6
    show_grad: bool = True
    show_saved: bool | None = None
    show_attrs: bool = False
    params: Any = None
    scopes: Any = None
    saved_values: dict | None = None
    rankdir: str = "auto"
    modules: str | None = "cluster"
    depth: int | None = None
    highlight: Any = ()
    max_nodes: int | None = 1000
    legend: bool = False
    edge_labels: bool = False
    title: str | None = None
    layout: str = "auto"
    ids: bool = False
    max_indent: int = 40
    orders: Any = "all"
    overview: Any = "auto"
    expand: Any = ()
    example: Any = None

    def __post_init__(self):
        if isinstance(self.modules, bool):
            object.__setattr__(self, "modules", _modules(self.modules))
        _check("DisplayOptions", self._fields())

    def _fields(self) -> dict:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    def replace(self, **changes) -> DisplayOptions:
        """A copy with some fields changed (the options are frozen)."""
        return dataclasses.replace(self, **changes)

    def as_dict(self) -> dict:
        """``{field: value}``, shallow (params and scopes are the objects given)."""
        return self._fields()


FIELDS = tuple(f.name for f in dataclasses.fields(DisplayOptions))
_NUMBERS = ("digits", "width", "preview", "depth", "max_nodes", "max_indent")


def _modules(on: bool) -> str | None:
    """``modules=True``/``False``, what a reader writes first: frames on (``"cluster"``) or off."""
    return "cluster" if on else None


def _check(where: str, values: dict) -> None:
    """Refuse values that would fail deep inside a renderer, naming ``where`` they came in."""
    check_options(where, **{k: values[k] for k in _NUMBERS if k in values})
    if "rankdir" in values and values["rankdir"] not in RANKDIRS:
        raise ValueError(f"{where}: rankdir must be one of {RANKDIRS}, got {values['rankdir']!r}")
    if "modules" in values and values["modules"] not in MODULES:
        raise ValueError(f"{where}: modules must be 'cluster' (or True), 'box' or None (or "
                         f"False), got {values['modules']!r}")
    if "orders" in values:
        check_orders(where, values["orders"])
    if "overview" in values and not (isinstance(values["overview"], bool)
                                     or values["overview"] == "auto"):
        raise ValueError(f"{where}: overview must be 'auto', True or False, got "
                         f"{values['overview']!r}")
    if "expand" in values and not (isinstance(values["expand"], str) or (
            isinstance(values["expand"], (list, tuple, set, frozenset))
            and all(isinstance(x, str) for x in values["expand"]))):
        raise TypeError(f"{where}: expand takes a group's name or a list of names (strings), "
                        f"got {values['expand']!r}")
    if "example" in values:
        check_example(where, values["example"])
    if "layout" in values and values["layout"] not in LAYOUTS:
        raise ValueError(f"{where}: layout must be one of {LAYOUTS}, got {values['layout']!r}")


def resolve(where: str, options: DisplayOptions | None, keywords: dict) -> DisplayOptions:
    """``options`` (default: ``DisplayOptions()``) with the keywords actually given on top.

    ``keywords`` may hold ``UNSET`` values (a renderer's untouched defaults):
    those are left out.  Errors name ``where`` (``"draw"``, ``"viz.text"``).
    """
    if options is None:
        options = DisplayOptions()
    elif not isinstance(options, DisplayOptions):
        raise TypeError(f"{where}: options must be a viz.DisplayOptions, got "
                        f"{type(options).__name__}")
    given = {k: v for k, v in keywords.items() if v is not UNSET}
    if not given:
        return options
    if isinstance(given.get("modules"), bool):
        given["modules"] = _modules(given["modules"])
    _check(where, given)
    return dataclasses.replace(options, **given)

"""viz: see a minigrad computation graph — as a picture, as text, as plots.

>>> import viz
>>> viz.draw(loss)              # graphviz picture, inline in Jupyter
>>> viz.draw(big_loss)          # past 1,000 nodes: an overview (overview=False, expand="example")
>>> viz.print_graph(loss)       # indented text tree
>>> viz.plot_history(history)   # matplotlib figure

Every renderer reads one ``GraphView`` (``viz.build_view``): nodes with a role
(param, input, intermediate, output, saved), edges (child, parent, slot) and
module clusters.  SVG element ids and classes are listed in ``viz.render.dot``.  One
``viz.DisplayOptions`` (digits, show_saved, rankdir, params, ...) styles them
all, and every number is written by ``minigrad.formatting.format_number``.

Importing ``viz`` is cheap: each name below loads its module on first use,
and graphviz, matplotlib, ipywidgets and anywidget are imported only when needed.
"""

from __future__ import annotations

import importlib
import sys

# name -> module that defines it (loaded on first access)
_LAZY = {
    # the graph view
    "build_view": "render.view",
    "GraphView": "render.view",
    "ViewNode": "render.view",
    "ViewEdge": "render.view",
    "SavedItem": "render.view",
    "Cluster": "render.view",
    "ROLES": "render.view",
    "node_key": "render.view",
    "edge_key": "render.view",
    "saved_key": "render.view",
    "cluster_key": "render.view",
    "grad_label": "render.view",
    # PyTorch's backward graph in the same view (torch imported only when given a tensor)
    "torch_view": "render.torch_graph",
    # one function in minigrad and in PyTorch: both graphs, paired, and a gradient table
    "side_by_side": "render.side_by_side",
    "SideBySide": "render.side_by_side",
    # how every renderer shows a graph
    "DisplayOptions": "render.options",
    # graphviz
    "draw": "render.draw",
    "Graph": "render.draw",
    "DotNotFoundError": "render.draw",
    "GraphTooLargeError": "render.draw",
    "dot_available": "render.draw",
    "strip_prolog": "render.draw",
    "to_dot": "render.dot",
    "COLORS": "render.dot",
    # text
    "text": "render.printer",
    "print_graph": "render.printer",
    # numbers
    "format_number": "render.numbers",
    "format_array": "render.numbers",
    "NO_GRAD": "render.numbers",
    # plots (matplotlib)
    "plot_history": "plots",
    "plot_decision_boundary": "plots",
    "plot_grad_flow": "plots",
    "plot_memory_ledger": "plots",
    # training watched live (also what minigrad's fit(live=True) shows)
    "TrainingView": "training.training_view",
    # step-through widgets and the HTML player (the stepper's modules; edit freely)
    "Stepper": "stepper.stepper",
    "step_through": "stepper.stepper",
    "export_html": "stepper.player",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'viz' has no attribute {name!r}")
    try:
        value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    except ModuleNotFoundError as exc:
        if exc.name != f"{__name__}.{module}":
            raise
        raise AttributeError(f"module 'viz' has no attribute {name!r} (viz.{module} is "
                             f"missing)") from None
    globals()[name] = value  # later lookups skip __getattr__
    return value


def _live_view(model, every, data):
    """``fit(..., live=True)``'s view: a ``TrainingView`` (its module loaded only now)."""
    from .training.training_view import TrainingView

    return TrainingView(model, every=every, data=data)


def _offer_live_view() -> None:
    """Register ``TrainingView`` for ``fit(..., live=True)`` when ``minigrad`` is already
    loaded (then this costs importing ``minigrad.fitting``; ``import viz`` alone never
    loads minigrad, and the view's own modules load on first use)."""
    if "minigrad" in sys.modules:
        from minigrad.fitting import register_live_view

        register_live_view(_live_view)


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


_offer_live_view()

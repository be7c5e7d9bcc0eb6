"""JupyterLab's pre-save hook for the kit (``make lab``): a saved notebook never keeps
a widget view that cannot be shown when it is reopened.

A widget output is saved as a *view*: a pointer to a widget model living in the
kernel.  JupyterLab (with the kit's ``saveState`` setting) also saves the models'
state in the notebook's metadata, so a reopened lesson shows its progress bars at
their final text.  Two kinds of view would still show "Error displaying widget:
model not found" on reopening, and this hook drops them before the file is written:

* a view whose model is not in the saved state (the kernel was restarted after the
  cell ran, or state saving is off);
* a view that carries its own kernel-free form beside it (``text/html``: a
  step-through's standalone player), which works with no kernel, where the saved
  widget would only show its controls frozen.

What stays is the output's other forms (``text/plain``, ``text/html``), which
JupyterLab shows instead.  Running the cell again brings the live widget back.  The
saved state of a model whose view gave way to its ``text/html`` goes too: nothing
shows it, and a step-through's (its markup and frames, the player's module) would
otherwise weigh as much as its player again, per step-through.

    jupyter lab --ContentsManager.pre_save_hook=scripts.lab_save.drop_orphan_widget_views
"""

from __future__ import annotations

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"

__all__ = ["drop_orphan_widget_views", "saved_models", "WIDGET_VIEW", "WIDGET_STATE"]


def saved_models(nb: dict) -> set:
    """The ids of the widget models whose state is saved in the notebook's metadata."""
    state = (nb.get("metadata", {}).get("widgets", {}) or {}).get(WIDGET_STATE, {}) or {}
    return set((state.get("state") or {}).keys())


def drop_orphan_widget_views(model: dict, **_) -> None:
    """Jupyter server's ``pre_save_hook``: edit the notebook ``model["content"]`` in place
    (see the module docstring).  Other files are left alone."""
    if model.get("type") != "notebook" or not isinstance(model.get("content"), dict):
        return
    nb = model["content"]
    saved = saved_models(nb)
    replaced = set()  # models whose view gave way to their text/html
    for cell in nb.get("cells", []):
        outputs = cell.get("outputs")
        if not outputs:
            continue
        kept = []
        for out in outputs:
            data = out.get("data") or {}
            view = data.get(WIDGET_VIEW)
            if isinstance(view, dict) and (view.get("model_id") not in saved
                                           or "text/html" in data):
                if "text/html" in data:
                    replaced.add(view.get("model_id"))
                del data[WIDGET_VIEW]
                if not data:  # nothing else to show: the output goes
                    continue
            kept.append(out)
        cell["outputs"] = kept
    shown = {(out.get("data") or {}).get(WIDGET_VIEW, {}).get("model_id")
             for cell in nb.get("cells", []) for out in cell.get("outputs") or []}
    state = (nb.get("metadata", {}).get("widgets", {}) or {}).get(WIDGET_STATE, {}) or {}
    for model_id in replaced - shown:  # (a model another kept view shows stays)
        (state.get("state") or {}).pop(model_id, None)

"""``scripts/lab_save.py``: what a lesson saved from ``make lab``'s JupyterLab keeps.

A widget view is kept only when its state is saved with the notebook and it has no
kernel-free form beside it; otherwise JupyterLab would show "Error displaying widget:
model not found" (or a frozen widget) when the lesson is reopened.
"""

from __future__ import annotations

import copy

from scripts.lab_save import WIDGET_STATE, WIDGET_VIEW, drop_orphan_widget_views


def view(model_id, **other):
    return {"output_type": "display_data", "metadata": {},
            "data": {WIDGET_VIEW: {"version_major": 2, "version_minor": 0,
                                   "model_id": model_id}, **other}}


def notebook(outputs, saved=()):
    nb = {"cells": [{"cell_type": "code", "source": "", "metadata": {}, "outputs": outputs},
                    {"cell_type": "markdown", "source": "text", "metadata": {}}],
          "metadata": {}}
    if saved is not None:
        nb["metadata"]["widgets"] = {WIDGET_STATE: {"state": {m: {} for m in saved}}}
    return {"type": "notebook", "content": nb}


def kept(model):
    return [sorted(o["data"]) for o in model["content"]["cells"][0]["outputs"]]


def test_a_view_with_saved_state_is_kept():
    model = notebook([view("bar", **{"text/plain": "0/4"})], saved=["bar"])
    drop_orphan_widget_views(model)
    assert kept(model) == [sorted([WIDGET_VIEW, "text/plain"])]


def test_a_view_without_saved_state_leaves_its_text():
    model = notebook([view("gone", **{"text/plain": "0/4"})], saved=["other"])
    drop_orphan_widget_views(model)
    assert kept(model) == [["text/plain"]]


def test_with_no_state_saved_at_all_every_view_goes_and_a_bare_view_goes_whole():
    model = notebook([view("a"), view("b", **{"text/plain": "b"})], saved=None)
    drop_orphan_widget_views(model)
    assert kept(model) == [["text/plain"]]


def test_a_player_beside_a_view_is_kept_instead_of_the_view():
    """A step-through: its standalone player steps with no kernel; the saved widget would
    only show its controls, frozen."""
    model = notebook([view("stepper", **{"text/plain": "<Stepper>", "text/html": "<div>"})],
                     saved=["stepper"])
    drop_orphan_widget_views(model)
    assert kept(model) == [["text/html", "text/plain"]]


def test_other_files_and_plain_outputs_are_left_alone():
    text_file = {"type": "file", "content": "x", "format": "text"}
    drop_orphan_widget_views(text_file)
    assert text_file == {"type": "file", "content": "x", "format": "text"}
    stream = {"output_type": "stream", "name": "stdout", "text": "done\n"}
    model = notebook([stream])
    before = copy.deepcopy(model)
    drop_orphan_widget_views(model)
    assert model == before


def test_the_state_of_a_model_replaced_by_its_player_is_not_saved():
    """A step-through's model state (markup, frames, the module) is as big as its player:
    once the view gives way to the player, nothing shows that state; other models stay."""
    model = notebook([view("stepper", **{"text/plain": "<Stepper>", "text/html": "<div>"}),
                      view("bar", **{"text/plain": "0/4"})], saved=["stepper", "bar"])
    drop_orphan_widget_views(model)
    state = model["content"]["metadata"]["widgets"][WIDGET_STATE]["state"]
    assert set(state) == {"bar"}
    assert kept(model) == [["text/html", "text/plain"], sorted([WIDGET_VIEW, "text/plain"])]

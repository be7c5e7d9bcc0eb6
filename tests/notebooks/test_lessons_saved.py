"""The lessons as a student first opens them, before running anything.

Widget state is not saved in the notebooks, so a saved widget view would point
at nothing: JupyterLab shows "Error displaying widget: model not found" in its
place.  ``scripts/nb_exec.py`` drops the views (keeping a stepper's one-line
text form); this keeps a lesson re-executed some other way from bringing them
back.
"""

from __future__ import annotations

import json

import pytest

from tests._helpers import ROOT

LESSONS = sorted((ROOT / "notebooks").glob("*.ipynb"))
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_no_saved_widget_view_points_at_missing_state(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    bad = [i for i, cell in enumerate(nb["cells"])
           for out in cell.get("outputs", []) if WIDGET_VIEW in out.get("data", {})]
    assert not bad, (f"{path.name}: cells {bad} keep widget views (re-execute with "
                     f"scripts/nb_exec.py, which drops them)")


def test_there_are_lessons():
    assert len(LESSONS) >= 10

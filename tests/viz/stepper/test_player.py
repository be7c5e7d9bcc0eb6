"""``viz.export_html``: the step-through as one self-contained HTML file."""

from __future__ import annotations

import json
import re

import pytest

import minigrad
from minigrad import Value
from tests._helpers import needs_dot
from viz import export_html
from viz.stepper.frames import Frames
from viz.stepper.stepper import Stepper


def square_tape():
    with minigrad.record() as tape:
        a = Value(2.0, label="a")
        y = a * a
        y.backward()
    return tape, a, y


def replay(payload) -> list[list[int]]:
    """What the inline script does, in Python: apply each step's changes."""
    codes = [0] * len(payload["elements"])
    states = []
    for f in payload["frames"]:
        for i, c in f["c"]:
            codes[i] = c
        states.append(list(codes))
    return states


@needs_dot
def test_exported_page_is_self_contained_and_encodes_every_step(tmp_path):
    tape, a, y = square_tape()
    path = export_html(tape, tmp_path / "square.html", mode="both", title="x times x")
    page = path.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and page.count("<svg") == 1
    assert "<title>x times x</title>" in page
    for external in ("<link", " src=", "@import", "url(http", "cdn"):
        assert external not in page
    data = re.search(r'<script type="application/json" class="mg-data">(.*?)</script>',
                     page, re.S).group(1)
    payload = json.loads(data.replace("<\\/", "</"))
    fr = Frames(tape, "both")
    assert len(payload["frames"]) == len(fr)
    assert [f["x"] for f in payload["frames"]] == [f.text for f in fr.frames]
    combos = payload["combos"]
    for i, codes in enumerate(replay(payload)):
        assert {el: combos[c] for el, c in zip(payload["elements"], codes) if c} == fr.classes(i)
    assert payload["no_grad"] == ["grad —"] * len(payload["grad_nodes"])
    assert "grad 4.0000" in payload["gtexts"]
    assert "export function mount(root,model)" in page  # the player's module is inline (compacted)


def test_export_without_drawing_still_has_steps(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")  # and dot asked for: no picture
    tape, _, _ = square_tape()
    s = Stepper(tape, mode="backward", layout="dot")
    with pytest.warns(RuntimeWarning, match="p.html: the page has no graph"):
        page = export_html(s, tmp_path / "p.html").read_text(encoding="utf-8")
    assert "mg-nograph" in page and "graph not drawn" in page
    assert '"frames":[' in page

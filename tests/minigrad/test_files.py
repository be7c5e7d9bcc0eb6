"""``Module.save`` writes the whole file or nothing (``minigrad.files.atomic_write``):
an interrupted save leaves the previous model, never a truncated one."""

from __future__ import annotations

import os

import numpy as np
import pytest

from minigrad import nn
from minigrad.files import atomic_write


def small(seed):
    return nn.Sequential(nn.Linear(3, 4, rng=np.random.default_rng(seed)), nn.ReLU(),
                         nn.Linear(4, 2, rng=np.random.default_rng(seed + 1)))


def test_a_save_interrupted_midway_keeps_the_previous_model(tmp_path, monkeypatch):
    path = tmp_path / "model.npz"
    good = small(0)
    good.save(path)

    def half_then_ctrl_c(fh, **arrays):
        fh.write(b"PK\x03\x04 half a zip")
        raise KeyboardInterrupt

    monkeypatch.setattr(np, "savez", half_then_ctrl_c)
    with pytest.raises(KeyboardInterrupt):
        small(5).save(path)
    monkeypatch.undo()
    loaded = small(9).load(path)
    for name, value in good.state_dict().items():
        np.testing.assert_array_equal(loaded.state_dict()[name], value)
    assert sorted(os.listdir(tmp_path)) == ["model.npz"]  # no temporary file left behind


def test_a_completed_save_replaces_the_file_and_adds_the_suffix(tmp_path):
    small(0).save(tmp_path / "m")
    newer = small(3)
    assert newer.save(tmp_path / "m") == str(tmp_path / "m.npz")
    loaded = small(9).load(tmp_path / "m")
    for name, value in newer.state_dict().items():
        np.testing.assert_array_equal(loaded.state_dict()[name], value)
    assert sorted(os.listdir(tmp_path)) == ["m.npz"]


def test_atomic_write_text_and_bad_mode(tmp_path):
    with atomic_write(tmp_path / "a.json", "w") as fh:
        fh.write("{}")
    assert (tmp_path / "a.json").read_text() == "{}"
    with pytest.raises(ValueError, match="mode must be"):
        with atomic_write(tmp_path / "b", "a"):
            pass
    assert not (tmp_path / "b").exists()

"""The python -m minigrad.train CLI: what it writes, and its entry point."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from minigrad.data import DataLoader
from minigrad.fitting import evaluate
from minigrad.train import build_model, load_dataset, main, run

pytestmark = pytest.mark.usefixtures("one_blas_thread")


def test_cli_writes_history_weights_and_plot(tmp_path, capsys):
    result = run(["digits", "--model", "mlp", "--epochs", "4", "--seed", "1", "--out",
                  str(tmp_path), "--no-progress"])
    out = capsys.readouterr().out
    assert "test accuracy:" in out and result["test_accuracy"] > 0.85
    saved = json.loads((tmp_path / "history.json").read_text())
    assert saved["seed"] == 1 and len(saved["history"]["epoch"]) == 4
    model = build_model("mlp", 64, 10, seed=5).load(tmp_path / "model.npz")
    X_te, y_te = load_dataset("digits")[1], load_dataset("digits")[3]
    assert evaluate(model, DataLoader((X_te, y_te), 512))[1] == pytest.approx(
        result["test_accuracy"])
    assert main(["moons", "--epochs", "1", "--no-progress"]) == 0


def test_python_dash_m_entry_point(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "minigrad.train", "digits", "--model", "cnn",
                           "--epochs", "1", "--no-progress"], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "test accuracy:" in proc.stdout
